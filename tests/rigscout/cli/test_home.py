"""Where rigscout keeps its files: the config it finds, the database next to it, a backup of
the store, and a quiet run for cron."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from rigscout.cli.main import cli
from rigscout.config.load import resolve_config_path, user_data_database
from tests.support.cli import DEMO, rigscout_process, write_config

if TYPE_CHECKING:
    from pathlib import Path


def invoke(args: list[str], env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, args, env=env, catch_exceptions=False)


def listings_in(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT count(*) FROM listings").fetchone()[0]


def test_the_config_is_looked_for_in_the_option_the_variable_here_then_the_user_folder(
    tmp_path: Path,
):
    here, folder = tmp_path / "project", tmp_path / "xdg"
    here.mkdir()
    env = {"XDG_CONFIG_HOME": str(folder)}
    assert resolve_config_path(None, env, here) == here / "rigscout.toml"  # where init writes
    user = folder / "rigscout" / "rigscout.toml"
    user.parent.mkdir(parents=True)
    user.write_text("")
    assert resolve_config_path(None, env, here) == user
    (here / "rigscout.toml").write_text("")
    assert resolve_config_path(None, env, here) == here / "rigscout.toml"
    named = {**env, "RIGSCOUT_CONFIG": str(tmp_path / "named.toml")}
    assert resolve_config_path(None, named, here) == tmp_path / "named.toml"
    assert resolve_config_path("cli.toml", named, here).name == "cli.toml"


def test_a_config_in_the_user_folder_is_used_from_any_directory_with_its_database_beside_it(
    tmp_path: Path, monkeypatch
):
    folder = tmp_path / "xdg" / "rigscout"
    folder.mkdir(parents=True)
    (folder / "rigscout.toml").write_text("")  # an empty config: every default
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    env = {"XDG_CONFIG_HOME": str(tmp_path / "xdg"), "RIGSCOUT_CONFIG": ""}
    result = invoke(["db", "upgrade"], env=env)
    assert result.exit_code == 0, result.output
    assert (folder / "rigscout.db").is_file()  # next to the config, as the README says
    assert not (elsewhere / "rigscout.db").exists()


def test_init_after_the_demo_keeps_what_the_demo_collected(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env = {"RIGSCOUT_CONFIG": ""}
    demo = invoke(["run", "--offline", str(DEMO), "--no-alerts"], env=env)
    assert demo.exit_code == 0, demo.output
    earlier = user_data_database()
    assert earlier.is_file() and not (tmp_path / "rigscout.db").exists()
    result = invoke(["init"], env=env)
    assert result.exit_code == 0, result.output
    assert "Copied the database of your earlier runs" in result.output
    assert listings_in(tmp_path / "rigscout.db") == listings_in(earlier) > 300
    plan = invoke(["plan", "--vram", "64", "--limit", "1"], env=env)
    assert plan.exit_code == 0, plan.output
    assert "landed" in plan.output and "No listings" not in plan.output
    earlier.unlink()  # the next test's demo starts from nothing


def test_db_backup_copies_the_store_and_never_overwrites_without_force(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = write_config(tmp_path, "sqlite:///rigscout.db")
    run = invoke(["--config", str(config), "run", "--offline", str(DEMO), "--no-alerts"])
    assert run.exit_code == 0, run.output
    result = invoke(["--config", str(config), "db", "backup", "copy.db"])
    assert result.exit_code == 0, result.output
    assert "Backed up" in result.output and "copy.db" in result.output
    assert listings_in(tmp_path / "copy.db") == listings_in(tmp_path / "rigscout.db") > 300
    again = invoke(["--config", str(config), "db", "backup", "copy.db"])
    assert again.exit_code == 2 and "exists" in again.output
    forced = invoke(["--config", str(config), "db", "backup", "copy.db", "--force"])
    assert forced.exit_code == 0, forced.output
    onto_itself = invoke(["--config", str(config), "db", "backup", "rigscout.db", "--force"])
    assert onto_itself.exit_code == 2 and "the database itself" in onto_itself.output


def test_db_backup_of_postgresql_names_the_pg_dump_command_without_the_password(tmp_path):
    config = write_config(tmp_path, "postgresql+psycopg://scout:hunter2@db.local:5433/rigs")
    result = invoke(["--config", str(config), "db", "backup", "rigs.dump"])
    assert result.exit_code == 0, result.output
    assert (
        "pg_dump --format=custom --file=rigs.dump --host=db.local --port=5433 "
        "--username=scout rigs" in result.output
    )
    assert "hunter2" not in result.output


@pytest.mark.slow
def test_quiet_prints_nothing_when_all_is_well_and_everything_when_it_fails(tmp_path: Path):
    config = write_config(tmp_path, "sqlite:///rigscout.db")
    well = rigscout_process(
        ["--quiet", "--config", str(config), "run", "--offline", str(DEMO), "--no-alerts"]
    )
    out, err = well.communicate(timeout=120)
    assert well.returncode == 0 and out == "" and err == ""
    failing = rigscout_process(["-q", "--config", str(config), "rank", "--sku", "nope"])
    out, err = failing.communicate(timeout=60)
    assert failing.returncode == 2 and out == ""
    assert "Error: not a catalog SKU" in err
