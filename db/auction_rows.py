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

_COLUMNS = (
    ListingRow.id,
    ListingRow.end_time,
    *SOLD_COLUMNS,
    ObservationRow.observed_at,
    ObservationRow.price,
    ObservationRow.shipping,
    ObservationRow.bids,
)


def load_watched_auctions(
    session: Session, *, since: datetime, newest: int | None = None
) -> list[WatchedAuction]:
    """Finished auctions that ended at or after ``since``, with their running observations;
    ``newest``: only the auctions among the ``newest`` sold ones that ended last."""
    finished = (
        ListingRow.buying_format == BuyingFormat.AUCTION.value,
        ListingRow.kind == "item",
        ListingRow.sku.is_not(None),
        ListingRow.end_time >= since,
    )
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
        .where(*finished)
        .order_by(ListingRow.id, ObservationRow.observed_at)
    )
    if newest is not None:
        latest = (
            select(ListingRow.id)
            .join(SaleRow, SaleRow.listing_id == ListingRow.id)
            .where(*finished)
            .order_by(ListingRow.end_time.desc(), ListingRow.id.desc())
            .limit(newest)
        )
        stmt = stmt.where(ListingRow.id.in_(latest.scalar_subquery()))
    rows = session.connection().execute(stmt).all()  # rows, not ORM results: no per-row cost
    return [
        auction
        for _, group in groupby(rows, key=lambda r: r[0])
        if (auction := _auction(list(group))) is not None
    ]


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


def _auction(rows: list[Any]) -> WatchedAuction | None:
    listing_id, end_time = rows[0][:2]
    final = sold_row(rows[0][2 : 2 + len(SOLD_COLUMNS)])
    if final.includes:
        return None  # a server sold with GPUs: its price is not its SKU's market
    seen = tuple(
        BidSeen(observed_at, price, shipping, bids)
        for (*_, observed_at, price, shipping, bids) in rows
    )
    return WatchedAuction(listing_id, end_time, final, seen)
