"""open_engine: a working connection, or one clear sentence saying which database and why not."""

from __future__ import annotations

import os
import socket
import sqlite3
import threading

import pytest
from sqlalchemy import text

from core.errors import StoreError
from db.engine import open_engine


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_sqlite_creates_missing_directories(tmp_path):
    path = tmp_path / "data" / "rigscout" / "rigscout.db"

    engine = open_engine(f"sqlite:///{path}")
    engine.dispose()

    assert path.exists()


@pytest.mark.parametrize(
    ("pragma", "expected"),
    [("journal_mode", "wal"), ("foreign_keys", 1), ("busy_timeout", 15000)],
)
def test_sqlite_connections_are_configured(tmp_path, pragma, expected):
    engine = open_engine(f"sqlite:///{tmp_path / 'rigscout.db'}")
    with engine.connect() as conn:
        assert conn.execute(text(f"PRAGMA {pragma}")).scalar() == expected
    engine.dispose()


def test_a_sqlite_file_another_connection_is_creating_is_opened_once_it_commits(tmp_path):
    """A brand-new file still in rollback-journal mode while another process writes its first
    tables: SQLite refuses the switch to WAL at once ("database is locked"), so opening waits
    for the writer as the busy timeout would instead of failing."""
    path = tmp_path / "new.db"
    creator = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    creator.execute("BEGIN IMMEDIATE")
    creator.execute("CREATE TABLE listings (id INTEGER)")
    committer = threading.Timer(0.5, creator.execute, ["COMMIT"])
    committer.start()

    engine = open_engine(f"sqlite:///{path}")
    committer.join()
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("SELECT count(*) FROM listings")).scalar() == 0
    engine.dispose()
    creator.close()


AS_ROOT = os.geteuid() == 0


@pytest.mark.parametrize(
    ("layout", "reason"),
    [
        ("parent is a file", "blocker is not a directory"),
        ("database is a directory", "blocker is a directory"),
        pytest.param(
            "directory is read-only",
            "blocker is not writable",
            marks=pytest.mark.skipif(AS_ROOT, reason="root may write anywhere"),
        ),
    ],
)
def test_an_unusable_sqlite_path_is_a_store_error(tmp_path, layout, reason):
    blocker = tmp_path / "blocker"
    path = blocker / "rigscout.db"
    if layout == "parent is a file":
        blocker.write_text("not a directory")
    elif layout == "database is a directory":
        blocker.mkdir()
        path = blocker
    else:
        blocker.mkdir(mode=0o500)

    with pytest.raises(StoreError) as caught:
        open_engine(f"sqlite:///{path}")

    message = str(caught.value)
    assert message == f"Cannot open database sqlite:///{path}: {tmp_path}/{reason}."


def test_postgres_with_nothing_listening_is_a_store_error_without_the_password():
    port = free_port()

    with pytest.raises(StoreError) as caught:
        open_engine(f"postgresql://scout:s3cr3t-pw@127.0.0.1:{port}/rigscout")

    message = str(caught.value)
    assert message.startswith(
        f"Cannot open database postgresql+psycopg://scout:***@127.0.0.1:{port}/rigscout: "
    )
    assert "s3cr3t-pw" not in message
    assert "refused" in message.lower()
    assert "\n" not in message
    assert message.endswith(".")


def test_a_missing_postgres_database_is_named(pg_database):
    missing = pg_database.rsplit("/", 1)[0] + "/no_such_database"

    with pytest.raises(StoreError, match='database "no_such_database" does not exist'):
        open_engine(missing)


def test_plain_postgresql_urls_use_psycopg(pg_database):
    plain = pg_database.replace("postgresql+psycopg://", "postgresql://")

    engine = open_engine(plain)
    engine.dispose()

    assert engine.url.drivername == "postgresql+psycopg"


@pytest.mark.parametrize("url", ["not a url", "mysql://u@h/db", "postgresql+nosuchdriver://u@h/db"])
def test_a_url_that_is_not_usable_is_a_store_error(url):
    with pytest.raises(StoreError, match="Cannot open database"):
        open_engine(url)
