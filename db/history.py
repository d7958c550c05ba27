"""Price history as stored: the asking prices observed per SKU and day, for the report's
charts. Raw rows only; what a row costs landed is ``ranking.landed``'s rule, applied by the
caller, so no price is computed in SQL."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Date, cast, func, select

from db.models import ListingRow, ObservationRow
from ranking.rows import AskingRow

if TYPE_CHECKING:
    from sqlalchemy.orm import Session


def load_asking_rows(session: Session, *, since: date) -> list[AskingRow]:
    """Each distinct asking price of an active catalog item observed since ``since``, by day."""
    day = _utc_day(session)
    stmt = (
        select(
            ListingRow.sku,
            ListingRow.category,
            day,
            ListingRow.quantity,
            ObservationRow.price,
            ObservationRow.currency,
            ObservationRow.shipping,
        )
        .distinct()
        .join(ListingRow, ListingRow.id == ObservationRow.listing_id)
        .where(
            ObservationRow.status == "active",
            ObservationRow.observed_at >= datetime.combine(since, datetime.min.time(), UTC),
            ListingRow.kind == "item",
            ListingRow.sku.is_not(None),
            ListingRow.quantity > 0,
        )
    )
    return [
        AskingRow(str(sku), str(category), _as_date(when), quantity, price, currency, shipping)
        for sku, category, when, quantity, price, currency, shipping in session.execute(stmt)
    ]


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
