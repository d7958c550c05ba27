"""Load the auctions rigscout watched to their end: the sale, and the bids seen before it.

Only loading lives here (the model is ``ranking/market/auction.py``, the snapshots
``ranking/market/auction_watch.py``). An auction counts when it is a catalog item (not a part, not a
server sold with GPUs), ended at or after ``since`` with a sale recorded (seen on a sold page,
imported, or presumed from its last bid), and its end time is known. The same statement runs on
SQLite and PostgreSQL.
"""

from __future__ import annotations

from itertools import groupby
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select

from core.models import BuyingFormat
from db.models import ListingRow, ObservationRow, SaleRow
from db.rank_rows import SOLD_COLUMNS, sold_row
from ranking.market import BidSeen, WatchedAuction

if TYPE_CHECKING:
    from datetime import datetime

    from sqlalchemy.orm import Session

_AUCTIONS = (ListingRow.id, ListingRow.end_time, *SOLD_COLUMNS)
_SIGHTINGS = (
    ObservationRow.listing_id,
    ObservationRow.observed_at,
    ObservationRow.price,
    ObservationRow.shipping,
    ObservationRow.bids,
)


def load_watched_auctions(
    session: Session, *, since: datetime, newest: int | None = None
) -> list[WatchedAuction]:
    """Finished auctions that ended at or after ``since``, with their running observations;
    ``newest``: only the auctions among the ``newest`` sold ones that ended last.

    Two statements, the auctions and their sightings, each row read once: joined, every
    sighting's row repeated its auction's sale (a year of watched auctions is tens of
    thousands of sightings)."""
    finished = (
        ListingRow.buying_format == BuyingFormat.AUCTION.value,
        ListingRow.kind == "item",
        ListingRow.sku.is_not(None),
        ListingRow.end_time >= since,
    )
    auctions = select(*_AUCTIONS).join(SaleRow, SaleRow.listing_id == ListingRow.id)
    sightings = (
        select(*_SIGHTINGS)
        .join(ListingRow, ListingRow.id == ObservationRow.listing_id)
        .join(SaleRow, SaleRow.listing_id == ListingRow.id)
        .where(ObservationRow.status == "active", ObservationRow.observed_at < ListingRow.end_time)
    )
    auctions, sightings = auctions.where(*finished), sightings.where(*finished)
    if newest is not None:
        latest = (
            select(ListingRow.id)
            .join(SaleRow, SaleRow.listing_id == ListingRow.id)
            .where(*finished)
            .order_by(ListingRow.end_time.desc(), ListingRow.id.desc())
            .limit(newest)
        )
        auctions = auctions.where(ListingRow.id.in_(latest.scalar_subquery()))
        sightings = sightings.where(ListingRow.id.in_(latest.scalar_subquery()))
    # rows, not ORM results: no per-row cost
    connection = session.connection()
    ordered = sightings.order_by(ObservationRow.listing_id, ObservationRow.observed_at)
    seen = {
        listing_id: tuple(BidSeen(*row[1:]) for row in group)
        for listing_id, group in groupby(connection.execute(ordered), key=lambda r: r[0])
    }
    found = []
    for row in connection.execute(auctions.order_by(ListingRow.id)):
        bids = seen.get(row[0])
        # Only auctions seen running teach the model anything.
        if bids and (auction := _auction(row, bids)) is not None:
            found.append(auction)
    return found


def load_watch_fingerprint(session: Session) -> tuple[object, ...]:
    """What changes whenever a save could change the watched auctions or the sales.

    Every save (collection, import) stamps ``last_seen`` on the listings it touches; a new price
    or status is a new observation; closing ended listings stamps ``changed_at``; a new or
    replaced sale moves the sales' count or newest id. A few aggregates: instant next to
    loading the auctions themselves.
    """
    # One aggregate a statement, so each is read off its index (the newest listing id for the
    # count: listings are never deleted), not a scan of the table.
    listings = tuple(
        session.scalar(select(func.max(column)))
        for column in (ListingRow.id, ListingRow.last_seen, ListingRow.changed_at)
    )
    sales = session.execute(select(func.count(), func.max(SaleRow.id))).one()
    newest_observation = session.scalar(select(func.max(ObservationRow.id)))
    return (*listings, *sales, newest_observation)


def _auction(row: Any, seen: tuple[BidSeen, ...]) -> WatchedAuction | None:
    listing_id, end_time = row[:2]
    final = sold_row(row[2 : 2 + len(SOLD_COLUMNS)])
    if final.includes:
        return None  # a server sold with GPUs: its price is not its SKU's market
    return WatchedAuction(listing_id, end_time, final, seen)
