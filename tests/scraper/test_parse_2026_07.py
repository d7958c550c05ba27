"""The July 2026 result pages: ``li.s-card`` cards in ``su-card-container`` wrappers, day-first
sold dates, countdowns inline in the bids row, delivery split in two text pieces, the hidden
"Shop on eBay" placeholder outside the list, and ``su-item-card`` carousels that must not take
the page over. Hand-made fixtures of that shape: fixtures/ebay/scard_2026-07_*.html."""

from __future__ import annotations

import json
import os
from datetime import UTC, date, datetime
from decimal import Decimal

from click.testing import CliRunner

from bench import FIXTURES
from core.models import BuyingFormat
from rigscout.cli.main import cli
from scraper.parse import listing_to_contract, parse_search_page
from tests.conftest import load_fixture

ACTIVE = "scard_2026-07_active.html"
SOLD = "scard_2026-07_sold.html"
FETCHED = datetime(2026, 7, 9, 14, 30, tzinfo=UTC)


def test_the_result_list_decides_the_layout_not_a_carousel_of_su_item_cards() -> None:
    html = load_fixture("ebay", ACTIVE)
    assert html.count('class="su-item-card"') > html.count('class="s-card ')  # carousels
    page = parse_search_page(html, now=FETCHED)
    assert page.layout == "s-card"
    assert [x.item_id for x in page.listings] == [
        "406100000001",
        "406100000002",
        "406100000003",
        "406100000004",
    ]


def test_active_cards_read_in_full_with_countdowns_from_the_fetch_time() -> None:
    page = parse_search_page(load_fixture("ebay", ACTIVE), now=FETCHED)
    first, lot, p40, server = page.listings
    assert listing_to_contract(first) == {
        "item_id": "406100000001",
        "title": "NVIDIA Tesla V100 SXM2 16GB GPU 900-2G503-0000-000",
        "price": 189.0,
        "price_max": None,
        "currency": "USD",
        "shipping": 25.0,  # "+$25.00" and " delivery" are two text pieces
        "buying_format": "best_offer",
        "bids": None,
        "sold_date": None,
        "condition": "Pre-Owned",
        "url": "https://www.ebay.com/itm/406100000001",
        "best_offer_accepted": False,
        "seller": "gpu-depot",
        "seller_feedback": 12100,
        "seller_positive_pct": 99.8,
        "location": "United States",
        "image_url": "https://i.ebayimg.com/images/g/406100000001/s-l140.webp",
        "end_time": None,
        "marketplace": "EBAY_US",
    }
    assert (lot.buying_format, lot.bids, lot.shipping) == (BuyingFormat.AUCTION, 3, Decimal(0))
    assert lot.title == "Lot of 2 NVIDIA Tesla V100 SXM2 32GB <b>tested</b>"  # text, not markup
    assert lot.end_time == datetime(2026, 7, 11, 18, 30, tzinfo=UTC)  # 2d 4h after fetching
    assert (p40.bids, p40.shipping) == (0, Decimal("12.40"))
    assert p40.end_time == datetime(2026, 7, 9, 15, 15, tzinfo=UTC)  # 45m after fetching
    assert (server.price, server.shipping, server.shipping_note) == (
        Decimal(1150),
        None,
        "freight",
    )


def test_sold_cards_have_day_first_dates() -> None:
    page = parse_search_page(load_fixture("ebay", SOLD))
    assert [(x.item_id, x.sold_date) for x in page.listings] == [
        ("406200000001", date(2026, 7, 8)),
        ("406200000002", date(2026, 6, 30)),
        ("406200000003", date(2026, 7, 1)),
    ]
    accepted = page.listings[0]
    assert accepted.best_offer_accepted
    assert (accepted.price, accepted.shipping) == (Decimal(160), Decimal("18.50"))


def test_rigscout_parse_counts_countdowns_from_fetched_at_or_the_file_time(tmp_path) -> None:
    saved = tmp_path / "page.html"
    saved.write_text(load_fixture("ebay", ACTIVE), encoding="utf-8")
    moment = datetime(2026, 7, 1, 8, 0, tzinfo=UTC)
    os.utime(saved, (moment.timestamp(), moment.timestamp()))

    def end_times(*options: str) -> list[str | None]:
        result = CliRunner().invoke(cli, ["parse", str(saved), *options])
        assert result.exit_code == 0, result.output
        return [json.loads(line)["end_time"] for line in result.output.splitlines()][1:3]

    assert end_times("--fetched-at", "2026-07-09T14:30:00Z") == [
        "2026-07-11T18:30:00+00:00",
        "2026-07-09T15:15:00+00:00",
    ]
    assert end_times() == ["2026-07-03T12:00:00+00:00", "2026-07-01T08:45:00+00:00"]


def test_an_unreadable_fetched_at_is_a_clear_error() -> None:
    path = FIXTURES / "ebay" / ACTIVE
    result = CliRunner().invoke(cli, ["parse", str(path), "--fetched-at", "yesterday"])
    assert result.exit_code == 2
    assert "--fetched-at 'yesterday': expected an ISO 8601 time" in result.output
    assert "Traceback" not in result.output
