"""Read-only commands never create anything: on a database rigscout has not initialised they
say so, point to ``rigscout init``, and leave no file, table or directory behind."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, inspect

from rigscout.cli.main import cli
from tests.support.db import throwaway_pg_database

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

READ_ONLY = [
    ["rank"],
    ["rank", "--json"],
    ["runs"],
    ["runs", "--json"],
    ["export", "prices"],
    ["export", "listings"],
    ["chart", "history", "nvidia-tesla-p40"],
    ["chart", "value"],
    ["catalog", "unmatched"],
]


@pytest.fixture
def blank_pg() -> Iterator[str]:
    """A PostgreSQL database that exists but that rigscout has never touched."""
    yield from throwaway_pg_database("rigscout_blank")


def invoke(config: Path, args: list[str]):
    return CliRunner().invoke(cli, ["--config", str(config), *args])


@pytest.mark.parametrize("args", READ_ONLY, ids=" ".join)
def test_a_missing_sqlite_file_is_not_created(tmp_path: Path, args: list[str]):
    database = tmp_path / "data" / "rigscout.db"
    config = tmp_path / "rigscout.toml"
    config.write_text(f'[database]\nurl = "sqlite:///{database}"\n')
    result = invoke(config, args)
    assert result.exit_code == 2
    assert "no rigscout database at" in result.output and "run `rigscout init`" in result.output
    assert not database.parent.exists()


@pytest.mark.postgres
def test_an_uninitialised_postgres_database_gets_no_tables(tmp_path: Path, blank_pg: str):
    config = tmp_path / "rigscout.toml"
    config.write_text(f'[database]\nurl = "{blank_pg}"\n')
    for args in READ_ONLY:
        result = invoke(config, args)
        assert result.exit_code == 2, result.output
        assert "run `rigscout init`" in result.output
    engine = create_engine(blank_pg)
    assert inspect(engine).get_table_names() == []
    engine.dispose()
    assert invoke(config, ["init"]).exit_code == 0
    assert invoke(config, ["runs"]).output.startswith("No runs yet")


def test_the_shipped_head_revision_is_read_like_alembic_reads_it():
    from db.migrate import head_revision
    from db.revisions import shipped_head

    assert shipped_head() == head_revision()


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory) -> Path:
    """A SQLite store holding the demo run (copied by each test that changes it)."""
    from tests.support.cli import DEMO, write_config

    base = tmp_path_factory.mktemp("demo-store")
    config = write_config(base, "sqlite:///rigscout.db")
    assert invoke(config, ["run", "--offline", str(DEMO), "--no-alerts"]).exit_code == 0
    return base / "rigscout.db"


def store_copy(demo_store: Path, folder: Path) -> Path:
    """The demo store in ``folder`` with a config beside it; returns the config."""
    import shutil

    from tests.support.cli import write_config

    folder.mkdir()
    shutil.copy(demo_store, folder / "rigscout.db")
    return write_config(folder, "sqlite:///rigscout.db")


def answers(config: Path) -> tuple[str, str, str]:
    rank = invoke(config, ["rank", "--json", "--limit", "30"])
    plan = invoke(config, ["plan", "--vram", "64", "--json", "--limit", "3"])
    report = invoke(config, ["report", "-o", str(config.parent / "site")])
    for result in (rank, plan, report):
        assert result.exit_code == 0, result.output
    return rank.output, plan.output, report.output


def make_read_only(paths: list[Path]) -> Callable[[], None]:
    """The files and folders made unwritable, as root too (chattr +i); returns the undo."""
    import os
    import subprocess

    if os.geteuid() != 0:
        for path in paths:
            path.chmod(0o555 if path.is_dir() else 0o444)
        return lambda: [p.chmod(0o755) for p in paths] and None
    done = subprocess.run(["chattr", "+i", *map(str, paths)], capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot make a file read-only as root here: {done.stderr.decode().strip()}")
    return lambda: subprocess.run(["chattr", "-i", *map(str, paths)], check=True) and None


@pytest.mark.parametrize("folder_too", [False, True], ids=["file", "file-and-folder"])
def test_a_read_only_store_is_ranked_planned_and_reported_in_full(
    demo_store: Path, tmp_path: Path, folder_too: bool
):
    expected = answers(store_copy(demo_store, tmp_path / "writable"))
    config = store_copy(demo_store, tmp_path / "read-only")
    database = config.parent / "rigscout.db"
    site = config.parent / "site"
    site.mkdir()
    undo = make_read_only([database, *([config.parent] if folder_too else [])])
    try:
        rank, plan, report = answers(config)
    finally:
        undo()
    assert rank == expected[0] and plan == expected[1]
    assert report.startswith("Wrote ")


def test_a_store_a_run_is_writing_is_read_without_waiting_out_the_busy_timeout(
    demo_store: Path, tmp_path: Path
):
    """Another process holds SQLite's write lock (as a run saving a search does): the
    reading commands give the same answers at once, keeping nothing for next time."""
    import sqlite3
    import time

    config = store_copy(demo_store, tmp_path / "busy")
    expected = answers(config)
    writer = sqlite3.connect(config.parent / "rigscout.db", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE listings SET title = title WHERE id = 1")
    try:
        started = time.monotonic()
        got = answers(config)
        waited = time.monotonic() - started
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert got[:2] == expected[:2]
    assert waited < 12  # three commands; the busy timeout alone is 15 s each


def test_a_write_on_a_locked_store_says_what_holds_it_and_what_to_do(
    demo_store: Path, tmp_path: Path, monkeypatch
):
    import sqlite3

    import db.engine

    monkeypatch.setattr(db.engine, "SQLITE_BUSY_TIMEOUT_MS", 200)
    config = store_copy(demo_store, tmp_path / "locked")
    writer = sqlite3.connect(config.parent / "rigscout.db", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        result = invoke(config, ["ignore", "--seller", "someone"])
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert result.exit_code == 3, result.output
    assert "another process kept the store locked" in result.output, result.output
    assert "`rigscout runs`" in result.output
