"""Migration 0004 keeps what a stored server came with: a store upgraded in place reads each
server, board and accessory title again, so its sales keep their configuration and a heatsink
lot its part id; nothing else is touched and nothing is lost."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from db.engine import open_engine
from db.migrate import current_revision, head_revision, upgrade
from db.models import ListingRow, ObservationRow
from tests.db.test_migrate import schema_differences
from tests.support.db import throwaway_pg_database

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
LISTING = (
    "INSERT INTO listings (id, marketplace, item_id, title, url, buying_format, currency, status,"
    " first_seen, last_seen, sku, category, kind, quantity, includes, confidence)"
    " VALUES (:id, 'EBAY_US', :item, :title, 'u', 'buy_it_now', 'USD', 'active', :t, :t,"
    " :sku, :category, :kind, 1, '[]', 0.9)"
)
OBSERVATION = (
    "INSERT INTO observations (listing_id, observed_at, price, shipping, currency, status)"
    " VALUES (:listing, :t, 64404, 8500, 'USD', 'active')"
)
ROWS = [
    (1, "Gigabyte T181-G20 GPU Server 2x Xeon Silver 4114 64GB No GPUs No Heatsinks",
     "gigabyte-t181-g20", "server", "item"),
    (2, "Gigabyte T181-G20 SXM2 GPU Heatsink 25VH1-3D0105-A0R (Lot of 4)", None, None,
     "accessory"),
    (3, "NVIDIA Tesla P40 24GB", "nvidia-tesla-p40", "gpu", "item"),
]  # fmt: skip


@pytest.fixture(params=["sqlite", "postgres"])
def fresh_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.db'}"
        return
    yield from throwaway_pg_database("rigscout_config")


def test_upgrading_reads_each_stored_server_and_part_title_again(fresh_url):
    engine = open_engine(fresh_url)
    try:
        upgrade(engine, "0003_ignores")
        t = NOW.strftime("%Y-%m-%d %H:%M:%S.%f")
        with engine.begin() as conn:
            for i, title, sku, category, kind in ROWS:
                conn.execute(
                    text(LISTING),
                    {"id": i, "item": str(i), "title": title, "t": t, "sku": sku,
                     "category": category, "kind": kind},
                )  # fmt: skip
                conn.execute(text(OBSERVATION), {"listing": i, "t": t})
        upgrade(engine)

        assert current_revision(engine) == head_revision()
        assert schema_differences(engine) == []
        with Session(engine) as session:
            rows = {r.id: r for r in session.scalars(select(ListingRow))}
            observations = session.scalars(select(ObservationRow)).all()
    finally:
        engine.dispose()

    server, heatsinks, card = rows[1], rows[2], rows[3]
    assert server.config is not None
    assert (server.config["cpus"], server.config["ram_gb"], server.config["heatsinks"]) == (
        2, 64, "no",
    )  # fmt: skip
    assert (heatsinks.part, heatsinks.quantity) == ("sxm2-heatsink", 4)
    assert (card.config, card.part, card.quantity) == (None, None, 1)
    assert len(observations) == 3  # altered in place: no cascade took the prices with it
