"""A copy of the store that is safe to take while rigscout runs.

SQLite: the library's online backup (``sqlite3.Connection.backup``) copies the database page by
page under its own read lock, so a copy taken during a run is the database as it was between
two transactions, never half of one (a file copy of a WAL database can be). PostgreSQL: the
right tool is ``pg_dump``, which rigscout does not wrap; ``pg_dump_command`` says how to call it
for the configured database, without its password.
"""

from __future__ import annotations

import shlex
import sqlite3
from contextlib import closing
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy.engine import make_url

from core.errors import StoreError
from db.engine import sqlite_file

if TYPE_CHECKING:
    from pathlib import Path

PAGES_PER_STEP = 1024  # the copy yields to writers between steps


@dataclass(frozen=True, slots=True)
class Backup:
    path: Path
    size_bytes: int


def backup_sqlite(url: str, target: Path, *, overwrite: bool = False) -> Backup:
    """Copy the SQLite database at ``url`` to ``target`` (a new file) with the online backup."""
    source = sqlite_file(url)
    if source is None:
        raise StoreError("db backup copies a SQLite database; for PostgreSQL use pg_dump")
    if not source.is_file():
        raise StoreError(f"there is no database at {source} to back up")
    if target.exists() and not overwrite:
        raise StoreError(f"{target} exists; name a new file or pass --force")
    if not target.parent.is_dir():
        raise StoreError(f"cannot write {target}: {target.parent} is not a folder")
    if target.resolve() == source.resolve():
        raise StoreError(f"{target} is the database itself; name another file")
    partial = target.with_name(f".{target.name}.partial")
    try:
        partial.unlink(missing_ok=True)
        with (
            closing(sqlite3.connect(f"file:{source}?mode=ro", uri=True)) as src,
            closing(sqlite3.connect(partial)) as dst,
        ):
            src.backup(dst, pages=PAGES_PER_STEP)
        partial.replace(target)  # a kill midway leaves no half copy under the name asked for
    except (OSError, sqlite3.Error) as exc:
        partial.unlink(missing_ok=True)
        raise StoreError(f"backup to {target} failed: {exc}") from None
    return Backup(target, target.stat().st_size)


def pg_dump_command(url: str, target: str) -> str:
    """The ``pg_dump`` line that backs up the PostgreSQL database at ``url`` to ``target`` in
    its custom format (restore with ``pg_restore``); the password is left to ``PGPASSWORD`` or
    ``~/.pgpass``, never written on a command line."""
    parsed = make_url(url)
    parts = ["pg_dump", "--format=custom", f"--file={target}"]
    if parsed.host:
        parts.append(f"--host={parsed.host}")
    if parsed.port:
        parts.append(f"--port={parsed.port}")
    if parsed.username:
        parts.append(f"--username={parsed.username}")
    parts.append(parsed.database or "postgres")
    return shlex.join(parts)
