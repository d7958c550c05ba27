"""Load the auctions rigscout watched to their end: the sale, and the bids seen before it.

Only loading lives here (the model is ``ranking/market/auction.py``, the snapshots
``ranking/market/auction_watch.py``). An auction counts when it is a catalog item (not a part, not a
server sold with GPUs), ended at or after ``since`` with a sale recorded (seen on a sold page,
imported, or presumed from its last bid), and its end time is known. The same statement runs on
SQLite and PostgreSQL.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from itertools import groupby
from typing import TYPE_CHECKING, Any

from sqlalchemy import exists, func, select

from core.models import BuyingFormat
from db.models import ListingRow, ObservationRow, SaleRow
from db.rank_rows import SOLD_COLUMNS, sold_row
from ranking.market import BidSeen, WatchedAuction

if TYPE_CHECKING:
    from sqlalchemy import ColumnElement
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
    session: Session, *, since: datetime, newest: int | None = None, sold_before: date | None = None
) -> list[WatchedAuction]:
    """Finished auctions that ended at or after ``since``, with their running observations;
    ``newest``: only the auctions among the ``newest`` sold ones that ended last;
    ``sold_before``: only those whose sale is dated before that day.

    Two statements, the auctions and their sightings, each row read once: joined, every
    sighting's row repeated its auction's sale (a year of watched auctions is tens of
    thousands of sightings)."""
    finished = (
        ListingRow.buying_format == BuyingFormat.AUCTION.value,
        ListingRow.kind == "item",
        ListingRow.sku.is_not(None),
        ListingRow.end_time >= since,
        *(() if sold_before is None else (SaleRow.sold_date < sold_before,)),
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


@dataclass(frozen=True, slots=True)
class FitMarks:
    """Where the store stood when the auction model was fitted: its sales (count, newest id,
    newest change), its newest sighting and its newest listing change."""

    sales: tuple[int, int | None, int | None]
    observation: int | None
    changed: datetime | None

    def to_json(self) -> dict[str, object]:
        changed = self.changed.isoformat() if self.changed is not None else None
        return {"sales": list(self.sales), "observation": self.observation, "changed": changed}

    @classmethod
    def from_json(cls, data: object) -> FitMarks:
        """What ``to_json`` wrote; a ``ValueError`` where it is not that."""
        match data:
            case {
                "sales": [int() as count, int() | None as newest, int() | None as change],
                "observation": int() | None as observation,
                "changed": str() | None as changed,
            }:
                when = datetime.fromisoformat(changed) if changed is not None else None
                return cls((count, newest, change), observation, when)
        raise ValueError(f"not fit marks: {data!r}")


def load_fit_marks(session: Session) -> FitMarks:
    """The store's marks now (three aggregates, each read off an index)."""
    count, newest, change = session.execute(
        select(func.count(), func.max(SaleRow.id), func.max(SaleRow.change_seq))
    ).one()
    observation = session.scalar(select(func.max(ObservationRow.id)))
    changed = session.scalar(select(func.max(ListingRow.changed_at)))
    return FitMarks((count, newest, change), observation, changed)


def load_watch_fingerprint(session: Session, marks: FitMarks) -> tuple[object, ...]:
    """What changes whenever a save could change the markets, the asking prices or the sales.

    Every save (collection, import) stamps ``last_seen`` on the listings it touches; a new price
    or status is a new observation; a changed listing, or closing ended ones, stamps
    ``changed_at``; a new or replaced sale moves the sales' marks (``load_fit_marks``). A few
    aggregates, each read off its index (the newest listing id for the count: listings are
    never deleted), not a scan of a table. ``marks``: ``load_fit_marks`` now, which the caller
    reads once for this and the auction model.
    """
    listings = tuple(
        session.scalar(select(func.max(column))) for column in (ListingRow.id, ListingRow.last_seen)
    )
    return (*listings, marks.changed, *marks.sales, marks.observation)


def load_sales_before(session: Session, day: date) -> int:
    """How many sales are dated before ``day`` (a range of the index on ``sold_date``)."""
    return int(session.scalar(select(func.count()).where(SaleRow.sold_date < day)) or 0)


def load_fit_unchanged(
    session: Session, marks: FitMarks, current: FitMarks, *, before: tuple[date, int] | None = None
) -> bool:
    """Whether nothing the auction model is fitted on has changed from ``marks`` to
    ``current`` (``load_fit_marks`` then and now).

    ``before``: a day, and how many sales were dated before it at ``marks``
    (``load_sales_before``), for a fit that reads only the sales dated before that day and
    the listings they sold: a sale of that day or later, added or replaced, then changes
    nothing it reads. A sale dated earlier that is new or replaced has a ``change_seq`` past
    the marks'; one moved from there to a later day leaves fewer sales dated before it.

    The fit reads the sales, the listings that have one and those listings' sightings. A sale
    added, replaced or dropped moves the sales' marks; a listing with a sale is changed only by
    a save, which stamps its ``changed_at`` (``db.store``), or seen again by a new observation.
    So a save of running listings alone (a fast-lane pass, a run without sold pages) leaves the
    model as it is. Both lookups walk only what was saved after the marks (by the indexes on
    ``observations.id`` and ``listings.changed_at``). A save stamped at the very instant the
    marks were read is taken as read by the fit: saves stamp their own start, later ones later.
    """
    dated: tuple[ColumnElement[bool], ...] = ()
    if before is not None:
        day, count = before
        dated = (SaleRow.sold_date < day,)
        if current.sales != marks.sales:
            changed_sale = select(SaleRow.id).where(
                *dated, SaleRow.change_seq > (marks.sales[2] or 0)
            )
            if (
                session.scalar(changed_sale.limit(1)) is not None
                or load_sales_before(session, day) != count
            ):
                return False
    elif current.sales != marks.sales:
        return False
    return not _sold_listing_saved(session, marks, *dated)


def load_new_sales(session: Session, marks: FitMarks, current: FitMarks) -> frozenset[str] | None:
    """The SKUs (or priced parts) of the sales added since ``marks`` (``load_fit_marks`` then;
    ``current``: now) where that is all that changed among the sales and the listings they
    sold: no sale replaced or gone, no listing with an earlier sale changed or seen again.
    None where something else changed, or nothing did. A closed auction presumed sold, or a
    sold page of new sales, adds sales; a sold page's sale replacing a presumed one replaces
    one."""
    count, newest, change = marks.sales
    if current.sales == marks.sales or newest is None or change is None:
        return None
    added = session.execute(
        select(SaleRow.id, *SOLD_COLUMNS)
        .join(ListingRow, ListingRow.id == SaleRow.listing_id)
        .where(SaleRow.change_seq > change)
    ).all()
    if current.sales[0] != count + len(added) or any(row[0] <= newest for row in added):
        return None
    if _sold_listing_saved(session, marks, SaleRow.id <= newest):
        return None
    # each sale's market: its SKU's, or the priced part's it is (none: not a catalog item)
    rows = (sold_row(row[1:]) for row in added if row.sku is not None or row.part is not None)
    return frozenset(row.sku for row in rows)


def _sold_listing_saved(session: Session, marks: FitMarks, *sales: ColumnElement[bool]) -> bool:
    """Whether a listing with a sale (of those ``sales`` pick) was saved since ``marks``: seen
    again (a new observation) or changed (``changed_at``)."""
    sold_listing = exists().where(SaleRow.listing_id == ListingRow.id, *sales)
    sold_sighting = exists().where(SaleRow.listing_id == ObservationRow.listing_id, *sales)
    seen = select(ObservationRow.id).where(sold_sighting)
    if marks.observation is not None:
        seen = seen.where(ObservationRow.id > marks.observation)
    changed = select(ListingRow.id).where(sold_listing, ListingRow.changed_at.is_not(None))
    if marks.changed is not None:
        changed = changed.where(ListingRow.changed_at > marks.changed)
    return session.scalar(seen.limit(1)) is not None or session.scalar(changed.limit(1)) is not None


def _auction(row: Any, seen: tuple[BidSeen, ...]) -> WatchedAuction | None:
    listing_id, end_time = row[:2]
    final = sold_row(row[2 : 2 + len(SOLD_COLUMNS)])
    if final.includes:
        return None  # a server sold with GPUs: its price is not its SKU's market
    return WatchedAuction(listing_id, end_time, final, seen)
