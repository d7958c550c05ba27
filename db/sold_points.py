"""The report's kept sold points: each sale of the history window at its landed unit price.

``sold_points`` holds, for the days after the ``state`` row's ``start``, the point the report
would compute from each sale, by the sale's listing; ``rigscout/outputs/report/sold.py``
decides which still hold. A sale saved or replaced since they were kept (``sales.change_seq``
at or past the kept mark) is computed again; a listing that moved to another SKU, kind, lot or
set of GPUs (``listings.history_changed_at``) computes them all.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING

from sqlalchemy import String, delete, func, insert, select, type_coerce

from db.batches import batches
from db.dialect import driver_rows
from db.models import ListingRow, SaleRow, SoldPointRow
from db.rank_rows import CHUNK, SOLD_COLUMNS, sold_row
from db.state import save_state

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable
    from datetime import datetime

    from sqlalchemy.orm import Session

    from ranking.rows import SoldRow

KEY = "sold_points"  # the ``state`` row: basis, start, today, the store's marks

# listing id, sku, day, landed unit price, weight
KeptPoint = tuple[int, str, "date", Decimal, Decimal]


def load_sale_mark(session: Session) -> int:
    """The highest ``change_seq``: a sale saved or replaced later has this or a higher one
    (two writers may draw the same number, so the mark's own sales count as changed)."""
    return int(session.scalar(select(func.max(SaleRow.change_seq))) or 0)


def load_changed_sales(session: Session, *, mark: int) -> list[int]:
    """The listings whose sale was saved or replaced at or after ``mark``."""
    stmt = select(SaleRow.listing_id).where(SaleRow.change_seq >= mark)
    return list(session.scalars(stmt))


def load_item_sales(
    session: Session,
    *,
    since: date,
    until: date,
    listings: Collection[int] | None = None,
) -> list[tuple[int, SoldRow]]:
    """Sales of catalog items (cards, boards, servers) after ``since`` up to ``until``, by
    listing; with ``listings``, those listings' alone."""
    stmt = (
        select(SaleRow.listing_id, *SOLD_COLUMNS)
        .join(ListingRow, ListingRow.id == SaleRow.listing_id)
        .where(
            SaleRow.sold_date > since,
            SaleRow.sold_date <= until,
            ListingRow.kind == "item",
            ListingRow.sku.is_not(None),
        )
    )
    if listings is None:
        chunks = [stmt]
    else:
        chunks = [
            stmt.where(SaleRow.listing_id.in_(chunk)) for chunk in batches(sorted(listings), CHUNK)
        ]
    return [
        (values[0], sold_row(values[1:]))
        for chunk in chunks
        for values in session.connection().execute(chunk).all()
    ]


def load_kept_points(session: Session, *, since: date) -> list[KeptPoint]:
    """The kept points after ``since``."""
    # The table holds the kept window's days alone (``save_kept_points`` drops the older
    # ones), so it is read through, not by the index on the day, in the report's order but for
    # the prices (sorting them is left to Python, nearly done), which the covering index on
    # (SKU, day) gives without a sort; a report reads 200,000 points at a million listings, as
    # the driver returns them, and parses each day and weight once.
    stmt = select(
        SoldPointRow.listing_id,
        SoldPointRow.sku,
        type_coerce(SoldPointRow.day, String),
        SoldPointRow.price,
        SoldPointRow.weight,
    ).order_by(SoldPointRow.sku, SoldPointRow.day)
    days: dict[object, date] = {}
    weights: dict[str, Decimal] = {}
    found: list[KeptPoint] = []
    for listing, sku, text, price, weight in driver_rows(session, stmt):
        day = days.get(text)
        if day is None:  # ISO text on SQLite; PostgreSQL's driver gives a date
            day = days[text] = text if isinstance(text, date) else date.fromisoformat(text)
        if day <= since:
            continue
        kept = weights.get(weight)
        if kept is None:
            kept = weights[weight] = Decimal(weight)
        found.append((listing, sku, day, Decimal(price), kept))
    return found


def save_kept_points(
    session: Session,
    points: Iterable[KeptPoint],
    state: dict[str, object],
    now: datetime,
    *,
    listings: Collection[int] | None,
    before: date,
) -> None:
    """Put ``points`` in place of the kept ones of ``listings`` (None: of every listing), drop
    the days up to ``before`` (out of the window), and keep the state they hold under
    (flushed, not committed)."""
    if listings is None:
        session.execute(delete(SoldPointRow))
    else:
        for chunk in batches(sorted(listings), CHUNK):
            session.execute(delete(SoldPointRow).where(SoldPointRow.listing_id.in_(chunk)))
        session.execute(delete(SoldPointRow).where(SoldPointRow.day <= before))
    values = [
        {"listing_id": listing, "sku": sku, "day": day, "price": str(price), "weight": str(w)}
        for listing, sku, day, price, w in points
    ]
    if values:
        session.execute(insert(SoldPointRow), values)
    save_state(session, KEY, state, now)
