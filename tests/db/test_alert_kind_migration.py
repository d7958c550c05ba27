"""Migration 0007 moves a saved-plan alert's "plan:" prefix out of its rule's name into
``alerts.kind``: the plan keeps its history (a rig no cheaper than the last one sent is not
sent again), the deals' rows become kind "deal", and going back restores the prefix."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from alembic import command
from sqlalchemy import text

from db.engine import open_engine
from db.migrate import alembic_config, current_revision, head_revision, upgrade
from tests.db.test_migrate import schema_differences
from tests.support.db import throwaway_pg_database

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
LISTING = (
    "INSERT INTO listings (id, marketplace, item_id, title, url, buying_format, currency, status,"
    " first_seen, last_seen, kind, quantity, includes, confidence)"
    " VALUES (1, 'EBAY_US', '1', 't', 'u', 'buy_it_now', 'USD', 'active', :t, :t, 'item', 1,"
    " '[]', 0.9)"
)
ALERT = (
    "INSERT INTO alerts (listing_id, channel, rule, landed_unit_price, currency, status,"
    " attempts, created_at, payload) VALUES (1, 'mail', :rule, 128000, 'USD', 'sent', 1, :t, '{}')"
)


@pytest.fixture(params=["sqlite", "postgres"])
def old_url(request, tmp_path):
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.db'}"
        return
    yield from throwaway_pg_database("rigscout_alert_kind")


def rows(engine) -> list[tuple[str, str | None]]:
    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(text("SELECT kind, rule FROM alerts ORDER BY id"))]


def test_a_plan_alert_keeps_its_name_and_says_it_is_a_plan(old_url):
    engine = open_engine(old_url)
    try:
        upgrade(engine, "0006_asking_days")
        t = NOW.strftime("%Y-%m-%d %H:%M:%S.%f")
        with engine.begin() as conn:
            conn.execute(text(LISTING), {"t": t})
            for rule in ("plan:node", "cheap v100", None, "planner"):
                conn.execute(text(ALERT), {"rule": rule, "t": t})
        upgrade(engine)
        assert current_revision(engine) == head_revision()
        assert schema_differences(engine) == []
        assert rows(engine) == [
            ("plan", "node"), ("deal", "cheap v100"), ("deal", None), ("deal", "planner"),
        ]  # fmt: skip

        with engine.begin() as conn:  # the way back restores the prefix
            command.downgrade(alembic_config(conn), "0006_asking_days")
        with engine.connect() as conn:
            rules = [r[0] for r in conn.execute(text("SELECT rule FROM alerts ORDER BY id"))]
        assert rules == ["plan:node", "cheap v100", None, "planner"]
    finally:
        engine.dispose()
