"""load_unmatched_listings: the stored listings no SKU matched, with their price range."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from decimal import Decimal

from core.models import BuyingFormat, Category, Kind, Listing, Normalized
from db.store import save_listings
from db.unmatched import load_unmatched_listings
from ranking.titles.unmatched import UnmatchedListing


def listing(item_id: str, title: str, price: str) -> Listing:
    return Listing(
        item_id=item_id,
        title=title,
        url=f"https://www.ebay.com/itm/{item_id}",
        price=Decimal(price),
        currency="USD",
        buying_format=BuyingFormat.BUY_IT_NOW,
    )


def norm(title: str, sku: str | None = None, kind: Kind = Kind.ITEM) -> Normalized:
    return Normalized(title, sku, Category.GPU if sku else None, kind)


def test_unmatched_listings_come_with_the_lowest_and_highest_price_seen(session, now) -> None:
    a800 = listing("1", "NVIDIA A800 80GB PCIe", "5200.00")
    items = [
        (a800, norm(a800.title)),
        (listing("2", "Tesla P40 24GB", "180.00"), norm("Tesla P40 24GB", "nvidia-tesla-p40")),
        (listing("3", "SXM2 heatsink", "40.00"), norm("SXM2 heatsink", kind=Kind.ACCESSORY)),
    ]
    save_listings(session, items, search=None, run_id=None, now=now)
    cheaper = replace(a800, price=Decimal("4899.99"))
    save_listings(
        session, [(cheaper, norm(a800.title))], search=None, run_id=None, now=now + timedelta(1)
    )
    session.commit()

    assert load_unmatched_listings(session) == [
        UnmatchedListing("NVIDIA A800 80GB PCIe", "USD", Decimal("4899.99"), Decimal("5200.00"))
    ]
    assert load_unmatched_listings(session, since=now + timedelta(days=2)) == []
