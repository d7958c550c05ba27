"""Deals, listings and rules for the alert tests, with overridable defaults."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from alerts.settings import AlertRule
from core.models import BuyingFormat, Category, Deal
from db.models import ListingRow

if TYPE_CHECKING:
    from datetime import datetime

    from sqlalchemy.orm import Session

HOSTILE_TITLE = "<script>alert(1)</script> @everyone **bold** <@&123>"

BASE_DEAL = Deal(
    listing_id=1,
    item_id="1001",
    marketplace="EBAY_US",
    title="NVIDIA Tesla V100 SXM2 16GB HBM2 GPU",
    url="https://www.ebay.com/itm/1001",
    sku="v100-sxm2-16gb",
    sku_name="Tesla V100 SXM2 16GB",
    category=Category.GPU,
    quantity=1,
    buying_format=BuyingFormat.BUY_IT_NOW,
    landed_unit_price=Decimal("180.00"),
    currency="USD",
    shipping_known=True,
    score=0.8,
    reason="31 % under the 30-day sold median of 12 sales",
    discount=0.31,
    baseline=Decimal("260.00"),
    baseline_count=12,
    baseline_source="sold",
    evidence="strong",
    image_url="https://i.ebayimg.com/images/g/abc/s-l500.jpg",
)


def make_deal(listing_id: int = 1, **changes: Any) -> Deal:
    changes.setdefault("item_id", str(1000 + listing_id))
    changes.setdefault("url", f"https://www.ebay.com/itm/{1000 + listing_id}")
    if "landed_unit_price" in changes:
        changes["landed_unit_price"] = Decimal(str(changes["landed_unit_price"]))
    return replace(BASE_DEAL, listing_id=listing_id, **changes)


def make_rule(**changes: Any) -> AlertRule:
    changes.setdefault("name", "cheap-v100")
    changes.setdefault("channels", ("mail", "discord"))
    return AlertRule(**changes)


def add_listings(session: Session, ids: list[int], now: datetime) -> None:
    """Listing rows the outbox can point at."""
    for listing_id in ids:
        session.add(
            ListingRow(
                id=listing_id,
                marketplace="EBAY_US",
                item_id=str(1000 + listing_id),
                title=f"listing {listing_id}",
                url=f"https://www.ebay.com/itm/{1000 + listing_id}",
                buying_format="buy_it_now",
                currency="USD",
                first_seen=now,
                last_seen=now,
            )
        )
    session.commit()
