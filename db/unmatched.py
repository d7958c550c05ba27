"""Load the stored listings no catalog SKU matched, for ``rigscout catalog unmatched``.

Accessories carry no SKU on purpose (a heatsink is not the card it fits), so they are left out.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from sqlalchemy import func, select

from db.models import ListingRow, ObservationRow
from ranking.titles import UnmatchedListing

if TYPE_CHECKING:
    from datetime import datetime

    from sqlalchemy.orm import Session


def load_unmatched_listings(
    session: Session, *, since: datetime | None = None
) -> list[UnmatchedListing]:
    """Every unmatched listing (seen since ``since``, when given) with its price range."""
    stmt = (
        select(
            ListingRow.title,
            ListingRow.currency,
            func.min(ObservationRow.price),
            func.max(ObservationRow.price),
        )
        .select_from(ListingRow)
        .outerjoin(ObservationRow, ObservationRow.listing_id == ListingRow.id)
        .where(ListingRow.sku.is_(None), ListingRow.kind != "accessory")
        .group_by(ListingRow.id, ListingRow.title, ListingRow.currency)
        .order_by(ListingRow.id)
    )
    if since is not None:
        stmt = stmt.where(ListingRow.last_seen >= since)
    return [
        UnmatchedListing(title, currency, _money(low), _money(high))
        for title, currency, low, high in session.execute(stmt)
    ]


def _money(value: object) -> Decimal | None:
    if value is None or isinstance(value, Decimal):
        return value
    return Decimal(str(value))
