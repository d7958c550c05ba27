"""Price-history export: per SKU per period, sold vs active, streamed in chunks."""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

import rigscout.outputs.export as export_module
from core.settings import RankSettings
from db.models import ListingRow, ObservationRow, SaleRow
from rigscout.outputs.export import ExportFilter, export_listings, export_prices

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def listing(session, item_id: str, sku: str | None, *, quantity: int = 1, kind: str = "item"):
    row = ListingRow(
        marketplace="EBAY_US",
        item_id=item_id,
        title=f"title {item_id}",
        url=f"https://www.ebay.com/itm/{item_id}",
        buying_format="buy_it_now",
        currency="USD",
        status="active",
        first_seen=T0,
        last_seen=T0,
        sku=sku,
        category="gpu",
        kind=kind,
        quantity=quantity,
        includes=[],
        confidence=1.0,
    )
    session.add(row)
    session.flush()
    return row


def observe(session, row, day: int, price: str, shipping: str | None = "0", hour: int = 9):
    session.add(
        ObservationRow(
            listing_id=row.id,
            observed_at=datetime(2026, 11, day, hour, tzinfo=UTC),
            price=Decimal(price),
            shipping=None if shipping is None else Decimal(shipping),
            currency="USD",
            status="active",
        )
    )


def sell(session, row, day: int, price: str, shipping: str = "0"):
    session.add(
        SaleRow(
            listing_id=row.id,
            sold_date=date(2026, 11, day),
            price=Decimal(price),
            shipping=Decimal(shipping),
            currency="USD",
            best_offer_accepted=False,
            source="sold_page",
        )
    )


@pytest.fixture
def history(session):
    a = listing(session, "1", "nvidia-tesla-p40")
    b = listing(session, "2", "nvidia-tesla-p40")
    lot = listing(session, "3", "nvidia-tesla-p40", quantity=4)
    v100 = listing(session, "4", "nvidia-tesla-v100-sxm2-16gb")
    heatsink = listing(session, "5", None, kind="accessory")
    observe(session, a, 2, "180.00", "20.00")
    observe(session, a, 3, "170.00", "20.00")
    observe(session, b, 2, "210.00")
    observe(session, lot, 2, "700.00", "40.00")  # 185.00 a unit
    observe(session, v100, 2, "139.00", None)  # unknown shipping: the $25 GPU freight estimate
    observe(session, heatsink, 2, "40.00")
    sell(session, a, 3, "175.50", "10.00")
    sell(session, v100, 9, "201.00")
    session.commit()


def read_prices(engine, **kwargs) -> list[dict[str, str]]:
    out = io.StringIO()
    rank = kwargs.pop("rank", RankSettings())
    export_prices(engine, out, ExportFilter(**kwargs.pop("flt", {})), rank, **kwargs)
    return list(csv.DictReader(io.StringIO(out.getvalue())))


@pytest.mark.usefixtures("history")
def test_daily_prices_per_sku_split_sold_and_active(engine):
    rows = read_prices(engine)
    got = [
        (r["sku"], r["period"], r["market"], r["count"], r["min"], r["median"], r["max"])
        for r in rows
    ]
    assert got == [
        ("nvidia-tesla-p40", "2026-11-02", "active", "3", "185.00", "200.00", "210.00"),
        ("nvidia-tesla-p40", "2026-11-03", "active", "1", "190.00", "190.00", "190.00"),
        ("nvidia-tesla-p40", "2026-11-03", "sold", "1", "185.50", "185.50", "185.50"),
        ("nvidia-tesla-v100-sxm2-16gb", "2026-11-02", "active", "1", "164.00", "164.00", "164.00"),
        ("nvidia-tesla-v100-sxm2-16gb", "2026-11-09", "sold", "1", "201.00", "201.00", "201.00"),
    ]


@pytest.mark.usefixtures("history")
def test_weekly_and_filtered(engine):
    rows = read_prices(
        engine, freq="week", flt={"skus": ("nvidia-tesla-p40",), "until": date(2026, 11, 2)}
    )
    assert [(r["period"], r["market"], r["count"]) for r in rows] == [("2026-11-02", "active", "3")]


@pytest.mark.usefixtures("history")
def test_chunked_export_equals_a_single_pass(engine, monkeypatch):
    whole = read_prices(engine)
    monkeypatch.setattr(export_module, "CHUNK_ROWS", 2)
    assert read_prices(engine) == whole


@pytest.mark.usefixtures("history")
def test_listings_export_has_every_observation_and_counts_them_as_it_reads(engine, monkeypatch):
    monkeypatch.setattr(export_module, "CHUNK_ROWS", 4)  # two chunks: the count grows twice
    out = io.StringIO()
    heard: list[int] = []
    assert export_listings(engine, out, ExportFilter(), on_read=heard.append) == 6
    assert heard == [4, 2]  # what the progress shows on a terminal: 4, then 6 read
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert {r["item_id"] for r in rows} == {"1", "2", "3", "4", "5"}
    assert rows[0]["price"] in {"180.00", "180.0", "180"}


def test_prices_are_landed_in_the_users_currency_as_rank_lands_them(session, engine):
    eur = listing(session, "7", "nvidia-tesla-p40")
    sek = listing(session, "8", "nvidia-tesla-p40")
    session.add_all(
        [
            ObservationRow(
                listing_id=eur.id,
                observed_at=datetime(2026, 11, 2, 9, tzinfo=UTC),
                price=Decimal("180.00"),
                shipping=Decimal("20.00"),
                currency="EUR",
                status="active",
            ),
            ObservationRow(
                listing_id=sek.id,
                observed_at=datetime(2026, 11, 2, 9, tzinfo=UTC),
                price=Decimal("1999.00"),
                shipping=Decimal("0"),
                currency="SEK",
                status="active",
            ),
        ]
    )
    session.commit()
    rank = RankSettings(fx_rates={"USD": Decimal(1), "EUR": Decimal("1.10")})
    out = io.StringIO()
    counts = export_prices(engine, out, ExportFilter(), rank)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    # €200 landed at 1.10 is $220.00; the SEK price has no rate: left out and counted, never 1:1
    assert [(r["currency"], r["count"], r["min"]) for r in rows] == [("USD", "1", "220.00")]
    assert (counts.rows, counts.unpriced) == (1, 1)


@pytest.mark.parametrize(
    "text", ['=HYPERLINK("http://evil.example","V100")', "+cmd|' /C calc'!A0", "-2+3", "@SUM(1)"]
)
def test_a_title_or_seller_a_spreadsheet_would_run_is_written_as_text(session, engine, text):
    row = listing(session, "9", "nvidia-tesla-p40")
    row.title, row.seller = text, text
    observe(session, row, 1, "150")
    session.commit()
    out = io.StringIO()
    export_listings(engine, out, ExportFilter())
    (written,) = [r for r in csv.DictReader(io.StringIO(out.getvalue())) if r["item_id"] == "9"]
    assert written["title"] == written["seller"] == "'" + text
    assert written["price"] in {"150.00", "150.0", "150"}  # numbers stay numbers
