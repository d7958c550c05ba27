"""Migrations: they build exactly the ORM schema, on SQLite and PostgreSQL, and can run again."""

from __future__ import annotations

import warnings

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import Column, func, inspect, select, text
from sqlalchemy.orm import Session

from core.errors import StoreError
from db.engine import open_engine
from db.migrate import current_revision, head_revision, upgrade
from db.models import Base, RunRow
from db.runs import start_run

# Indexes on an expression, which alembic cannot compare (SQLite does not reflect them): each
# is looked up by name instead.
EXPRESSION_INDEXES = {
    index.name
    for table in Base.metadata.tables.values()
    for index in table.indexes
    if not all(isinstance(e, Column) for e in index.expressions)
}
INDEX_NAMES = {
    "sqlite": "SELECT name FROM sqlite_master WHERE type = 'index'",
    "postgresql": "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema()",
}


def schema_differences(engine) -> list[object]:
    def compared(_object, name, type_, _reflected, _compare_to) -> bool:
        return not (type_ == "index" and name in EXPRESSION_INDEXES)

    with engine.connect() as conn, warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Skipped unsupported reflection of expression-based")
        warnings.filterwarnings("ignore", "autogenerate skipping metadata-specified expression")
        opts = {"compare_type": True, "include_object": compared}
        context = MigrationContext.configure(conn, opts=opts)
        found: list[object] = list(compare_metadata(context, Base.metadata))
        indexes = set(conn.scalars(text(INDEX_NAMES[engine.dialect.name])))
    return found + [("missing index", name) for name in sorted(EXPRESSION_INDEXES - indexes)]


def test_the_orm_schema_has_an_expression_index_to_look_up():
    assert "ix_priced_part_price" in EXPRESSION_INDEXES


def test_the_migrated_schema_is_exactly_the_orm_schema(engine):
    assert schema_differences(engine) == []


def test_a_migrated_database_is_at_the_head_revision(engine):
    assert current_revision(engine) == head_revision()


def test_upgrading_again_changes_nothing_and_keeps_the_data(engine, now):
    with Session(engine) as session:
        start_run(session, source="web", now=now)

    upgrade(engine)
    upgrade(engine)

    with Session(engine) as session:
        assert session.scalar(select(func.count()).select_from(RunRow)) == 1
    assert current_revision(engine) == head_revision()


def test_a_new_database_has_no_revision_until_upgraded(tmp_path):
    engine = open_engine(f"sqlite:///{tmp_path / 'fresh.db'}")
    assert current_revision(engine) is None
    assert inspect(engine).get_table_names() == []

    upgrade(engine)

    expected = {table.name for table in Base.metadata.sorted_tables} | {"alembic_version"}
    assert set(inspect(engine).get_table_names()) == expected
    engine.dispose()


def test_a_database_from_a_newer_rigscout_is_refused_with_its_revision(engine):
    stamp = "UPDATE alembic_version SET version_num = :rev"
    with engine.begin() as conn:
        conn.execute(text(stamp), {"rev": "f00dfeed"})
    try:
        with pytest.raises(StoreError) as caught:
            upgrade(engine)
    finally:
        with engine.begin() as conn:
            conn.execute(text(stamp), {"rev": head_revision()})

    assert "f00dfeed" in str(caught.value)
    assert str(caught.value).startswith("Cannot migrate database ")


UPGRADE = (
    "import sys, time\n"
    "from db.engine import open_engine\n"
    "from db.migrate import upgrade\n"
    "engine = open_engine(sys.argv[1])\n"
    "print('migrating', flush=True)\n"
    "upgrade(engine)\n"
)


@pytest.mark.slow
@pytest.mark.parametrize("after", [0.0, 0.1, 0.15, 0.2, 0.3])
@pytest.mark.parametrize("start", [None, "0003_ignores"], ids=["new store", "older store"])
def test_a_kill_during_a_sqlite_migration_leaves_a_store_the_next_upgrade_finishes(
    tmp_path, start, after
):
    """kill -9 in the middle of a migration left "duplicate column name" or "table listings
    already exists" for ever: on SQLite the driver committed before each CREATE and ALTER.
    The whole upgrade is one transaction now: a kill leaves the schema as it was."""
    import signal
    import subprocess
    import sys
    import time

    url = f"sqlite:///{tmp_path / 'store.db'}"
    if start is not None:
        upgrade(open_engine(url), start)  # an older store, upgraded in place
    proc = subprocess.Popen([sys.executable, "-c", UPGRADE, url], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "migrating"
    time.sleep(after)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)

    engine = open_engine(url)
    try:
        assert current_revision(engine) in {start, head_revision()}
        upgrade(engine)  # finishes it, whatever was done before the kill
        assert current_revision(engine) == head_revision()
        assert schema_differences(engine) == []
    finally:
        engine.dispose()
