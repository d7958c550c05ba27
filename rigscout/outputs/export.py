"""Price-history CSV export with pandas, streamed in chunks so memory stays bounded.

``export_prices`` writes, per SKU and period (day, week or month) and per market (sold or
active), the count, min, median and max landed unit price ((price + shipping) / quantity, in
the listing's currency; unknown shipping counts as 0). Rows are read in chunks ordered by SKU
and time, and each (SKU, period) group is written as soon as it is complete.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TextIO

import pandas as pd
from sqlalchemy import (
    BigInteger,
    ColumnElement,
    DateTime,
    Select,
    SQLColumnExpression,
    String,
    cast,
    func,
    literal,
    select,
    type_coerce,
    union_all,
)

from db.models import ListingRow, ObservationRow, SaleRow

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sqlalchemy import Engine

AnySelect = Select[*tuple[Any, ...]]

# Weeks start on Monday (pandas names a weekly period by the day it ends).
FREQS = {"day": "D", "week": "W-SUN", "month": "M"}
PRICE_COLUMNS = ["sku", "period", "market", "currency", "count", "min", "median", "max"]
CHUNK_ROWS = 50_000


@dataclass(frozen=True, slots=True)
class ExportFilter:
    skus: tuple[str, ...] = ()
    category: str | None = None
    since: date | None = None
    until: date | None = None  # inclusive


def _landed_cents(
    price: SQLColumnExpression[Any],
    shipping: SQLColumnExpression[Any],
    quantity: SQLColumnExpression[Any],
) -> ColumnElement[Any]:
    """(price + shipping) / quantity in whole cents, rounded half up, in exact integer SQL.

    The money columns hold integer cents (db/types.py): read raw, ``(2 * total + q) // (2 * q)``
    is round-half-up of total / q for the non-negative totals stored, on both backends.
    """
    total = type_coerce(price, BigInteger()) + func.coalesce(type_coerce(shipping, BigInteger()), 0)
    units = type_coerce(quantity, BigInteger())
    return (2 * total + units) // (2 * units)


def _price_points_query(engine: Engine, flt: ExportFilter) -> AnySelect:
    pg = engine.dialect.name == "postgresql"
    # SQLite keeps dates as ISO text, which sorts like time; PostgreSQL needs a real cast.
    # Times come back raw (ISO text on SQLite) and pandas parses a whole chunk at once:
    # converting each row to a datetime in Python was a third of the export's time.
    sold_at: ColumnElement[Any] = type_coerce(
        cast(SaleRow.sold_date, DateTime(timezone=True)) if pg else SaleRow.sold_date, String()
    )
    observed_at = type_coerce(ObservationRow.observed_at, String())
    active = (
        select(
            ListingRow.sku,
            observed_at.label("at"),
            literal("active").label("market"),
            ObservationRow.currency,
            _landed_cents(ObservationRow.price, ObservationRow.shipping, ListingRow.quantity).label(
                "cents"
            ),
        )
        .join(ListingRow, ListingRow.id == ObservationRow.listing_id)
        .where(ObservationRow.status == "active")
    )
    sold = select(
        ListingRow.sku,
        sold_at.label("at"),
        literal("sold").label("market"),
        SaleRow.currency,
        _landed_cents(SaleRow.price, SaleRow.shipping, ListingRow.quantity).label("cents"),
    ).join(ListingRow, ListingRow.id == SaleRow.listing_id)
    parts = [
        _filtered(part.where(ListingRow.sku.is_not(None), ListingRow.kind == "item"), column, flt)
        for part, column in (
            (active, ObservationRow.observed_at.expression),
            (sold, SaleRow.sold_date.expression),
        )
    ]
    union = union_all(*parts).subquery()
    return select(union).order_by(union.c.sku, union.c.at)


def _filtered(query: AnySelect, column: ColumnElement[Any], flt: ExportFilter) -> AnySelect:
    """Apply the filter; ``column`` is the row's time (a sale's date or an observation's time)."""
    if flt.skus:
        query = query.where(ListingRow.sku.in_(flt.skus))
    if flt.category:
        query = query.where(ListingRow.category == flt.category)
    is_date = column.compare(SaleRow.sold_date.expression)
    if flt.since:
        query = query.where(column >= (flt.since if is_date else _start(flt.since)))
    if flt.until:
        if is_date:
            query = query.where(column <= flt.until)
        else:
            query = query.where(column < _start(flt.until + timedelta(days=1)))
    return query


def _start(day: date) -> datetime:
    """Filter dates are whole UTC days."""
    return datetime.combine(day, time.min, tzinfo=UTC)


def load_price_chunks(engine: Engine, flt: ExportFilter) -> Iterator[pd.DataFrame]:
    """Price points (sku, at, market, currency, cents) ordered by SKU and time, in chunks."""
    with engine.connect() as conn:
        conn = conn.execution_options(stream_results=True)
        yield from pd.read_sql(_price_points_query(engine, flt), conn, chunksize=CHUNK_ROWS)


def summarize_prices(chunks: Iterator[pd.DataFrame], freq: str) -> Iterator[pd.DataFrame]:
    """Aggregate ordered chunks into complete (sku, period) groups as soon as each is complete."""
    pending: pd.DataFrame | None = None
    for chunk in chunks:
        if chunk.empty:
            continue
        chunk = _with_period(chunk, freq)
        data = chunk if pending is None else pd.concat([pending, chunk], ignore_index=True)
        last = data.iloc[-1]
        tail = (data["sku"] == last["sku"]) & (data["period"] == last["period"])
        done, pending = data[~tail], data[tail]
        if not done.empty:
            yield _aggregate(done)
    if pending is not None and not pending.empty:
        yield _aggregate(pending)


def _with_period(chunk: pd.DataFrame, freq: str) -> pd.DataFrame:
    at = pd.to_datetime(chunk["at"], utc=True, format="ISO8601")
    period = at.dt.tz_localize(None).dt.to_period(FREQS[freq]).dt.start_time.dt.date
    return chunk.assign(period=period, cents=chunk["cents"].astype("int64")).drop(columns="at")


def _aggregate(rows: pd.DataFrame) -> pd.DataFrame:
    grouped = rows.groupby(["sku", "period", "market", "currency"], sort=True)["cents"]
    out = grouped.agg(["count", "min", "median", "max"]).reset_index()
    for column in ("min", "median", "max"):
        out[column] = out[column].map(_money)
    return out[PRICE_COLUMNS]


def _money(cents: float) -> Decimal:
    return (Decimal(str(cents)) / 100).quantize(Decimal("0.01"))


def export_prices(engine: Engine, out: TextIO, flt: ExportFilter, *, freq: str = "day") -> int:
    """Write the price summary CSV to ``out``; returns the number of data rows."""
    if freq not in FREQS:
        raise ValueError(f"freq must be one of {', '.join(FREQS)}")
    rows = 0
    out.write(",".join(PRICE_COLUMNS) + "\n")
    for frame in summarize_prices(load_price_chunks(engine, flt), freq):
        frame.to_csv(out, header=False, index=False, lineterminator="\n")
        rows += len(frame)
    return rows


def export_listings(engine: Engine, out: TextIO, flt: ExportFilter) -> int:
    """Write every observation with its listing's fields, in chunks; returns the row count."""
    query: AnySelect = (
        select(
            ListingRow.marketplace,
            ListingRow.item_id,
            ListingRow.sku,
            ListingRow.category,
            ListingRow.kind,
            ListingRow.quantity,
            ObservationRow.observed_at,
            ObservationRow.status,
            ObservationRow.price,
            ObservationRow.price_max,
            ObservationRow.shipping,
            ObservationRow.currency,
            ObservationRow.bids,
            ListingRow.buying_format,
            ListingRow.seller,
            ListingRow.title,
            ListingRow.url,
        )
        .join(ListingRow, ListingRow.id == ObservationRow.listing_id)
        .order_by(ObservationRow.id)
    )
    query = _filtered(query, ObservationRow.observed_at.expression, flt)
    rows = chunks = 0
    with engine.connect() as conn:
        conn = conn.execution_options(stream_results=True)
        for chunks, chunk in enumerate(pd.read_sql(query, conn, chunksize=CHUNK_ROWS), 1):
            chunk.to_csv(out, header=chunks == 1, index=False, lineterminator="\n")
            rows += len(chunk)
    if chunks == 0:  # no chunk at all: the header alone
        out.write(",".join(c.name for c in query.selected_columns) + "\n")
    return rows
