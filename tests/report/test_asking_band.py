"""The report's asking band holds the landed unit prices of the listings behind it, exactly:
the same rule as the deals (``ranking.landed``), on SQLite and PostgreSQL alike."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from decimal import Decimal

from sqlalchemy.orm import Session

from core.models import Category, Kind, Normalized
from core.settings import RankSettings
from db.store import save_listings
from rigscout.outputs.report.load import load_asking_days
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
        (day,) = load_asking_days(session, RankSettings(), since=(NOW - timedelta(days=1)).date())
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
        (day,) = load_asking_days(session, rank, since=(NOW - timedelta(days=1)).date())
    assert (day.low, day.high) == (Decimal("225.00"), Decimal("330.00"))


def test_each_day_has_its_own_band(engine) -> None:
    _save(engine, listing("1", "250.00"), at=NOW - timedelta(days=1))
    _save(engine, replace(listing("1", "230.00")), listing("2", "280.00"))
    with Session(engine) as session:
        days = load_asking_days(session, RankSettings(), since=(NOW - timedelta(days=3)).date())
    assert [(d.day, d.low, d.high) for d in days] == [
        (NOW.date() - timedelta(days=1), Decimal("250.00"), Decimal("250.00")),
        (NOW.date(), Decimal("230.00"), Decimal("280.00")),
    ]
