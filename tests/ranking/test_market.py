"""Market baseline: the weighted median of recent sold prices, computed in the database."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING

import pytest

from db.models import ListingRow, ObservationRow, SaleRow
from ranking.market import load_market, sale_weight, weighted_median
from rigscout.config import RankSettings

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
    price: str,
    shipping: str | None = "0",
    quantity: int = 1,
    kind: str = "item",
    status: str = "active",
    currency: str = "USD",
    buying_format: str = "buy_it_now",
    category: str | None = "gpu",
    includes: list[dict[str, object]] | None = None,
    seller_feedback: int | None = 500,
    seller_positive_pct: str | None = "99.8",
    end_time: datetime | None = None,
    title: str | None = None,
) -> ListingRow:
    """One listing as the store would hold it, with one observation of its current price."""
    n = next(_ids)
    row = ListingRow(
        marketplace="EBAY_US",
        item_id=f"1{n:011d}",
        title=title or f"{sku} listing {n}",
        url=f"https://www.ebay.com/itm/1{n:011d}",
        buying_format=buying_format,
        currency=currency,
        status=status,
        first_seen=now - timedelta(days=3),
        last_seen=now,
        sku=sku,
        category=category,
        kind=kind,
        quantity=quantity,
        includes=includes or [],
        seller_feedback=seller_feedback,
        seller_positive_pct=None if seller_positive_pct is None else Decimal(seller_positive_pct),
        end_time=end_time,
    )
    session.add(row)
    session.flush()
    session.add(
        ObservationRow(
            listing_id=row.id,
            observed_at=now - timedelta(hours=1),
            price=Decimal(price),
            shipping=None if shipping is None else Decimal(shipping),
            currency=currency,
            status=status,
        )
    )
    return row


def add_sale(
    session: Session,
    now: datetime,
    *,
    sku: str,
    price: str,
    days_ago: int = 3,
    shipping: str | None = "0",
    quantity: int = 1,
    currency: str = "USD",
    best_offer_accepted: bool = False,
    source: str = "sold_page",
    includes: list[dict[str, object]] | None = None,
    category: str = "gpu",
) -> None:
    row = add_listing(
        session, now, sku=sku, price=price, shipping=shipping, quantity=quantity,
        status="sold", currency=currency, category=category, includes=includes,
    )  # fmt: skip
    session.add(
        SaleRow(
            listing_id=row.id,
            sold_date=(now - timedelta(days=days_ago)).date(),
            price=Decimal(price),
            shipping=None if shipping is None else Decimal(shipping),
            currency=currency,
            best_offer_accepted=best_offer_accepted,
            source=source,
        )
    )


@pytest.mark.parametrize(
    ("points", "expected"),
    [
        ([("100", "1"), ("200", "1")], "150"),
        ([("100", "1"), ("200", "1"), ("900", "1")], "200"),
        ([("100", "1"), ("200", "0.5"), ("300", "0.5")], "150"),
        ([("100", "0.25"), ("200", "1"), ("300", "1")], "200"),
        ([], None),
    ],
)
def test_weighted_median_is_the_ordinary_median_with_equal_weights(points, expected):
    got = weighted_median((Decimal(p), Decimal(w)) for p, w in points)
    assert got == (None if expected is None else Decimal(expected))


@pytest.mark.parametrize(
    ("best_offer", "source", "weight"),
    [(False, "sold_page", "1"), (True, "sold_page", "0.5"), (False, "presumed", "0.5"),
     (True, "presumed", "0.25")],
)  # fmt: skip
def test_upper_bound_and_presumed_sales_weigh_less(best_offer, source, weight):
    assert sale_weight(best_offer_accepted=best_offer, source=source) == Decimal(weight)


def test_baseline_is_the_median_of_landed_unit_prices_in_the_window(session, now):
    for price, ship in [("180", "10"), ("195", "6"), ("201", "0"), ("230", "0"), ("250", "15")]:
        add_sale(session, now, sku=V100, price=price, shipping=ship)
    add_sale(session, now, sku=V100, price="999", days_ago=45)  # outside the 30-day window
    add_sale(session, now, sku=V100, price="400", quantity=2)  # a lot of 2: 200 each
    session.commit()

    base = load_market(session, RankSettings(min_sales=5), now)[V100]

    assert (base.median, base.count, base.source) == (Decimal("201.00"), 6, "sold")
    assert base.q1 <= base.median <= base.q3


@pytest.mark.parametrize(
    ("weak", "counts"),
    [
        ({"best_offer_accepted": True}, (5, 2, 0)),
        ({"source": "presumed"}, (5, 0, 2)),
    ],
    ids=["best-offer-upper-bounds", "presumed-sales"],
)
def test_weak_sales_pull_the_median_less_and_are_counted(session, now, weak, counts):
    for price in ("200", "210", "220"):
        add_sale(session, now, sku=V100, price=price)
    for price in ("400", "410"):
        add_sale(session, now, sku=V100, price=price, **weak)
    session.commit()

    base = load_market(session, RankSettings(min_sales=5), now)[V100]

    # unweighted the median would be 220; the two weak sales count half each
    assert base.median == Decimal("215.00")
    assert (base.count, base.upper_bound_count, base.presumed_count) == counts


def test_too_few_sales_fall_back_to_active_asking_prices(session, now):
    add_sale(session, now, sku=P40, price="150")
    for price in ("180", "200", "220"):
        add_listing(session, now, sku=P40, price=price)
    add_listing(session, now, sku=P40, price="20", buying_format="auction")  # a bid, not a price
    session.commit()

    base = load_market(session, RankSettings(min_sales=5), now)[P40]

    assert (base.median, base.count, base.source) == (Decimal("200.00"), 3, "active")


def test_foreign_sales_are_converted_and_unknown_currencies_left_out(session, now):
    for price in ("100", "110", "120"):
        add_sale(session, now, sku=P40, price=price, currency="EUR")
    add_sale(session, now, sku=P40, price="5", currency="JPY")
    session.commit()
    settings = RankSettings(fx_rates={"USD": Decimal(1), "EUR": Decimal("1.10")}, min_sales=3)

    base = load_market(session, settings, now)[P40]

    assert (base.median, base.count) == (Decimal("121.00"), 3)


def test_sales_of_parts_and_servers_with_gpus_do_not_set_the_price(session, now):
    for price in ("1000", "1100", "1200"):
        add_sale(session, now, sku="supermicro-sys-4028gr-trt", price=price, category="server")
    add_sale(
        session, now, sku="supermicro-sys-4028gr-trt", price="3000", category="server",
        includes=[{"sku": P40, "quantity": 8}],
    )  # fmt: skip
    session.commit()

    base = load_market(session, RankSettings(min_sales=3), now)["supermicro-sys-4028gr-trt"]

    assert (base.median, base.count) == (Decimal("1100.00"), 3)


def test_the_window_is_counted_back_from_now(session, now):
    add_sale(session, now, sku=P40, price="150", days_ago=29)
    add_sale(session, now, sku=P40, price="900", days_ago=31)
    session.commit()

    base = load_market(session, RankSettings(min_sales=1), now)[P40]

    assert (base.median, base.count) == (Decimal("150.00"), 1)
