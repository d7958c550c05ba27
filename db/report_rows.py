"""What the morning report reads besides the ranking: the alerts last delivered, and the
listings of rare hardware first seen lately. Rows as stored; the report turns them into its
records."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from sqlalchemy import func, select

from db.latest import LATEST, LATEST_ID
from db.models import AlertRow, ListingRow

if TYPE_CHECKING:
    from datetime import datetime
    from decimal import Decimal

    from sqlalchemy.orm import Session


class NewRareRow(NamedTuple):
    sku: str
    title: str
    url: str
    first_seen: datetime
    price: Decimal
    currency: str
    active: int  # active listings of that SKU


def load_sent_alert_rows(session: Session, limit: int) -> list[AlertRow]:
    """The latest alerts delivered, newest first."""
    stmt = (
        select(AlertRow)
        .where(AlertRow.status == "sent", AlertRow.sent_at.is_not(None))
        .order_by(AlertRow.sent_at.desc(), AlertRow.id.desc())
        .limit(limit)
    )
    return list(session.scalars(stmt))


def load_new_rare_rows(
    session: Session, *, since: datetime, max_active: int, limit: int
) -> list[NewRareRow]:
    """Listings first seen since ``since``, of SKUs with at most ``max_active`` active listings,
    newest first, each with its newest price."""
    active = (ListingRow.status == "active", ListingRow.kind == "item", ListingRow.sku.is_not(None))
    counts = (
        select(ListingRow.sku, func.count().label("n"))
        .where(*active)
        .group_by(ListingRow.sku)
        .having(func.count() <= max_active)
        .subquery()
    )
    stmt = (
        select(
            ListingRow.sku,
            ListingRow.title,
            ListingRow.url,
            ListingRow.first_seen,
            LATEST.price,
            LATEST.currency,
            counts.c.n,
        )
        .join(counts, counts.c.sku == ListingRow.sku)
        .join(LATEST, LATEST.id == LATEST_ID)
        .where(*active, ListingRow.first_seen >= since)
        .order_by(ListingRow.first_seen.desc(), ListingRow.id)
        .limit(limit)
    )
    return [
        NewRareRow(str(sku), title, url, seen, price, currency, int(n))
        for sku, title, url, seen, price, currency, n in session.execute(stmt)
    ]
