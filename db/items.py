"""One stored listing by its item number, for ``rigscout check``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import select

from db.models import ListingRow

if TYPE_CHECKING:
    from sqlalchemy.orm import Session


@dataclass(frozen=True, slots=True)
class StoredItem:
    listing_id: int
    marketplace: str
    item_id: str
    title: str
    url: str
    status: str
    sku: str | None
    category_id: str | None
    condition: str | None  # eBay's, in the marketplace's language


def load_item(session: Session, item_id: str) -> StoredItem | None:
    """The stored listing of ``item_id`` (on any marketplace: the one seen last), or None."""
    row = session.execute(
        select(
            ListingRow.id,
            ListingRow.marketplace,
            ListingRow.item_id,
            ListingRow.title,
            ListingRow.url,
            ListingRow.status,
            ListingRow.sku,
            ListingRow.category_id,
            ListingRow.condition,
        )
        .where(ListingRow.item_id == item_id)
        .order_by(ListingRow.last_seen.desc())
        .limit(1)
    ).first()
    return StoredItem(*row) if row is not None else None
