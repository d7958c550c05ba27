"""Migration 0018 reads the stored listings' eBay condition: an item whose condition says broken
("For parts or not working", "Als Ersatzteil / defekt") becomes a part, stamped as changed so the
kept ranking and report take it up; every other listing is left as it was."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from db.engine import open_engine
from db.migrate import current_revision, head_revision, upgrade
from db.models import ListingRow
from tests.support.db import throwaway_pg_database

THEN = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
LISTING = (
    "INSERT INTO listings (id, marketplace, item_id, title, url, buying_format, currency, status,"
    " first_seen, last_seen, sku, category, kind, quantity, includes, confidence, condition,"
    " changed_at, saved_seq)"
    " VALUES (:id, 'EBAY_US', :item, :title, 'u', 'buy_it_now', 'USD', 'active', :t, :t,"
    " :sku, :category, :kind, 1, '[]', 0.9, :condition, :t, :id)"
)
ROWS = [
    (1, "NVIDIA Tesla P40 24GB", "nvidia-tesla-p40", "gpu", "item", "For parts or not working"),
    (2, "NVIDIA Tesla P40 24GB GPU", "nvidia-tesla-p40", "gpu", "item", "Als Ersatzteil / defekt"),
    (3, "NVIDIA Tesla P40 24GB Rechenkarte", "nvidia-tesla-p40", "gpu", "item", "Gebraucht"),
    (4, "NVIDIA Tesla P40 24GB (x)", "nvidia-tesla-p40", "gpu", "item", None),
    (5, "Tesla P40 heatsink", None, None, "accessory", "For parts or not working"),
]  # fmt: skip


@pytest.fixture(params=["sqlite", "postgres"])
def fresh_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.db'}"
        return
    yield from throwaway_pg_database("rigscout_condition")


def test_upgrading_makes_the_items_whose_condition_says_broken_parts(fresh_url):
    engine = open_engine(fresh_url)
    try:
        upgrade(engine, "0017_seller_stake_index")
        with engine.begin() as conn:
            for i, title, sku, category, kind, condition in ROWS:
                conn.execute(
                    text(LISTING),
                    {"id": i, "item": str(i), "title": title, "t": THEN, "sku": sku,
                     "category": category, "kind": kind, "condition": condition},
                )  # fmt: skip
        upgrade(engine)

        assert current_revision(engine) == head_revision()
        with Session(engine) as session:
            rows = {r.id: r for r in session.scalars(select(ListingRow))}
    finally:
        engine.dispose()

    assert {i: rows[i].kind for i in rows} == {
        1: "for_parts", 2: "for_parts", 3: "item", 4: "item", 5: "accessory",
    }  # fmt: skip
    newest = max(r.saved_seq or 0 for r in rows.values())
    for changed in (rows[1], rows[2]):  # stamped as a save that changed them
        assert changed.changed_at is not None and changed.changed_at > THEN
        assert changed.history_changed_at is not None and changed.history_changed_at > THEN
        assert changed.saved_seq == newest and newest > len(ROWS)
    assert (rows[3].changed_at, rows[3].saved_seq) == (THEN, 3)  # untouched
