"""Price history as stored: every price point (asking and sold) for the CSV export, and each
day's cheapest and dearest asking total per SKU for the report's charts. What a price costs
landed is ``ranking.landed``'s rule, applied by the caller: SQL here converts, divides and
rounds no money (it only adds a listing's price and shipping, in integer cents, to find a day's
lowest and highest total)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    ColumnElement,
    Date,
    DateTime,
    Select,
    String,
    cast,
    func,
    literal,
    literal_column,
    select,
    type_coerce,
    union_all,
)

from db.models import ListingRow, ObservationRow, SaleRow
from db.types import from_units, raw_units
from ranking.rows import AskingRow

if TYPE_CHECKING:
    from sqlalchemy import Engine
    from sqlalchemy.orm import Session

AnySelect = Select[*tuple[Any, ...]]


@dataclass(frozen=True, slots=True)
class HistoryFilter:
    """Which price history to read: SKUs, a category, and whole UTC days (inclusive)."""

    skus: tuple[str, ...] = ()
    category: str | None = None
    since: date | None = None
    until: date | None = None  # inclusive


def price_points_query(engine: Engine, flt: HistoryFilter) -> AnySelect:
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
            ListingRow.category,
            ListingRow.quantity,
            raw_units(ObservationRow.price).label("price"),
            raw_units(ObservationRow.shipping).label("shipping"),
            ListingRow.marketplace,
            ListingRow.location,
        )
        .join(ListingRow, ListingRow.id == ObservationRow.listing_id)
        .where(ObservationRow.status == "active")
    )
    sold = select(
        ListingRow.sku,
        sold_at.label("at"),
        literal("sold").label("market"),
        SaleRow.currency,
        ListingRow.category,
        ListingRow.quantity,
        raw_units(SaleRow.price).label("price"),
        raw_units(SaleRow.shipping).label("shipping"),
        ListingRow.marketplace,
        ListingRow.location,
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


def _filtered(query: AnySelect, column: ColumnElement[Any], flt: HistoryFilter) -> AnySelect:
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


def listings_query(flt: HistoryFilter) -> AnySelect:
    """Every observation with its listing's fields, in the order they were stored."""
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
    return _filtered(query, ObservationRow.observed_at.expression, flt)


def load_asking_rows(
    session: Session,
    *,
    since: date,
    read_through: bool = False,
    after: int | None = None,
    through: int | None = None,
) -> list[AskingRow]:
    """Per catalog item and UTC day since ``since``, the lowest and highest asking total, split
    by currency, lot size and whether shipping is known. The landed rule is monotonic in the
    total within such a group, so ``ranking.landed`` turns these two into the day's landed
    range without SQL ever converting, dividing or rounding money.

    ``read_through``: the days asked for are most of the history (the report's first), so the
    sightings are read in the order they are stored rather than by the index on their time,
    which SQLite, having no statistics, takes for any range (at 10 million sightings 21 s
    against 46 s); the last days alone are found by it.

    ``after``, ``through``: only the sightings with an id past ``after`` (those saved since,
    found by the ids, not by their time) and up to ``through``."""
    day = _utc_day(session)
    observed: ColumnElement[datetime] = ObservationRow.observed_at.expression
    if (read_through or after is not None) and session.get_bind().dialect.name == "sqlite":
        # "+column" is the column, in a form no index serves
        observed = type_coerce(literal_column("+observations.observed_at"), observed.type)
    saved = []
    if after is not None:
        saved.append(ObservationRow.id > after)
    if through is not None:
        saved.append(ObservationRow.id <= through)
    known = ObservationRow.shipping.is_not(None)
    total = raw_units(ObservationRow.price) + func.coalesce(raw_units(ObservationRow.shipping), 0)
    stmt = (
        select(
            ListingRow.sku,
            ListingRow.category,
            day,
            ListingRow.quantity,
            ObservationRow.currency,
            known.label("known"),
            func.min(total),
            func.max(total),
            ListingRow.marketplace,
            ListingRow.location,
        )
        .join(ListingRow, ListingRow.id == ObservationRow.listing_id)
        .where(
            ObservationRow.status == "active",
            observed >= datetime.combine(since, datetime.min.time(), UTC),
            *saved,
            ListingRow.kind == "item",
            ListingRow.sku.is_not(None),
            ListingRow.quantity > 0,
        )
        .group_by(
            ListingRow.sku, ListingRow.category, day, ListingRow.quantity,
            ObservationRow.currency, known, ListingRow.marketplace, ListingRow.location,
        )
    )  # fmt: skip
    return [
        AskingRow(
            str(sku), str(category), _as_date(when), int(quantity), currency, bool(shipping_known),
            from_units(int(low), 2), from_units(int(high), 2), marketplace, location,
        )
        for sku, category, when, quantity, currency, shipping_known, low, high, marketplace,
        location in session.execute(stmt)
    ]  # fmt: skip


def _utc_day(session: Session) -> Any:
    """The UTC calendar day of an observation, on SQLite (ISO text) and PostgreSQL."""
    if session.get_bind().dialect.name == "postgresql":
        return cast(func.timezone("UTC", ObservationRow.observed_at), Date).label("day")
    return func.substr(ObservationRow.observed_at, 1, 10).label("day")


def _as_date(value: object) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])
