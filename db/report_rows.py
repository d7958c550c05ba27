"""What the morning report reads besides the ranking: the alerts last delivered, the
listings of rare hardware first seen lately, and what changed about the listings it shows.
Rows as stored; the report turns them into its records."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from sqlalchemy import func, select

from db.batches import batches
from db.latest import IS_LATEST, LATEST
from db.models import AlertRow, ListingRow, ObservationRow

if TYPE_CHECKING:
    from collections.abc import Collection
    from datetime import datetime
    from decimal import Decimal

    from sqlalchemy.orm import Session


class NewRareRow(NamedTuple):
    listing_id: int
    sku: str
    title: str
    url: str
    first_seen: datetime
    price: Decimal
    currency: str
    active: int  # active listings of that SKU


class ListingNews(NamedTuple):
    """What changed about a listing lately: when it was first seen, and its newest and previous
    asking totals (price + shipping, listing's currency; None when not comparable)."""

    listing_id: int
    first_seen: datetime
    latest: Decimal | None
    previous: Decimal | None


def load_listing_news(session: Session, listing_ids: Collection[int]) -> dict[int, ListingNews]:
    """``ListingNews`` of each listing in ``listing_ids`` (a page's worth)."""
    news: dict[int, ListingNews] = {}
    ids = sorted(set(listing_ids))
    for chunk in batches(ids, 500):
        first = dict(
            session.execute(
                select(ListingRow.id, ListingRow.first_seen).where(ListingRow.id.in_(chunk))
            ).all()
        )
        seen = session.execute(
            select(
                ObservationRow.listing_id,
                ObservationRow.price,
                ObservationRow.shipping,
                ObservationRow.currency,
            )
            .where(ObservationRow.listing_id.in_(chunk))
            .order_by(
                ObservationRow.listing_id,
                ObservationRow.observed_at.desc(),
                ObservationRow.id.desc(),
            )
        ).all()
        newest: dict[int, list[tuple[Decimal, str]]] = {}
        for listing_id, price, shipping, currency in seen:
            totals = newest.setdefault(listing_id, [])
            if len(totals) < 2:
                totals.append((price + (shipping or 0), currency))
        for listing_id, when in first.items():
            totals = newest.get(listing_id, [])
            latest = totals[0][0] if totals else None
            previous = totals[1][0] if len(totals) == 2 and totals[1][1] == totals[0][1] else None
            news[listing_id] = ListingNews(listing_id, when, latest, previous)
    return news


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
    newest first, each with its newest price.

    The new listings come first (by ``first_seen``'s index), then each of their SKUs is counted
    only up to one past ``max_active``: grouping every active listing by SKU scanned the whole
    table (1.5 s at a million listings)."""
    active = (ListingRow.status == "active", ListingRow.kind == "item", ListingRow.sku.is_not(None))
    stmt = (
        select(
            ListingRow.id,
            ListingRow.sku,
            ListingRow.title,
            ListingRow.url,
            ListingRow.first_seen,
            LATEST.price,
            LATEST.currency,
        )
        .join(LATEST, IS_LATEST)
        .where(*active, ListingRow.first_seen >= since)
        .order_by(ListingRow.first_seen.desc(), ListingRow.id)
    )
    new = session.execute(stmt).all()
    counts = {}
    for sku in dict.fromkeys(row.sku for row in new):
        few = select(ListingRow.id).where(*active, ListingRow.sku == sku).limit(max_active + 1)
        counts[sku] = int(session.scalar(select(func.count()).select_from(few.subquery())) or 0)
    rare = [
        NewRareRow(listing_id, str(sku), title, url, seen, price, currency, counts[sku])
        for listing_id, sku, title, url, seen, price, currency in new
        if counts[sku] <= max_active
    ]
    return rare[:limit]
