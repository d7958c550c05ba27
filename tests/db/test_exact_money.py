"""Money stays exact end to end: stored as integer cents on SQLite and PostgreSQL, never REAL.

A price saved comes back as the very same Decimal, an amount with digits under a cent is refused
rather than rounded, a database created before cents (revision 0001, floats on SQLite) keeps
every amount to the cent through the migration, and the CSV exports print the same decimals.
"""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest
from alembic import command
from sqlalchemy import inspect, select, text
from sqlalchemy.exc import StatementError
from sqlalchemy.orm import Session

from core.models import BuyingFormat, Category, Kind, Listing, Normalized
from core.settings import RankSettings
from db.engine import open_engine
from db.migrate import alembic_config, current_revision, head_revision, upgrade
from db.models import AlertRow, ListingRow, ObservationRow, SaleRow
from db.store import save_listings
from db.types import InexactAmountError, from_units, to_units
from rigscout.outputs.export import ExportFilter, export_listings, export_prices
from tests.db.test_migrate import schema_differences
from tests.support.db import throwaway_pg_database

NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)
P40 = Normalized("NVIDIA Tesla P40 24GB", "nvidia-tesla-p40", Category.GPU, Kind.ITEM)
MONEY_COLUMNS = {
    "observations": ("price", "price_max", "shipping"),
    "sales": ("price", "shipping"),
    "alerts": ("landed_unit_price",),
}


def listing(item_id: str, price: str, shipping: str | None = "0.00", **changes) -> Listing:
    base = Listing(
        item_id=item_id,
        title=f"NVIDIA Tesla P40 24GB #{item_id}",
        url=f"https://www.ebay.com/itm/{item_id}",
        price=Decimal(price),
        currency="USD",
        buying_format=BuyingFormat.BUY_IT_NOW,
        shipping=None if shipping is None else Decimal(shipping),
        seller="gpu_recycler",
        seller_positive_pct=Decimal("99.5"),
    )
    return replace(base, **changes)


def save(engine, *items: Listing, norm: Normalized = P40) -> None:
    with Session(engine) as session, session.begin():
        save_listings(session, [(i, norm) for i in items], search="p40", run_id=None, now=NOW)


# -- the conversion rule -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("amount", "cents"),
    [
        (Decimal("0.10") + Decimal("0.20"), 30),
        (Decimal("19999999.99"), 1999999999),
        (Decimal("0"), 0),
        (Decimal("450"), 45000),
        (Decimal("1.5"), 150),
        (Decimal("12.340"), 1234),  # a trailing zero is not a sub-cent digit
        (7, 700),
    ],
)
def test_an_amount_becomes_whole_cents_and_comes_back_unchanged(amount, cents):
    assert to_units(amount, 2) == cents
    assert from_units(cents, 2) == amount


def test_amounts_come_back_with_two_decimals_as_before():
    assert str(from_units(30, 2)) == "0.30"
    assert str(from_units(0, 2)) == "0.00"
    assert str(from_units(1999999999, 2)) == "19999999.99"


@pytest.mark.parametrize(
    ("amount", "message"),
    [
        (Decimal("12.345"), r"12\.345 has digits under 1/100"),
        (Decimal("0.001"), "digits under 1/100"),
        (0.1 + 0.2, "is a float"),
        ("12.34", "is a str"),
        (Decimal("NaN"), "not a number"),
        (Decimal("1e30"), "too large"),
    ],
)
def test_an_amount_that_cannot_be_kept_exactly_is_refused_never_rounded(amount, message):
    with pytest.raises(InexactAmountError, match=message):
        to_units(amount, 2)


def test_percentages_are_kept_in_tenths_rounding_half_even():
    assert to_units(Decimal("99.5"), 1, exact=False) == 995
    assert to_units(Decimal("99.25"), 1, exact=False) == 992
    assert to_units(Decimal("99.35"), 1, exact=False) == 994
    assert from_units(995, 1) == Decimal("99.5")


# -- storage on both backends --------------------------------------------------------------------


def test_prices_round_trip_exactly(engine):
    save(
        engine,
        listing(
            "1", str(Decimal("0.10") + Decimal("0.20")), "19999999.99", price_max=Decimal("0.31")
        ),
        listing("2", "19999999.99", None),  # unknown shipping: + the $25 GPU freight estimate
        listing("3", "1234.56", "0.01", sold_date=date(2026, 11, 19)),
    )
    with Session(engine) as session:
        observed = {
            o.listing.item_id: (o.price, o.price_max, o.shipping)
            for o in session.scalars(select(ObservationRow))
        }
        sale = session.scalars(select(SaleRow)).one()
        pct = set(session.scalars(select(ListingRow.seller_positive_pct)))

    assert observed == {
        "1": (Decimal("0.30"), Decimal("0.31"), Decimal("19999999.99")),
        "2": (Decimal("19999999.99"), None, None),
        "3": (Decimal("1234.56"), None, Decimal("0.01")),
    }
    assert [str(a) for a in observed["1"]] == ["0.30", "0.31", "19999999.99"]
    assert (sale.price, sale.shipping) == (Decimal("1234.56"), Decimal("0.01"))
    assert pct == {Decimal("99.5")}


def test_the_database_holds_integers_never_real(engine):
    save(engine, listing("1", "0.30", "19999999.99", sold_date=date(2026, 11, 19)))
    with engine.connect() as conn:
        raw = conn.execute(text("SELECT price, shipping FROM observations")).one()
        pct = conn.execute(text("SELECT seller_positive_pct FROM listings")).scalar_one()
        if engine.dialect.name == "sqlite":
            stored = conn.execute(text("SELECT typeof(price), typeof(shipping) FROM sales")).one()
            assert tuple(stored) == ("integer", "integer")

    assert tuple(raw) == (30, 1999999999)
    assert all(type(value) is int for value in raw)
    assert pct == 995


def test_every_money_column_is_declared_integer(engine):
    columns = {
        (table, c["name"]): str(c["type"])
        for table in (*MONEY_COLUMNS, "listings")
        for c in inspect(engine).get_columns(table)
    }
    expected = "INTEGER" if engine.dialect.name == "sqlite" else "BIGINT"
    for table, names in MONEY_COLUMNS.items():
        for name in names:
            assert columns[table, name] == expected, (table, name)
    assert columns["listings", "seller_positive_pct"] == "INTEGER"
    if engine.dialect.name == "sqlite":
        with engine.connect() as conn:
            declared = {row[2] for row in conn.execute(text("PRAGMA table_info(observations)"))}
        assert not declared & {"REAL", "FLOAT", "NUMERIC", "NUMERIC(14, 2)"}


def test_a_sub_cent_amount_is_refused_by_the_store_with_the_amount_named(engine):
    with pytest.raises(StatementError, match=r"1\.005 has digits under 1/100") as caught:
        save(engine, listing("1", "1.005"))
    assert isinstance(caught.value.orig, InexactAmountError)
    with Session(engine) as session:
        assert session.scalars(select(ObservationRow)).all() == []


# -- exports print the same decimals -------------------------------------------------------------


def test_price_export_of_known_amounts_is_byte_identical(engine):
    save(
        engine,
        listing("1", "0.10", "0.20"),
        listing("2", "19999999.99", None),  # unknown shipping: + the $25 GPU freight estimate
        listing(
            "3", "10.01", "0.00"
        ),  # a lot of two: 5.005 a unit, rounded half up as rank rounds it
        listing("4", "1234.56", "15.00", sold_date=date(2026, 11, 19)),
    )
    with Session(engine) as session, session.begin():
        session.execute(
            ListingRow.__table__.update().where(ListingRow.item_id == "3").values(quantity=2)
        )
    out = io.StringIO()
    export_prices(engine, out, ExportFilter(), RankSettings())

    assert out.getvalue() == (
        "sku,period,market,currency,count,min,median,max\n"
        "nvidia-tesla-p40,2026-11-19,sold,USD,1,1249.56,1249.56,1249.56\n"
        "nvidia-tesla-p40,2026-11-20,active,USD,3,0.30,5.01,20000024.99\n"
    )


def test_listing_export_prints_the_same_amounts_as_before(engine):
    # As before cents: pandas prints each amount in its shortest exact form ("0.3", "7.0"),
    # exact for every amount of up to 15 digits.
    save(
        engine,
        listing("1", "0.30", "19999999.99", price_max=Decimal("0.31")),
        listing("2", "7", None),
    )
    out = io.StringIO()
    export_listings(engine, out, ExportFilter())

    lines = out.getvalue().splitlines()
    assert lines[0].split(",")[8:12] == ["price", "price_max", "shipping", "currency"]
    assert [line.split(",")[8:12] for line in lines[1:]] == [
        ["0.3", "0.31", "19999999.99", "USD"],
        ["7.0", "", "", "USD"],
    ]


# -- migrating a database written before cents ---------------------------------------------------


@pytest.fixture(params=["sqlite", "postgres"])
def fresh_url(request, tmp_path):
    """An empty database of its own: the migration test must start below the head revision."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.db'}"
        return
    yield from throwaway_pg_database("rigscout_money")


OLD_LISTING = (
    "INSERT INTO listings (id, marketplace, item_id, title, url, buying_format, currency, status,"
    " first_seen, last_seen, sku, kind, quantity, includes, confidence, seller_positive_pct)"
    " VALUES (:id, 'EBAY_US', :item, 't', 'u', 'buy_it_now', 'USD', 'active', :t, :t,"
    " 'nvidia-tesla-p40', 'item', 1, '[]', 1.0, :pct)"
)
OLD_OBSERVATION = (
    "INSERT INTO observations (listing_id, observed_at, price, price_max, shipping, currency,"
    " status) VALUES (:listing, :t, :price, :price_max, :shipping, 'USD', 'active')"
)
OLD_SALE = (
    "INSERT INTO sales (listing_id, sold_date, price, shipping, currency, best_offer_accepted,"
    " source) VALUES (:listing, :day, :price, :shipping, 'USD', false, 'sold_page')"
)
OLD_ALERT = (
    "INSERT INTO alerts (listing_id, channel, landed_unit_price, currency, status, attempts,"
    " created_at, payload) VALUES (:listing, 'email', :price, 'USD', 'sent', 1, :t, '{}')"
)


def write_at_revision_1(engine) -> None:
    """Money as rigscout 0001 wrote it: floats on SQLite (0.1 + 0.2 included), NUMERIC on PG."""
    upgrade(engine, "0001_initial")
    t = NOW.strftime("%Y-%m-%d %H:%M:%S.%f")  # the text SQLAlchemy writes for a DateTime
    with engine.begin() as conn:
        for i, pct in ((1, 99.5), (2, None)):
            conn.execute(text(OLD_LISTING), {"id": i, "item": str(i), "t": t, "pct": pct})
        conn.execute(
            text(OLD_OBSERVATION),
            [
                {"listing": 1, "t": t, "price": 0.1 + 0.2, "price_max": 19999999.99,
                 "shipping": 12.34},
                {"listing": 2, "t": t, "price": 1e11 + 0.07, "price_max": None,
                 "shipping": None},
            ],
        )  # fmt: skip
        conn.execute(
            text(OLD_SALE), {"listing": 1, "day": date(2026, 11, 19), "price": 0.29, "shipping": 0}
        )
        conn.execute(text(OLD_ALERT), {"listing": 2, "price": 0.01, "t": t})


def test_migrating_a_database_with_money_in_it_keeps_every_amount_exact(fresh_url):
    engine = open_engine(fresh_url)
    try:
        write_at_revision_1(engine)
        upgrade(engine)

        assert current_revision(engine) == head_revision()
        assert schema_differences(engine) == []
        with Session(engine) as session:
            observed = sorted(
                (o.listing_id, o.price, o.price_max, o.shipping)
                for o in session.scalars(select(ObservationRow))
            )
            sale = session.scalars(select(SaleRow)).one()
            alert = session.scalars(select(AlertRow)).one()
            pcts = dict(
                session.execute(select(ListingRow.id, ListingRow.seller_positive_pct)).all()
            )
        with engine.connect() as conn:
            raw = conn.execute(text("SELECT price FROM observations ORDER BY listing_id")).scalars()
            raw_prices = list(raw)
    finally:
        engine.dispose()

    # nothing lost (recreating a parent table on SQLite would cascade-delete its children)
    assert observed == [
        (1, Decimal("0.30"), Decimal("19999999.99"), Decimal("12.34")),
        (2, Decimal("100000000000.07"), None, None),
    ]
    assert (sale.price, sale.shipping, alert.landed_unit_price) == (
        Decimal("0.29"), Decimal("0.00"), Decimal("0.01"),
    )  # fmt: skip
    assert pcts == {1: Decimal("99.5"), 2: None}
    assert raw_prices == [30, 10000000000007]


def test_downgrading_gives_the_decimals_back(fresh_url):
    engine = open_engine(fresh_url)
    try:
        write_at_revision_1(engine)
        upgrade(engine)
        with engine.begin() as conn:
            command.downgrade(alembic_config(conn), "0001_initial")
        with engine.connect() as conn:
            prices = conn.execute(
                text("SELECT price, shipping FROM observations ORDER BY listing_id")
            ).all()
            pct = conn.execute(text("SELECT seller_positive_pct FROM listings WHERE id = 1"))
            pct_value = pct.scalar_one()
    finally:
        engine.dispose()

    assert [(Decimal(str(p)), s if s is None else Decimal(str(s))) for p, s in prices] == [
        (Decimal("0.3"), Decimal("12.34")),
        (Decimal("100000000000.07"), None),
    ]
    assert Decimal(str(pct_value)) == Decimal("99.5")
