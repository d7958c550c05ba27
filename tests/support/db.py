"""Database fixtures: every test that takes ``engine`` runs on SQLite and on PostgreSQL.

PostgreSQL comes from ``RIGSCOUT_TEST_PG_URL`` (default: the machine's server on 127.0.0.1);
where none is reachable the PostgreSQL half is skipped with the reason, never silently, and
under ``CI=true`` it fails instead (unless ``RIGSCOUT_ALLOW_PG_SKIP`` is set).
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from sqlalchemy import Engine, create_engine, make_url, text
from sqlalchemy.orm import Session

from core.errors import StoreError
from db.engine import open_engine
from db.migrate import upgrade
from db.models import Base

if TYPE_CHECKING:
    from collections.abc import Iterator

PG_ADMIN_URL = os.environ.get(
    "RIGSCOUT_TEST_PG_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)


def _pg_unreachable() -> str | None:
    try:
        open_engine(PG_ADMIN_URL).dispose()
    except StoreError as exc:
        return str(exc)
    return None


def throwaway_pg_database(prefix: str) -> Iterator[str]:
    """Yield the URL of a new, empty database on the real PostgreSQL server; drop it after.

    Where no server is reachable: skipped with the reason, or failed under ``CI=true``.
    """
    reason = _pg_unreachable()
    if reason:
        if os.environ.get("CI") and not os.environ.get("RIGSCOUT_ALLOW_PG_SKIP"):
            pytest.fail(reason + " (CI must test PostgreSQL)")
        pytest.skip(reason)
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    yield PG_ADMIN_URL.rsplit("/", 1)[0] + "/" + name
    with admin.connect() as conn:
        conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


@pytest.fixture(scope="session")
def pg_database() -> Iterator[str]:
    """A throw-away database on the real PostgreSQL server, dropped at the end."""
    yield from throwaway_pg_database("rigscout_test")


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty database: a new SQLite file, or the session's PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'rigscout.db'}"
    return str(request.getfixturevalue("pg_database"))


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated SQLite file; copying it is several times faster than migrating each test."""
    path = tmp_path_factory.mktemp("template") / "rigscout.db"
    engine = open_engine(f"sqlite:///{path}")
    upgrade(engine)
    engine.dispose()
    return path


def _migrate(url: str, request: pytest.FixtureRequest) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database:
        target = Path(parsed.database)
        if not target.exists():
            shutil.copyfile(request.getfixturevalue("sqlite_template"), target)
    engine = open_engine(url)
    upgrade(engine)
    return engine


def _empty(engine: Engine) -> None:
    with engine.begin() as conn:
        for table in reversed(Base.metadata.sorted_tables):
            conn.execute(table.delete())


@pytest.fixture
def engine(db_url: str, request: pytest.FixtureRequest) -> Iterator[Engine]:
    """A migrated, empty database (SQLite file or a PostgreSQL database)."""
    eng = _migrate(db_url, request)
    _empty(eng)
    yield eng
    _empty(eng)
    eng.dispose()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with Session(engine) as s:
        yield s
