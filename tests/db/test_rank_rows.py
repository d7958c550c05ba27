"""db/rank_rows: the ranker's rows straight from the store, on SQLite and PostgreSQL."""

from __future__ import annotations

import itertools
import random
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING

from core.models import Included
from db.latest import save_latest
from db.models import ListingRow, ObservationRow, SaleRow
from db.rank_rows import (
    load_active_rows,
    load_sold_rows,
    load_sold_rows_over,
    load_unmatched_count,
)
from ranking.titles.server_config import parse_server_config

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

V100 = "nvidia-tesla-v100-sxm2-16gb"
P40 = "nvidia-tesla-p40"
_ids = itertools.count(1)


def add_listing(
    session: Session,
    now: datetime,
    *,
    sku: str | None,
    prices: tuple[tuple[str, str | None], ...] = (("150", "0"),),
    status: str = "active",
    kind: str = "item",
    quantity: int = 1,
    includes: list[dict[str, object]] | None = None,
    category: str = "gpu",
    title: str | None = None,
) -> ListingRow:
    """A listing with one observation per (price, shipping), an hour apart, oldest first; a
    server's configuration is read from its ``title`` as the store's save does."""
    n = next(_ids)
    config = parse_server_config(title).as_json() if title and category == "server" else None
    row = ListingRow(
        marketplace="EBAY_US",
        item_id=f"3{n:011d}",
        title=title or f"{sku} listing {n}",
        url=f"https://www.ebay.com/itm/3{n:011d}",
        buying_format="buy_it_now",
        currency="USD",
        status=status,
        first_seen=now - timedelta(days=3),
        last_seen=now,
        sku=sku,
        category=category,
        kind=kind,
        config=config,
        quantity=quantity,
        includes=includes or [],
        seller_feedback=812,
        seller_positive_pct=Decimal("99.6"),
        location="Hong Kong",
    )
    session.add(row)
    session.flush()
    for hours, (price, shipping) in enumerate(reversed(prices)):
        session.add(
            ObservationRow(
                listing_id=row.id,
                observed_at=now - timedelta(hours=hours + 1),
                price=Decimal(price),
                shipping=None if shipping is None else Decimal(shipping),
                currency="USD",
                status=status,
            )
        )
    session.flush()
    save_latest(session, [row.id])  # as every save does
    return row


def add_sale(session: Session, now: datetime, *, sku: str, price: str, days_ago: int, **kw):
    row = add_listing(session, now, sku=sku, prices=((price, "0"),), status="sold", **kw)
    session.add(
        SaleRow(
            listing_id=row.id,
            sold_date=(now - timedelta(days=days_ago)).date(),
            price=Decimal(price),
            shipping=Decimal("0"),
            currency="USD",
            best_offer_accepted=True,
            source="page",
        )
    )


def test_active_rows_carry_the_newest_price_and_the_listing_facts(session, now):
    dropped = add_listing(
        session, now, sku=V100, prices=(("180", "10"), ("150", None)),
        includes=[{"sku": P40, "quantity": 2}],
    )  # fmt: skip
    add_listing(session, now, sku=V100, status="sold")
    add_listing(session, now, sku=None)
    session.commit()

    (row,) = load_active_rows(session)

    assert (row.listing_id, row.price, row.shipping) == (dropped.id, Decimal("150.00"), None)
    assert (row.seller_feedback, row.seller_positive_pct, row.location) == (
        812, Decimal("99.6"), "Hong Kong",
    )  # fmt: skip
    assert row.includes == (Included(P40, 2),)
    assert load_unmatched_count(session) == 1


def test_sold_rows_are_the_window_s_sales_of_single_items(session, now):
    add_sale(session, now, sku=P40, price="200", days_ago=3)
    add_sale(session, now, sku=P40, price="900", days_ago=40)  # before the window
    add_sale(session, now, sku=P40, price="30", days_ago=3, kind="accessory")
    add_sale(
        session, now, sku="supermicro-sys-4028gr-trt", price="3000", days_ago=3,
        includes=[{"sku": P40, "quantity": 8}],
    )  # fmt: skip
    session.commit()

    loaded = load_sold_rows(session, now=now, window_days=30)

    # the card's sale, and the server's with the GPUs it came with (for its chassis market);
    # not the accessory (it is no priced part) nor the sale before the window
    own = [s for s in loaded if s.own_market]
    (sale,) = own
    assert (sale.sku, sale.price, sale.best_offer_accepted) == (P40, Decimal("200.00"), True)
    assert sale.sold_date == (now - timedelta(days=3)).date()
    (server,) = [s for s in loaded if not s.own_market]
    assert server.includes == (Included(P40, 8),)


def test_a_server_s_sales_reach_back_ninety_days_with_what_they_came_with(session, now):
    add_sale(
        session, now, sku="supermicro-sys-4028gr-trt", price="800", days_ago=60,
        title="Supermicro SYS-4028GR-TRT 2x E5-2680 v4 256GB", category="server",
    )  # fmt: skip
    add_sale(session, now, sku=P40, price="900", days_ago=60)  # a card's: only 30 days
    session.commit()

    assert load_sold_rows(session, now=now, window_days=30) == []
    (sale,) = load_sold_rows(session, now=now, window_days=30, server_days=90)
    assert sale.config is not None and (sale.config.cpus, sale.config.ram_gb) == (2, 256)


def test_one_read_gives_each_window_the_sales_it_would_read_alone(session, now):
    rng = random.Random(3)
    for _ in range(60):
        kind = rng.choice(["card", "card", "server", "part", "accessory"])
        days = rng.randrange(0, 400)
        if kind == "server":
            add_sale(
                session, now, sku="supermicro-sys-4028gr-trt", price="900", days_ago=days,
                title="Supermicro SYS-4028GR-TRT 2x E5-2680 v4 256GB", category="server",
            )  # fmt: skip
        elif kind == "part":
            row = add_listing(session, now, sku=None, kind="accessory", status="sold")
            row.part = "heatsink-sxm2"
            session.add(
                SaleRow(listing_id=row.id, sold_date=(now - timedelta(days=days)).date(),
                        price=Decimal(40), currency="USD", source="page")
            )  # fmt: skip
        else:
            add_sale(session, now, sku=rng.choice([P40, V100]), price="200", days_ago=days,
                     kind="item" if kind == "card" else "accessory")  # fmt: skip
    session.commit()
    windows = [(395, 0), (30, 90), (30, 0), (120, 60)]

    together = load_sold_rows_over(session, now=now, windows=windows)

    for (days, server), rows in zip(windows, together, strict=True):
        alone = load_sold_rows(session, now=now, window_days=days, server_days=server)
        assert sorted(rows, key=repr) == sorted(alone, key=repr) != []
