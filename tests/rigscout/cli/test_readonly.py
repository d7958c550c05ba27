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
    from collections.abc import Iterator
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
