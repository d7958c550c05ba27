"""Bring a database to the current schema with the Alembic migrations packaged in ``db/migrations``.

Alembic is configured here in code, so migrating needs no ``alembic.ini`` and works the same
from a checkout and after ``pip install``. Upgrading an up-to-date database does nothing.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util.exc import CommandError
from filelock import FileLock, Timeout
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from core.errors import LockedError, StoreError
from db.engine import STORE_BUSY, describe_url, is_lock_timeout, transactional_sqlite

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sqlalchemy import Connection, Engine

MIGRATIONS = Path(__file__).resolve().with_name("migrations")
# Any constant will do: it only has to be the same for every rigscout process.
PG_MIGRATION_LOCK = 0x7269_6773_636F
MIGRATION_WAIT = 600.0  # seconds another process's migration may take before we give up


def upgrade(engine: Engine, revision: str = "head", *, adopt: bool = False) -> None:
    """Migrate the database to ``revision`` in one transaction (atomic on PostgreSQL).

    Two processes migrating one database at once take turns: a PostgreSQL advisory lock, or
    a file lock next to the SQLite file; the second then finds the schema up to date.
    A SQLite file that holds another application's tables (and no rigscout revision) is
    refused unless ``adopt`` (``rigscout db upgrade --force``): a mistyped ``[database] url``
    must not add rigscout's tables to someone else's file.
    """
    with _sqlite_migration_lock(engine):
        if not adopt:
            _refuse_foreign_sqlite(engine)
        _upgrade(engine, revision)


def _refuse_foreign_sqlite(engine: Engine) -> None:
    if engine.dialect.name != "sqlite":
        return
    try:
        with engine.connect() as conn:
            names = [
                row[0]
                for row in conn.execute(
                    text("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
                )
                if not str(row[0]).startswith("sqlite_")
            ]
    except DBAPIError:
        return  # not readable as SQLite: the migration says why
    if names and "alembic_version" not in names:
        shown = ", ".join(names[:5]) + (", …" if len(names) > 5 else "")
        raise StoreError(
            f"{describe_url(engine.url)} holds another application's tables ({shown}) and no "
            "rigscout schema: point [database] url at a new file, or run "
            "`rigscout db upgrade --force` to add rigscout's tables to it anyway"
        )


@contextlib.contextmanager
def _sqlite_migration_lock(engine: Engine) -> Iterator[None]:
    database = engine.url.database
    if engine.dialect.name != "sqlite" or not database or database == ":memory:":
        yield
        return
    lock = FileLock(database + ".migrate.lock")
    try:
        lock.acquire(timeout=MIGRATION_WAIT)
    except Timeout as exc:
        raise StoreError(
            f"Cannot migrate database {describe_url(engine.url)}: another process has been "
            f"migrating it for {MIGRATION_WAIT:g}s (lock file {lock.lock_file})."
        ) from exc
    try:
        yield
    finally:
        lock.release()


def _upgrade(engine: Engine, revision: str) -> None:
    # On SQLite the driver commits before every CREATE and ALTER: a kill midway left a store
    # no command could open ("duplicate column name"). A transactional engine makes the whole
    # upgrade one transaction there, as it is on PostgreSQL.
    on_file = engine.dialect.name == "sqlite" and engine.url.database not in (None, "", ":memory:")
    migrating = transactional_sqlite(engine) if on_file else engine
    try:
        with migrating.begin() as conn:
            if conn.dialect.name == "postgresql":
                # Two processes starting at once must not both create the tables.
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": PG_MIGRATION_LOCK})
            command.upgrade(alembic_config(conn), revision)
    except CommandError as exc:
        raise StoreError(
            f"Cannot migrate database {describe_url(engine.url)} to {revision!r}: "
            f"{_first_line(exc)} (was it written by a newer rigscout?)."
        ) from exc
    except DBAPIError as exc:
        if is_lock_timeout(exc):
            where = describe_url(engine.url)
            raise LockedError(f"Cannot open database {where}: {STORE_BUSY}") from exc
        raise StoreError(
            f"Cannot migrate database {describe_url(engine.url)} to {revision!r}: "
            f"{_first_line(exc)}."
        ) from exc
    finally:
        if migrating is not engine:
            migrating.dispose()


def current_revision(engine: Engine) -> str | None:
    """The revision the database is at, or None for a database never migrated."""
    try:
        with engine.connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()
    except DBAPIError as exc:
        raise StoreError(
            f"Cannot read the schema revision of {describe_url(engine.url)}: {_first_line(exc)}."
        ) from exc


def head_revision() -> str:
    """The newest revision this version of rigscout knows."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise StoreError(f"No migrations found in {MIGRATIONS}; the installation is incomplete.")
    return head


def alembic_config(connection: Connection | None = None) -> Config:
    """An Alembic Config pointing at the packaged migrations, running on ``connection``."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    config.attributes["connection"] = connection
    return config


def _first_line(exc: Exception) -> str:
    source = exc.orig if isinstance(exc, DBAPIError) else exc
    lines = [line.strip() for line in str(source).splitlines() if line.strip()]
    return (lines[0] if lines else type(source).__name__).rstrip(".")
