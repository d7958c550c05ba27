"""Two runs started together on a brand-new SQLite database: the lock is taken before migrating,
so the second gets the lock message and exit code 3, never "table … already exists"."""

from __future__ import annotations

import time

import pytest
from click.testing import CliRunner
from sqlalchemy import create_engine, inspect

from db.lock import run_lock
from rigscout.cli.main import cli
from tests.support.cli import (
    DEMO,
    collector_config,
    rigscout_process,
    serve_demo_pages,
    write_config,
)
from tests.support.fake_ebay import FakeEbay


@pytest.mark.slow
def test_two_runs_on_a_brand_new_sqlite_file_one_runs_the_other_gets_the_lock_message(tmp_path):
    database = tmp_path / "new.db"
    assert not database.exists()
    with FakeEbay() as ebay:
        serve_demo_pages(ebay)
        ebay.slow_next(90.0)  # whoever gets the lock keeps it until the other has finished
        config = write_config(
            tmp_path, f"sqlite:///{database}", collector_config(ebay.base_url, 50.0)
        )
        args = ["--config", str(config), "run", "--no-alerts", "--search", "p40"]
        runs = [rigscout_process(args) for _ in range(2)]
        while all(run.poll() is None for run in runs):
            time.sleep(0.1)
        ebay.release()
        outputs = [run.communicate(timeout=120) for run in runs]

    codes = sorted(run.returncode for run in runs)
    errors = "\n".join(stderr for _, stderr in outputs)
    assert codes == [0, 3], errors  # 3: another run holds the lock (README, exit codes)
    assert "another rigscout run is using this database" in errors
    assert "already exists" not in errors
    assert "Traceback" not in errors


def test_a_run_that_does_not_get_the_lock_leaves_a_new_database_untouched(tmp_path):
    """The loser never starts migrating, so it cannot collide with the winner's migration."""
    database = tmp_path / "new.db"
    config = write_config(tmp_path, f"sqlite:///{database}")
    engine = create_engine(f"sqlite:///{database}")
    with run_lock(engine):  # the first run, still starting up
        result = CliRunner().invoke(cli, ["--config", str(config), "run", "--offline", str(DEMO)])
    assert result.exit_code == 3  # another run holds the lock
    assert "another rigscout run is using this database" in result.output
    assert not database.exists() or inspect(engine).get_table_names() == []
    engine.dispose()
