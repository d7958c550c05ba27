"""Load what the history-based alert rules need: first prices and each SKU's recent lows.

Only loading lives here (the rules are ``alerts/rules.py``); amounts come back as stored
(price, shipping, currency, lot size, category) for ``ranking.landed`` to land, so the landed
rule is applied in one place. The same statements run on SQLite and PostgreSQL.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select

from db.batches import batches
from db.models import ListingRow, ObservationRow, SaleRow
from db.types import from_units, raw_units

if TYPE_CHECKING:
    from collections.abc import Collection
    from datetime import date
    from decimal import Decimal

    from sqlalchemy.orm import Session

CHUNK = 500  # ids per IN list (SQLite's default limit on bound parameters is far above)


@dataclass(frozen=True, slots=True)
class SeenPrice:
    """A price as stored: asked (or sold at) by ``listing_id``, for a lot of ``quantity``."""

    listing_id: int
    sku: str
    category: str
    quantity: int
    currency: str
    price: Decimal
    shipping: Decimal | None
    marketplace: str = "EBAY_US"
    location: str | None = None  # where it ships from (freight is estimated from it)


def load_first_prices(session: Session, listing_ids: Collection[int]) -> list[SeenPrice]:
    """Each listing's first observation (its price when rigscout first saw it)."""
    rows: list[SeenPrice] = []
    for chunk in batches(sorted(listing_ids), CHUNK):
        firsts = (
            select(func.min(ObservationRow.id))  # saved in the order rigscout saw them
            .where(ObservationRow.listing_id.in_(chunk))
            .group_by(ObservationRow.listing_id)
        )
        rows += _seen(session, ObservationRow.id.in_(firsts))
    return rows


def load_lowest_totals(session: Session, skus: Collection[str], *, since: date) -> list[SeenPrice]:
    """The prices ``skus`` (single catalog items) showed since ``since``: per listing, its
    lowest asking price + shipping seen while active (per currency and whether shipping was
    known: the landed rule is monotonic in the total within such a group), and each sale dated
    after ``since`` (by its sold date: a sold page read today shows older sales too)."""
    if not skus:
        return []
    wanted = (ListingRow.sku.in_(sorted(skus)), ListingRow.kind == "item", ListingRow.quantity > 0)
    total = raw_units(ObservationRow.price) + func.coalesce(raw_units(ObservationRow.shipping), 0)
    known = ObservationRow.shipping.is_not(None)
    asking = (
        select(
            ObservationRow.listing_id, ListingRow.sku, ListingRow.category, ListingRow.quantity,
            ObservationRow.currency, known, func.min(total), ListingRow.marketplace,
            ListingRow.location,
        )
        .join(ListingRow, ListingRow.id == ObservationRow.listing_id)
        .where(
            *wanted,
            ObservationRow.status == "active",
            ObservationRow.observed_at >= datetime.combine(since, datetime.min.time(), UTC),
        )
        .group_by(
            ObservationRow.listing_id, ListingRow.sku, ListingRow.category, ListingRow.quantity,
            ObservationRow.currency, known, ListingRow.marketplace, ListingRow.location,
        )
    )  # fmt: skip
    sold = (
        select(
            SaleRow.listing_id, ListingRow.sku, ListingRow.category, ListingRow.quantity,
            SaleRow.currency, SaleRow.shipping.is_not(None),
            raw_units(SaleRow.price) + func.coalesce(raw_units(SaleRow.shipping), 0),
            ListingRow.marketplace, ListingRow.location,
        )
        .join(ListingRow, ListingRow.id == SaleRow.listing_id)
        .where(*wanted, SaleRow.sold_date > since)
    )  # fmt: skip
    return [
        SeenPrice(
            int(listing_id), str(sku), str(category), int(quantity), str(currency),
            from_units(int(low), 2), from_units(0, 2) if shipping_known else None,
            marketplace, location,
        )
        for stmt in (asking, sold)
        for listing_id, sku, category, quantity, currency, shipping_known, low, marketplace,
        location in session.execute(stmt)
    ]  # fmt: skip


def _seen(session: Session, where: Any) -> list[SeenPrice]:
    stmt = (
        select(
            ObservationRow.listing_id, ListingRow.sku, ListingRow.category, ListingRow.quantity,
            ObservationRow.currency, ObservationRow.price, ObservationRow.shipping,
            ListingRow.marketplace, ListingRow.location,
        )
        .join(ListingRow, ListingRow.id == ObservationRow.listing_id)
        .where(where)
    )  # fmt: skip
    return [
        SeenPrice(
            int(lid), str(sku or ""), str(category or ""), int(qty), cur, price, ship, market, at,
        )
        for lid, sku, category, qty, cur, price, ship, market, at in session.execute(stmt)
    ]  # fmt: skip
