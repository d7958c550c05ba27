"""Migrations: they build exactly the ORM schema, on SQLite and PostgreSQL, and can run again."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import func, inspect, select, text
from sqlalchemy.orm import Session

from core.errors import StoreError
from db.engine import open_engine
from db.migrate import current_revision, head_revision, upgrade
from db.models import Base, RunRow
from db.runs import start_run


def schema_differences(engine) -> list[object]:
    with engine.connect() as conn:
        context = MigrationContext.configure(conn, opts={"compare_type": True})
        return list(compare_metadata(context, Base.metadata))


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
