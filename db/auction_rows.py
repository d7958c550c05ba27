"""Load the auctions rigscout watched to their end: the sale, and the bids seen before it.

Only loading lives here (the model is ``ranking/auction.py``, the snapshots
``ranking/auction_watch.py``). An auction counts when it is a catalog item (not a part, not a
server sold with GPUs), ended at or after ``since`` with a sale recorded (seen on a sold page,
imported, or presumed from its last bid), and its end time is known. The same statement runs on
SQLite and PostgreSQL.
"""

from __future__ import annotations

from itertools import groupby
from typing import TYPE_CHECKING, Any

from sqlalchemy import String, cast, select

from core.models import BuyingFormat
from db.models import ListingRow, ObservationRow, SaleRow
from ranking.auction_watch import BidSeen, WatchedAuction
from ranking.rows import SoldRow

if TYPE_CHECKING:
    from datetime import datetime

    from sqlalchemy.orm import Session

_COLUMNS = (
    ListingRow.id,
    ListingRow.end_time,
    ListingRow.sku,
    ListingRow.quantity,
    cast(ListingRow.includes, String),
    SaleRow.price,
    SaleRow.currency,
    SaleRow.sold_date,
    SaleRow.shipping,
    SaleRow.best_offer_accepted,
    SaleRow.source,
    ObservationRow.observed_at,
    ObservationRow.price,
    ObservationRow.shipping,
    ObservationRow.bids,
)


def load_watched_auctions(session: Session, *, since: datetime) -> list[WatchedAuction]:
    """Finished auctions that ended at or after ``since``, with their running observations."""
    stmt = (
        select(*_COLUMNS)
        .join(SaleRow, SaleRow.listing_id == ListingRow.id)
        # Only auctions seen running teach the model anything: an inner join leaves the others.
        .join(
            ObservationRow,
            (ObservationRow.listing_id == ListingRow.id)
            & (ObservationRow.status == "active")
            & (ObservationRow.observed_at < ListingRow.end_time),
        )
        .where(
            ListingRow.buying_format == BuyingFormat.AUCTION.value,
            ListingRow.kind == "item",
            ListingRow.sku.is_not(None),
            ListingRow.end_time >= since,
        )
        .order_by(ListingRow.id, ObservationRow.observed_at)
    )
    rows = session.execute(stmt).all()
    return [
        auction
        for _, group in groupby(rows, key=lambda r: r[0])
        if (auction := _auction(list(group))) is not None
    ]


def _auction(rows: list[Any]) -> WatchedAuction | None:
    (listing_id, end_time, sku, quantity, includes, *sale) = rows[0][:11]
    if includes and includes != "[]":
        return None
    final = SoldRow(str(sku), quantity, sale[0], sale[1], sale[2], sale[3], bool(sale[4]), sale[5])
    seen = tuple(
        BidSeen(observed_at, price, shipping, bids)
        for (*_, observed_at, price, shipping, bids) in rows
    )
    return WatchedAuction(listing_id, end_time, final, seen)
