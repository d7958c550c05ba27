"""Open the database: a SQLite file (the default) or PostgreSQL through psycopg 3.

SQLite gets WAL, foreign keys and a busy timeout on every connection; a plain ``postgresql://``
URL is rewritten to the psycopg driver. Any failure becomes one ``StoreError`` sentence that
names the database with its password masked.
"""

from __future__ import annotations

import os
import sqlite3
import time
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError
from sqlalchemy.pool import NullPool

from core.errors import StoreError

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sqlalchemy import Connection, Engine
    from sqlalchemy.orm import Session

SQLITE_BUSY_TIMEOUT_MS = 15_000
PG_CONNECT_TIMEOUT_S = 5


STORE_BUSY = (
    "another process kept the store locked for longer than rigscout waits (a rigscout run "
    "writing it? `rigscout runs` shows one still running); try again when it ends"
)


def is_lock_timeout(exc: BaseException) -> bool:
    """A write that gave up waiting for another transaction's lock (SQLite's busy timeout,
    PostgreSQL's lock timeout)."""
    text = str(getattr(exc, "orig", None) or exc)
    return "database is locked" in text or "lock timeout" in text


def open_engine(url: str, *, reading: bool = False) -> Engine:
    """An Engine on ``url`` whose database has been reached once, or a StoreError saying why not.

    ``reading``: the caller only reads, so a SQLite file that cannot be written (a read-only
    file, folder or mount, a backup's copy) is opened read-only instead of refused."""
    parsed = _parse_url(url)
    if parsed.get_backend_name() not in ("sqlite", "postgresql"):
        raise StoreError(
            f"Cannot open database {describe_url(parsed)}: rigscout stores to SQLite "
            "(sqlite:///path) or PostgreSQL (postgresql://user@host/dbname) only."
        )
    if parsed.get_backend_name() == "sqlite":
        path = sqlite_file(parsed)
        if reading and path is not None and path.is_file() and not _writable(path):
            return _open_sqlite_read_only(parsed, path)
        engine = _open_sqlite(parsed)
    else:
        engine = _create(parsed, connect_args={"connect_timeout": PG_CONNECT_TIMEOUT_S})
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except DBAPIError as exc:
        engine.dispose()
        raise StoreError(
            f"Cannot open database {describe_url(parsed)}: {_reason(exc, parsed)}."
        ) from exc
    return engine


def describe_url(url: URL | str) -> str:
    """The URL as it can be shown to a user: the password is replaced by ``***``."""
    parsed = make_url(url) if isinstance(url, str) else url
    return parsed.render_as_string(hide_password=True)


def _parse_url(url: str) -> URL:
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise StoreError(
            "Cannot open database: the URL is not a database URL (expected "
            "sqlite:///path/to/file.db or postgresql://user@host/dbname)."
        ) from exc
    if parsed.drivername in ("postgresql", "postgres", "postgresql+psycopg2"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def _create(url: URL, **kwargs: Any) -> Engine:
    try:
        return create_engine(url, pool_pre_ping=True, **kwargs)
    except (ArgumentError, NoSuchModuleError, ImportError) as exc:
        raise StoreError(
            f"Cannot open database {describe_url(url)}: unsupported driver {url.drivername!r}."
        ) from exc


def _open_sqlite(url: URL) -> Engine:
    path = sqlite_file(url)
    if path is not None:
        _prepare_sqlite_dir(url, path)
    engine = _create(url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000})
    event.listen(engine, "connect", _configure_sqlite_connection)
    return engine


def sqlite_file(url: URL | str) -> Path | None:
    """The file of a SQLite URL (``sqlite:///path``); None for another database, an in-memory
    one or a ``file:`` URI (which names its own way of opening the file). A string that is not
    a database URL is a ``StoreError``."""
    parsed = _parse_url(url) if isinstance(url, str) else url
    database = parsed.database
    if parsed.get_backend_name() != "sqlite" or not database:
        return None
    if database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database).expanduser()


def _writable(path: Path) -> bool:
    """Whether SQLite can write the file: the file, and its folder for the WAL's files."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def _open_sqlite_read_only(url: URL, path: Path) -> Engine:
    """The file opened with SQLite's read-only mode; where its folder cannot be written either
    (no WAL index can be made), as immutable: the store is read as it is on disk."""
    timeout = SQLITE_BUSY_TIMEOUT_MS / 1000
    for flags in ("mode=ro", "immutable=1"):
        uri = f"file:{quote(str(path.resolve()))}?{flags}"
        engine = create_engine(  # the file's own URL, for messages and its lock's path
            url,
            creator=lambda uri=uri: sqlite3.connect(uri, uri=True, timeout=timeout),
            poolclass=NullPool,
        )
        try:
            with engine.connect() as conn:
                conn.execute(text("SELECT count(*) FROM sqlite_master"))
        except DBAPIError as exc:
            engine.dispose()
            last = exc
            continue
        return engine
    raise StoreError(f"Cannot open database {describe_url(url)}: {_reason(last, url)}.")


@contextmanager
def without_waiting(session: Session, *, lock_wait_ms: int = 100) -> Iterator[None]:
    """Within the block, a lock another transaction holds fails the statement at once (in
    ``lock_wait_ms``) instead of after the busy timeout: for writes that only keep a cache,
    which a reader can do without. PostgreSQL: for the block's transaction."""
    conn = session.connection()
    if conn.dialect.name != "sqlite":
        conn.exec_driver_sql(f"SET LOCAL lock_timeout = '{max(lock_wait_ms, 1)}ms'")  # 0: none
        yield
        return
    raw = conn.connection.dbapi_connection  # the same one after a commit hands it back
    assert raw is not None
    raw.execute(f"PRAGMA busy_timeout={lock_wait_ms}")
    try:
        yield
    finally:
        with suppress(sqlite3.Error):
            raw.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")


def transactional_sqlite(engine: Engine) -> Engine:
    """A second engine on ``engine``'s SQLite file whose transactions hold DDL too: the
    driver's own transaction handling (which commits before a CREATE or ALTER) is off, and
    each transaction starts with ``BEGIN IMMEDIATE``. A migration run in one is all or
    nothing: a kill midway leaves the schema as it was. The caller disposes of it."""
    transactional = _create(
        engine.url,
        connect_args={"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
        poolclass=NullPool,
    )
    event.listen(transactional, "connect", _configure_sqlite_connection)
    event.listen(transactional, "connect", _driver_leaves_transactions_to_us)
    event.listen(transactional, "begin", _begin_immediate)
    return transactional


def _driver_leaves_transactions_to_us(dbapi_connection: Any, _record: object) -> None:
    dbapi_connection.isolation_level = None


def _begin_immediate(connection: Connection) -> None:
    connection.exec_driver_sql("BEGIN IMMEDIATE")


def _prepare_sqlite_dir(url: URL, path: Path) -> None:
    problem = None
    if path.is_dir():
        problem = f"{path} is a directory"
    elif path.parent.exists() and not path.parent.is_dir():
        problem = f"{path.parent} is not a directory"
    elif path.exists() and not os.access(path, os.W_OK):
        problem = f"the file {path} is read-only"
    else:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            problem = f"cannot create the directory {path.parent} ({exc.strerror or exc})"
    if problem is None and not os.access(path.parent, os.W_OK):
        problem = f"the directory {path.parent} is not writable"
    if problem:
        raise StoreError(f"Cannot open database {describe_url(url)}: {problem}.")


def _configure_sqlite_connection(dbapi_connection: Any, _record: object) -> None:
    cursor = dbapi_connection.cursor()
    try:
        _switch_to_wal(cursor)
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
    finally:
        cursor.close()


def _switch_to_wal(cursor: sqlite3.Cursor) -> None:
    """``PRAGMA journal_mode=WAL``, waiting as a busy timeout would: switching the journal
    needs the file to itself and SQLite answers "database is locked" at once, without its busy
    handler, while another connection holds a write transaction (another run creating a
    brand-new database, say)."""
    deadline = time.monotonic() + SQLITE_BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if not is_lock_timeout(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(0.05)


def _reason(exc: DBAPIError, url: URL) -> str:
    """The driver's first line of explanation, without trailing punctuation or the password."""
    lines = [line.strip() for line in str(exc.orig).splitlines() if line.strip()]
    reason = " ".join((lines[0] if lines else type(exc.orig).__name__).split())
    if url.password:
        reason = reason.replace(str(url.password), "***")
    return reason.rstrip(".")
