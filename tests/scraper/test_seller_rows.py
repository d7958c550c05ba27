"""A seller's row read in every language a result page arrives in: the name, the positive
percentage and the feedback count, rounded as eBay rounds large counts ("48K", "12 Tsd.",
"2,1 mil"): the count is what the trust rules weigh, so a wording that loses it misjudges a
seller."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest

from bench import FIXTURES
from scraper.parse import parse_search_page

PAGE = (FIXTURES / "demo" / "p40" / "active-p1.html").read_text("utf-8")
ROW = (
    '<span class="su-styled-text primary large">servertechsupply </span>'
    '<span class="su-styled-text primary large">99.6% positive (48K)</span>'
)


@pytest.mark.parametrize(
    ("row", "seller"),
    [
        ("servertechsupply 99.6% positive (48K)", ("servertechsupply", 48_000, "99.6")),
        ("servertechsupply 99.6% positive feedback (48K)", ("servertechsupply", 48_000, "99.6")),
        ("servertechsupply 99,6 % positiv (12 Tsd.)", ("servertechsupply", 12_000, "99.6")),
        ("servertechsupply 99,6 % positiv (1.234)", ("servertechsupply", 1_234, "99.6")),
        ("servertechsupply 99,2 % d'évaluations positives (3,4K)", ("servertechsupply", 3_400, "99.2")),
        ("servertechsupply 100% di feedback positivi (2,5 mila)", ("servertechsupply", 2_500, "100")),
        ("servertechsupply 99,5 % de votos positivos (2,1 mil)", ("servertechsupply", 2_100, "99.5")),
        ("servertechsupply (48K) 99.6% positive", ("servertechsupply", 48_000, "99.6")),
        ("servertechsupply 100% positive", ("servertechsupply", None, "100")),
    ],
)  # fmt: skip
def test_a_sellers_row_is_read_in_any_language(row, seller):
    name, count, pct = seller
    page = PAGE.replace(ROW, f'<span class="su-styled-text primary large">{row}</span>', 1)
    assert page != PAGE
    listings = parse_search_page(
        page, url="https://www.ebay.com/sch/i.html?_nkw=p40", now=datetime(2026, 11, 20, tzinfo=UTC)
    ).listings
    dell = next(x for x in listings if x.item_id == "334119299840")
    assert (dell.seller, dell.seller_feedback, dell.seller_positive_pct) == (
        name, count, Decimal(pct),
    )  # fmt: skip
