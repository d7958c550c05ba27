"""Database fixtures: every test that takes ``engine`` runs on SQLite and on PostgreSQL.

PostgreSQL comes from ``RIGSCOUT_TEST_PG_URL`` (default: the machine's server on 127.0.0.1);
where none is reachable the PostgreSQL half is skipped with the reason, never silently.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.orm import Session

from db.models import Base

PG_ADMIN_URL = os.environ.get(
    "RIGSCOUT_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)


def _pg_reachable() -> str | None:
    try:
        probe = create_engine(PG_ADMIN_URL, connect_args={"connect_timeout": 3})
        with probe.connect() as conn:
            conn.execute(text("select 1"))
        probe.dispose()
    except Exception as exc:  # any failure means: no server to test against
        return f"PostgreSQL not reachable at {PG_ADMIN_URL}: {type(exc).__name__}"
    return None


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """A throw-away database on the real PostgreSQL server, dropped at the end."""
    reason = _pg_reachable()
    if reason:
        if os.environ.get("CI") and not os.environ.get("RIGSCOUT_ALLOW_PG_SKIP"):
            pytest.fail(reason + " (CI must test PostgreSQL)")
        pytest.skip(reason)
    name = f"rigscout_test_{uuid.uuid4().hex[:10]}"
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    yield PG_ADMIN_URL.rsplit("/", 1)[0] + "/" + name
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'rigscout.db'}"
    return str(request.getfixturevalue("pg_database"))


def _migrate(url: str) -> Engine:
    try:
        from db.engine import open_engine
        from db.migrate import upgrade
    except ImportError:  # before the migrations exist, the ORM schema stands in
        engine = create_engine(url)
        Base.metadata.create_all(engine)
        return engine
    engine = open_engine(url)
    upgrade(engine)
    return engine


def _empty(engine: Engine) -> None:
    with engine.begin() as conn:
        for table in reversed(Base.metadata.sorted_tables):
            conn.execute(table.delete())


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    """A migrated, empty database (SQLite file or a PostgreSQL database)."""
    eng = _migrate(db_url)
    _empty(eng)
    yield eng
    _empty(eng)
    eng.dispose()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with Session(engine) as s:
        yield s
