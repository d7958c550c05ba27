"""Hand-built ranker rows: the ranking rules are tested without a database."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from core.models import Included, ServerConfig
from ranking.rows import ActiveRow, SoldRow
from ranking.titles.server_config import parse_server_config

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
_ids = itertools.count(1)


def active(
    sku: str | None,
    price: str,
    *,
    shipping: str | None = "0",
    quantity: int = 1,
    kind: str = "item",
    buying_format: str = "buy_it_now",
    currency: str = "USD",
    title: str | None = None,
    bids: int | None = None,
    ends_in: timedelta | None = None,
    includes: tuple[tuple[str, int], ...] = (),
    seller_feedback: int | None = 2500,
    seller_positive_pct: str | None = "99.8",
    location: str | None = "United States",
    marketplace: str = "EBAY_US",
    config: ServerConfig | None = None,
) -> ActiveRow:
    """A listing; a server titled ``title`` comes with what the title says (``config``)."""
    n = next(_ids)
    return ActiveRow(
        listing_id=n,
        item_id=f"2{n:011d}",
        marketplace=marketplace,
        title=title or f"{sku} card {n}",
        url=f"https://www.ebay.com/itm/2{n:011d}",
        sku=sku,
        kind=kind,
        quantity=quantity,
        buying_format=buying_format,
        price=Decimal(price),
        currency=currency,
        shipping=None if shipping is None else Decimal(shipping),
        bids=bids,
        end_time=None if ends_in is None else NOW + ends_in,
        includes=tuple(Included(s, q) for s, q in includes),
        seller_feedback=seller_feedback,
        seller_positive_pct=None if seller_positive_pct is None else Decimal(seller_positive_pct),
        location=location,
        config=config,
    )


def sold(
    sku: str,
    price: str,
    *,
    days_ago: int = 3,
    shipping: str | None = "0",
    quantity: int = 1,
    currency: str = "USD",
    best_offer_accepted: bool = False,
    source: str = "page",
    kind: str = "item",
    title: str | None = None,
    includes: tuple[tuple[str, int], ...] = (),
) -> SoldRow:
    """A sale; a server's ``title`` says what it came with (read as the store reads it)."""
    return SoldRow(
        sku=sku,
        quantity=quantity,
        price=Decimal(price),
        currency=currency,
        sold_date=(NOW - timedelta(days=days_ago)).date(),
        shipping=None if shipping is None else Decimal(shipping),
        best_offer_accepted=best_offer_accepted,
        source=source,
        kind=kind,
        includes=tuple(Included(s, q) for s, q in includes),
        config=parse_server_config(title) if title else None,
    )


def sales(sku: str, *prices: str, **kwargs: object) -> list[SoldRow]:
    return [sold(sku, p, **kwargs) for p in prices]  # type: ignore[arg-type]
