"""The report's asking band holds the landed unit prices of the listings behind it, exactly:
the same rule as the deals (``ranking.landed``), on SQLite and PostgreSQL alike."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal

from sqlalchemy import create_engine, delete, update
from sqlalchemy.orm import Session

from core.models import Category, Kind, Listing, Normalized
from core.settings import RankSettings
from db.asking_days import KEY
from db.migrate import upgrade
from db.models import AskingDayRow, KeyValueRow
from db.store import save_listings
from rigscout.outputs.report.asking import build_asking_days
from tests.db.test_exact_money import NOW, listing

RTX3060 = Normalized(
    "NVIDIA GeForce RTX 3060 12GB", "nvidia-rtx-3060-12gb", Category.GPU, Kind.ITEM
)


def _save(engine, *items, at=NOW) -> None:
    """Save listings; a listing whose item id starts with "lot" is a lot of two."""
    pairs = [
        (i, replace(RTX3060, quantity=2) if i.item_id.startswith("lot") else RTX3060) for i in items
    ]
    with Session(engine) as session, session.begin():
        save_listings(session, pairs, search="3060", run_id=None, now=at)


def test_the_band_is_the_landed_prices_of_the_listings_in_dollars_not_cents(engine) -> None:
    _save(
        engine,
        listing("1", "185.00", "0.00"),
        listing("2", "389.99", "10.01"),  # $400.00 landed
        listing("lot3", "500.00", "20.00"),  # a lot of two: $260.00 each
    )
    with Session(engine) as session:
        (day,) = build_asking_days(
            session, RankSettings(), since=(NOW - timedelta(days=1)).date(), now=NOW
        )
    assert (day.sku, day.day) == ("nvidia-rtx-3060-12gb", NOW.date())
    assert (day.low, day.high) == (Decimal("185.00"), Decimal("400.00"))


def test_unknown_shipping_and_another_currency_are_priced_as_the_deals_are(engine) -> None:
    rank = RankSettings(fx_rates={"USD": Decimal(1), "EUR": Decimal("1.10")})
    _save(
        engine,
        listing("1", "200.00", None),  # unknown shipping: the GPU freight estimate, $25
        listing("2", "300.00", "0.00", currency="EUR"),  # €300 at 1.10: $330.00
        listing("3", "999.00", "0.00", currency="SEK"),  # no rate: left out, never 1:1
    )
    with Session(engine) as session:
        (day,) = build_asking_days(session, rank, since=(NOW - timedelta(days=1)).date(), now=NOW)
    assert (day.low, day.high) == (Decimal("225.00"), Decimal("330.00"))


def test_each_day_has_its_own_band(engine) -> None:
    _save(engine, listing("1", "250.00"), at=NOW - timedelta(days=1))
    _save(engine, replace(listing("1", "230.00")), listing("2", "280.00"))
    with Session(engine) as session:
        days = build_asking_days(
            session, RankSettings(), since=(NOW - timedelta(days=3)).date(), now=NOW
        )
    assert [(d.day, d.low, d.high) for d in days] == [
        (NOW.date() - timedelta(days=1), Decimal("250.00"), Decimal("250.00")),
        (NOW.date(), Decimal("230.00"), Decimal("280.00")),
    ]


# -- the kept days ---------------------------------------------------------------------------
A100 = Normalized("NVIDIA A100 40GB PCIe", "nvidia-a100-pcie-40gb", Category.GPU, Kind.ITEM)
PLACES = (None, "United States", "Hong Kong")


def _sighting(rng: random.Random, n: int, moved: bool) -> Listing:
    return listing(
        str(n),
        f"{rng.randrange(150, 900)}.{rng.randrange(100):02d}",
        rng.choice(["0.00", "15.00", None]),
        currency=rng.choice(["USD", "USD", "EUR"]),
        location=PLACES[(n + moved) % len(PLACES)],
    )


def _run(engine, rng: random.Random, at, ids, norms=None, *, moved=False) -> None:
    """A run at ``at``: each listing in ``ids`` seen at a random price (a lot of two where its
    id is even), as ``norms`` says (default: 3060 or A100 by id), shipping from its place (or
    with ``moved``, the next one)."""
    pairs = []
    for n in ids:
        norm = (norms or {}).get(n) or (RTX3060 if n % 3 else A100)
        pairs.append((_sighting(rng, n, moved), replace(norm, quantity=2 if n % 2 == 0 else 1)))
    with Session(engine) as session, session.begin():
        save_listings(session, pairs, search="gpus", run_id=None, now=at)


def _both(engine, rank, since, now):
    with Session(engine) as session:
        kept = build_asking_days(session, rank, since=since, now=now)
    with Session(engine) as session:
        full = build_asking_days(session, rank, since=since, now=now, keep=False)
    return kept, full


def _mark_kept(engine) -> None:
    """Mark every kept day, so a band that shows the mark was read back, not computed again."""
    with Session(engine) as session, session.begin():
        session.execute(update(AskingDayRow).values(low="1.23"))


def _forget_kept(engine) -> None:
    with Session(engine) as session, session.begin():
        session.execute(delete(AskingDayRow))
        session.execute(delete(KeyValueRow).where(KeyValueRow.key == KEY))


def _cheapest(engine, at, *, price="20.00", place=None, norm=RTX3060, n=99) -> None:
    """Listing ``n``, the cheapest of its SKU: with unknown shipping, so where it ships from
    sets its estimated freight."""
    with Session(engine) as session, session.begin():
        item = listing(str(n), price, None, location=place)
        save_listings(session, [(item, norm)], search="gpus", run_id=None, now=at)


def test_ended_days_are_kept_and_read_back_and_equal_the_full_band_after_edits(engine) -> None:
    rng = random.Random(7)
    rank = RankSettings(fx_rates={"USD": Decimal(1), "EUR": Decimal("1.10")})
    start = NOW - timedelta(days=6)
    since = start.date()
    for day in range(-2, 5):  # daily runs over 40 listings, two of them before the window
        at = start + timedelta(days=day, hours=rng.randrange(10))
        _run(engine, rng, at, range(1, 41))
        _cheapest(engine, at, price=f"{20 + day}.00")
    now = start + timedelta(days=5, hours=8)
    kept, full = _both(engine, rank, since, now)
    assert kept == full and len(full) == 10  # two SKUs, five days

    # A run today: the ended days are read back, only today's sightings grouped.
    _mark_kept(engine)
    _run(engine, rng, now, range(1, 45))
    kept, full = _both(engine, rank, since, now)
    assert [d for d in kept if d.day < now.date()] == [
        replace(d, low=Decimal("1.23")) for d in full if d.day < now.date()
    ]
    assert [d for d in kept if d.day == now.date()] == [d for d in full if d.day == now.date()]
    _forget_kept(engine)

    later = now + timedelta(days=1)
    edits = {
        "the next day, a run": lambda at: _run(engine, rng, at, range(1, 45)),
        "a cheaper sighting dated two days ago, saved now": lambda _: _cheapest(
            engine, now - timedelta(days=2), price="5.00", n=98
        ),
        "the cheapest listing now ships from Hong Kong": lambda at: _cheapest(
            engine, at, price="21.00", place="Hong Kong"
        ),
        "the cheapest listing now a lot of two": lambda at: _cheapest(
            engine, at, price="22.00", place="Hong Kong", norm=replace(RTX3060, quantity=2)
        ),
        "the cheapest listing now read as another SKU": lambda at: _cheapest(
            engine, at, price="23.00", place="Hong Kong", norm=A100
        ),
    }
    report = later + timedelta(hours=1)  # each report after the saves before it
    for minute, (name, edit) in enumerate(edits.items()):
        before = _both(engine, rank, since, report)  # kept under the store as it is
        edit(later + timedelta(minutes=minute))
        kept, full = _both(engine, rank, since, report)
        assert kept == full != before[1], name
    kept, full = _both(engine, rank, since - timedelta(days=2), report)
    assert kept == full and len(full) == 18, "a longer window"
    other = replace(rank, fx_rates={"USD": Decimal(1), "EUR": Decimal("1.25")})
    kept, full = _both(engine, other, since, report)
    assert kept == full, "other FX rates"
    # A report at the instant of a listing's move cannot tell a later move at that instant.
    _cheapest(engine, report, price="24.00", place="Hong Kong", norm=RTX3060)
    _both(engine, rank, since, report)
    _cheapest(engine, report, price="25.00", place="Hong Kong", norm=A100)
    kept, full = _both(engine, rank, since, report)
    assert kept == full, "moved twice at the instant of the report"


def test_the_day_so_far_is_kept_and_widened_by_the_sightings_saved_since(engine) -> None:
    """A daily run sees every listing, so today's sightings are as many as the listings: a
    report groups only those saved since the last report, and widens the kept ranges."""
    rng = random.Random(11)
    rank = RankSettings(fx_rates={"USD": Decimal(1), "EUR": Decimal("1.10")})
    midnight = NOW.replace(hour=0, minute=0, second=0, microsecond=0)
    since = (midnight - timedelta(days=3)).date()
    for day in (3, 2, 1):
        _run(engine, rng, midnight - timedelta(days=day, hours=-9), range(1, 30))
    for hour in range(1, 7):  # runs through the day, some listings each, a report after each
        at = midnight + timedelta(hours=hour)
        _run(engine, rng, at, rng.sample(range(1, 40), 12))
        kept, full = _both(engine, rank, since, at + timedelta(minutes=5))
        assert kept == full, f"the report after the run at {hour}:00"

    # The kept ranges are read back, today's too: one more sighting only widens them.
    _mark_kept(engine)
    at = midnight + timedelta(hours=8)
    _cheapest(engine, at, price="10000.00")
    kept, full = _both(engine, rank, since, at + timedelta(minutes=5))
    assert [(d.sku, d.day, d.high) for d in kept] == [(d.sku, d.day, d.high) for d in full]
    assert {d.low for d in kept} == {Decimal("1.23")}
    assert max(d.high for d in kept) > max(d.high for d in full if d.day < at.date())


def test_a_store_that_cannot_be_written_gives_the_full_band(tmp_path) -> None:
    path = tmp_path / "store.db"
    writable = create_engine(f"sqlite:///{path}")
    upgrade(writable)
    rng = random.Random(3)
    for day in range(3):
        _run(writable, rng, NOW - timedelta(days=3 - day), range(1, 20))
    writable.dispose()
    read_only = create_engine(f"sqlite:///file:{path}?mode=ro&uri=true")
    since = (NOW - timedelta(days=5)).date()
    kept, full = _both(read_only, RankSettings(), since, NOW)
    assert kept == full and len(full) == 6
