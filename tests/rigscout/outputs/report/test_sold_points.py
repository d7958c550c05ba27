"""The report's sold points (its charts, moves and new lows) are kept in the store and only the
days whose sales changed are computed again; whatever happens to the store, they are the
points the full computation gives, on SQLite and PostgreSQL alike (#36)."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal

from sqlalchemy import create_engine, select, update
from sqlalchemy.orm import Session

from core.models import BuyingFormat, Category, Included, Kind, Normalized
from core.settings import RankSettings
from db.migrate import upgrade
from db.models import SoldPointRow
from db.store import save_ended, save_listings
from rigscout.outputs.report.sold import build_sold_points
from tests.db.test_exact_money import NOW, listing

P40 = Normalized("NVIDIA Tesla P40 24GB", "nvidia-tesla-p40-24gb", Category.GPU, Kind.ITEM)
A100 = Normalized("NVIDIA A100 40GB PCIe", "nvidia-a100-pcie-40gb", Category.GPU, Kind.ITEM)
RANK = RankSettings(fx_rates={"USD": Decimal(1), "EUR": Decimal("1.10")})
SINCE = (NOW - timedelta(days=20)).date()


def _both(engine, rank=RANK, since=SINCE, now=NOW):
    with Session(engine) as session:
        kept = build_sold_points(session, rank, since=since, now=now)
    with Session(engine) as session:
        full = build_sold_points(session, rank, since=since, now=now, keep=False)
    return kept, full


def _sold(engine, rng: random.Random, ids, *, at, norm=P40, days_back=(0, 10)) -> None:
    """A sold page seen at ``at``: each listing in ``ids`` sold some days before, at a random
    price in dollars or euros, with or without its best offer accepted."""
    items = [
        (
            listing(
                str(n),
                f"{rng.randrange(150, 400)}.{rng.randrange(100):02d}",
                rng.choice(["0.00", "12.50", None]),
                currency=rng.choice(["USD", "USD", "EUR"]),
                sold_date=(at - timedelta(days=rng.randrange(*days_back))).date(),
                best_offer_accepted=rng.random() < 0.3,
            ),
            norm,
        )
        for n in ids
    ]
    with Session(engine) as session, session.begin():
        save_listings(session, items, search="p40", run_id=None, now=at)


def _auctions_end(engine, ids, *, at) -> None:
    """Auctions with bids, seen running, that ended an hour before ``at``: presumed sold."""
    seen = at - timedelta(days=1)
    items = [
        (
            listing(
                str(n),
                f"{200 + n}.00",
                buying_format=BuyingFormat.AUCTION,
                bids=3,
                end_time=at - timedelta(hours=1),
            ),
            P40,
        )
        for n in ids
    ]
    with Session(engine) as session, session.begin():
        save_listings(session, items, search="p40", run_id=None, now=seen)
    with Session(engine) as session, session.begin():
        save_ended(session, now=at)


def _mark_kept(engine) -> None:
    """Mark every kept point, so a point that shows the mark was read back."""
    with Session(engine) as session, session.begin():
        session.execute(update(SoldPointRow).values(price="1.23"))


def test_the_points_are_each_sale_of_the_sku_alone_at_its_landed_unit_price(engine) -> None:
    day = NOW - timedelta(days=2)
    items = [
        (listing("1", "300.00", "0.00", sold_date=day.date()), P40),
        (listing("2", "500.00", "20.00", sold_date=day.date()), replace(P40, quantity=2)),
        (listing("3", "200.00", "0.00", sold_date=day.date(), currency="SEK"), P40),  # no rate
        (
            listing("4", "2000.00", "0.00", sold_date=day.date()),
            replace(P40, includes=(Included(P40.sku, 4),)),  # a server's sale: not the P40's
        ),
        (listing("5", "100.00", "0.00", sold_date=(NOW - timedelta(days=30)).date()), P40),
    ]
    with Session(engine) as session, session.begin():
        save_listings(session, items, search="p40", run_id=None, now=NOW)

    kept, full = _both(engine)

    assert kept == full
    assert [(p.sku, p.day, p.price) for p in full] == [
        (P40.sku, day.date(), Decimal("260.00")),  # a lot of two, shipping shared
        (P40.sku, day.date(), Decimal("300.00")),
    ]


def test_only_the_sales_that_changed_are_computed_again(engine) -> None:
    rng = random.Random(11)
    for d in range(12, 0, -1):  # a sold page a day, sales up to ten days back
        _sold(engine, rng, range(d * 10, d * 10 + 10), at=NOW - timedelta(days=d))
    kept, full = _both(engine, now=NOW - timedelta(hours=1))
    assert kept == full and len(full) > 100

    _mark_kept(engine)
    _sold(engine, rng, range(500, 505), at=NOW, days_back=(3, 4))  # five sales of 3 days ago
    kept, full = _both(engine)

    # The five new sales and the last one kept (the mark's own: see load_sale_mark).
    again = [p for p in kept if p.price != Decimal("1.23")]
    assert len(again) == 6 and set(again) <= set(full)
    assert len(kept) == len(full) > 110
    with Session(engine) as session:  # and what is kept now is them computed
        rows = session.scalars(select(SoldPointRow.price).where(SoldPointRow.price != "1.23"))
        assert sorted(Decimal(r) for r in rows) == sorted(p.price for p in again)


def test_kept_points_equal_the_full_computation_whatever_the_store_goes_through(engine) -> None:
    rng = random.Random(7)
    for d in range(8, 0, -1):
        _sold(engine, rng, range(d * 10, d * 10 + 6), at=NOW - timedelta(days=d))
    _auctions_end(engine, range(900, 906), at=NOW - timedelta(days=2))
    report = NOW
    kept, full = _both(engine, now=report)
    assert kept == full

    edits = {
        "a sold page with sales up to ten days back": lambda at: _sold(
            engine, rng, range(200, 210), at=at
        ),
        "auctions presumed sold": lambda at: _auctions_end(engine, range(910, 913), at=at),
        "a presumed sale replaced by the sold page's, another day and price": lambda at: _sold(
            engine, rng, [900, 901], at=at, days_back=(4, 6)
        ),
        "a sold listing read as another SKU": lambda at: _sold(
            engine, rng, [80, 81], at=at, norm=A100
        ),
        "a sold listing read as a server with GPUs": lambda at: _sold(
            engine, rng, [82], at=at, norm=replace(A100, includes=(Included(A100.sku, 2),))
        ),
        "a sold listing read as a lot of two": lambda at: _sold(
            engine, rng, [70], at=at, norm=replace(P40, quantity=2)
        ),
    }
    for minute, (name, edit) in enumerate(edits.items()):
        before = _both(engine, now=report)[1]
        report += timedelta(hours=1)
        edit(report - timedelta(minutes=30 - minute))
        kept, full = _both(engine, now=report)
        assert kept == full != before, name

    later = report + timedelta(days=3)
    kept, full = _both(engine, now=later)
    assert kept == full, "three days later"
    _sold(engine, rng, range(300, 303), at=later + timedelta(days=2), days_back=(0, 1))
    kept, full = _both(engine, now=later)
    assert kept == full, "sales dated after the report's day are left out"
    kept, full = _both(engine, now=later + timedelta(days=2))
    assert kept == full and len(full) > len(_both(engine, now=later)[1]), "and come in on theirs"
    kept, full = _both(engine, since=SINCE - timedelta(days=30), now=later)
    assert kept == full, "a longer window"
    kept, full = _both(engine, since=SINCE + timedelta(days=10), now=later)
    assert kept == full, "a shorter window"
    other = replace(RANK, fx_rates={"USD": Decimal(1), "EUR": Decimal("1.25")})
    kept, full = _both(engine, rank=other, now=later)
    assert kept == full, "other FX rates"
    kept, full = _both(engine, now=report)
    assert kept == full, "a report dated before the kept one"


def test_a_store_that_cannot_be_written_gives_the_full_points(tmp_path) -> None:
    path = tmp_path / "store.db"
    writable = create_engine(f"sqlite:///{path}")
    upgrade(writable)
    rng = random.Random(3)
    for d in range(3, 0, -1):
        _sold(writable, rng, range(d * 10, d * 10 + 5), at=NOW - timedelta(days=d))
    writable.dispose()
    read_only = create_engine(f"sqlite:///file:{path}?mode=ro&uri=true")

    kept, full = _both(read_only)

    assert kept == full and len(full) == 15
