"""One run at a time: a PostgreSQL advisory lock, or a file lock next to the SQLite file.

A second run started while one is going (cron overlap, cron plus the daemon) either waits
for the first (``wait=True``) or stops at once with ``LockedError``.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import TYPE_CHECKING

from filelock import FileLock, Timeout
from sqlalchemy import text

from core.errors import LockedError

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sqlalchemy import Connection, Engine
    from sqlalchemy.orm import Session

# How long a starting daemon waits for the daemon lock before refusing: long enough for a
# check that holds it an instant, far shorter than any daemon's life.
DAEMON_GRACE = 2.0
# Arbitrary constants shared by every rigscout process using the same database.
ADVISORY_KEY = 0x72696773  # "rigs": one run at a time
DAEMON_KEY = 0x72696764  # "rigd": one `rigscout schedule` daemon at a time
SAVE_KEY = 0x72696777  # "rigw": one save at a time (``save_in_turn``)


@contextlib.contextmanager
def run_lock(engine: Engine, *, wait: bool = False, timeout: float = 6 * 3600) -> Iterator[None]:
    """Hold the database's run lock for the duration of the block."""
    if engine.dialect.name == "postgresql":
        with _advisory_lock(engine, wait=wait):
            yield
        return
    with _file_lock(_lock_path(engine), wait=wait, timeout=timeout):
        yield


def _lock_path(engine: Engine) -> Path:
    database = engine.url.database
    if not database or database == ":memory:":
        return Path.cwd() / ".rigscout-memory.lock"
    return Path(database + ".lock")


@contextlib.contextmanager
def _file_lock(
    path: Path, *, wait: bool, timeout: float, busy: str | None = None
) -> Iterator[None]:
    lock = FileLock(str(path))
    try:
        lock.acquire(timeout=timeout if wait else 0)
    except Timeout as exc:
        if busy is not None:
            raise LockedError(f"{busy} (lock file {path}); stop it first") from exc
        raise LockedError(
            f"another rigscout run is using this database (lock file {path}); "
            "it will exit on its own — try again later or pass --wait"
        ) from exc
    try:
        yield
    finally:
        lock.release()


@contextlib.contextmanager
def daemon_lock(engine: Engine, *, grace: float = DAEMON_GRACE) -> Iterator[None]:
    """Hold the database's daemon lock while ``rigscout schedule`` runs: a second daemon on the
    same database would run every job twice, so it is refused (``LockedError``) — after
    ``grace`` seconds, so that a holder letting go at once (a check whether a daemon runs, a
    daemon stopping) does not turn a daemon away."""
    busy = "another `rigscout schedule` daemon is already running on this database"
    if engine.dialect.name == "postgresql":
        with _advisory_lock(engine, wait=False, key=DAEMON_KEY, busy=busy, grace=grace):
            yield
        return
    path = _lock_path(engine).with_suffix(".daemon.lock")
    with _file_lock(path, wait=grace > 0, timeout=grace, busy=busy):
        yield


@contextlib.contextmanager
def _advisory_lock(
    engine: Engine,
    *,
    wait: bool,
    key: int = ADVISORY_KEY,
    busy: str | None = None,
    grace: float = 0.0,
) -> Iterator[None]:
    with engine.connect() as conn:
        if wait:
            conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": key})
        elif not _try_advisory(conn, key, grace):
            raise LockedError(
                busy
                or "another rigscout run holds this database's run lock (PostgreSQL advisory "
                "lock); try again later or pass --wait"
            )
        conn.commit()
        try:
            yield
        finally:
            conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": key})
            conn.commit()


def save_in_turn(session: Session) -> None:
    """Hold the saves' lock until this transaction ends (PostgreSQL; SQLite writes one
    transaction at a time already).

    A save stamps numbers drawn past the newest committed ones (``listings.saved_seq``,
    ``sales.change_seq``) and readers keep the newest they saw as a mark. A run's collectors
    save their pages in parallel: two saves drawing at once could stamp the same number, or
    one drawn earlier could commit later, and a ranking that took its mark between their
    commits would never look at the later one's listings. In turn, a save's numbers are past
    every committed one until it commits."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": SAVE_KEY})


def _try_advisory(conn: Connection, key: int, grace: float) -> bool:
    """Take the advisory lock ``key`` without blocking, trying again for ``grace`` seconds."""
    deadline = time.monotonic() + grace
    while True:
        if conn.execute(text("SELECT pg_try_advisory_lock(:k)"), {"k": key}).scalar():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
