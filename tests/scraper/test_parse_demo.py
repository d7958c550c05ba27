"""Every offline demo page parses back to exactly the listings of fixtures/demo/listings.tsv."""

from __future__ import annotations

import csv
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from bench import FIXTURES
from core.models import BuyingFormat
from scraper.parse import parse_search_page

DEMO = FIXTURES / "demo"
SEARCHES = [
    "v100-sxm2", "v100-pcie", "p40", "p100", "rtx-3090", "rtx-4090", "rtx-3060-12gb",
    "a100", "sys-4028gr", "t181-g20", "esc4000",
]  # fmt: skip


def tsv_rows() -> list[dict[str, str]]:
    with (DEMO / "listings.tsv").open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def page_files() -> list[tuple[str, str, int]]:
    return sorted({(r["search"], r["mode"], int(r["page"])) for r in tsv_rows()})


def expected_shipping(text: str) -> Decimal | None:
    return None if text in {"", "freight", "pickup"} else Decimal(text)


def test_every_search_has_an_active_and_a_sold_first_page():
    for search in SEARCHES:
        for mode in ("active", "sold"):
            assert (DEMO / search / f"{mode}-p1.html").is_file(), (search, mode)
    assert (DEMO / "v100-sxm2" / "active-p2.html").is_file()


@pytest.mark.parametrize(("search", "mode", "page"), page_files())
def test_demo_page_yields_its_tsv_listings(search, mode, page):
    path = DEMO / search / f"{mode}-p{page}.html"
    assert path.stat().st_size < 150_000
    parsed = parse_search_page(
        path.read_text(encoding="utf-8"),
        url=path.as_uri(),
        search=search,
        now=datetime(2026, 11, 20, 12, tzinfo=UTC),
    )
    rows = [
        r for r in tsv_rows() if (r["search"], r["mode"], int(r["page"])) == (search, mode, page)
    ]
    assert [x.item_id for x in parsed.listings] == [r["item_id"] for r in rows]
    for listing, row in zip(parsed.listings, rows, strict=True):
        assert listing.title == row["title"]
        assert listing.price == Decimal(row["price"])
        assert listing.price_max == (Decimal(row["price_max"]) if row["price_max"] else None)
        assert listing.shipping == expected_shipping(row["shipping"])
        assert listing.buying_format == BuyingFormat(row["format"])
        assert listing.bids == (int(row["bids"]) if row["bids"] else None)
        assert listing.best_offer_accepted == (row["best_offer_accepted"] == "yes")
        assert listing.sold_date == (
            date.fromisoformat(row["sold_date"]) if row["sold_date"] else None
        )
        assert (listing.condition, listing.seller, listing.location) == (
            row["condition"], row["seller"], row["location"],
        )  # fmt: skip
        if mode == "active" and row["format"] == "auction":
            assert listing.end_time is not None
            assert listing.end_time > datetime(2026, 11, 20, 12, tzinfo=UTC)


def test_only_the_first_of_two_pages_offers_a_next_page():
    def has_next(name: str) -> bool:
        html = (DEMO / "v100-sxm2" / name).read_text(encoding="utf-8")
        return parse_search_page(html).has_next

    assert has_next("active-p1.html")
    assert not has_next("active-p2.html")


def test_the_demo_covers_what_a_buyer_meets():
    rows = tsv_rows()
    titles = " ".join(r["title"] for r in rows)
    for needle in ("@everyone", "<b>", "Heatsink", "Lot of 4", "X10DRG-O-PCIE", "X9DRG-O-PCIE"):
        assert needle in titles
    assert {r["format"] for r in rows} == {"auction", "buy_it_now", "best_offer"}
    assert any(r["best_offer_accepted"] == "yes" for r in rows)
    assert {"0", "freight"} <= {r["shipping"] for r in rows}
    assert any(int(r["feedback"]) < 10 for r in rows)
    sold = [date.fromisoformat(r["sold_date"]) for r in rows if r["mode"] == "sold"]
    assert min(sold) >= date(2026, 10, 25)
    assert max(sold) <= date(2026, 11, 19)
