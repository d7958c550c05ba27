"""A run killed at any point (kill -9) leaves the database consistent; the next run completes it."""

from __future__ import annotations

import signal
import time

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.models import ListingRow, ObservationRow, RunRow, SaleRow
from tests.rigscout.helpers import DEMO, count, engine_url, rigscout_process, write_config


def snapshot(engine) -> tuple[int, int, int]:
    return count(engine, ListingRow), count(engine, ObservationRow), count(engine, SaleRow)


@pytest.mark.slow
@pytest.mark.parametrize("kill_after", [0.8, 1.6, 2.4])
def test_a_killed_run_is_completed_by_the_next_one(engine, tmp_path, kill_after):
    config = write_config(tmp_path, engine_url(engine))
    args = ["--config", str(config), "run", "--offline", str(DEMO), "--no-alerts"]

    victim = rigscout_process(args)
    time.sleep(kill_after)
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=10)

    listings, observations, sales = snapshot(engine)
    with Session(engine) as session:
        orphans = session.scalars(
            select(ObservationRow.id).outerjoin(ListingRow).where(ListingRow.id.is_(None))
        ).all()
    assert orphans == []

    follow_up = rigscout_process(args)
    _, stderr = follow_up.communicate(timeout=120)
    assert follow_up.returncode == 0, stderr
    after = snapshot(engine)
    assert after[0] >= listings and after[1] >= observations and after[2] >= sales

    # The result equals one clean run from scratch: nothing lost, nothing doubled.
    clean_config = write_config(tmp_path / "clean", f"sqlite:///{tmp_path / 'clean.db'}")
    reference = rigscout_process(["--config", str(clean_config), *args[2:]])
    reference.communicate(timeout=120)
    from db.engine import open_engine

    clean = open_engine(f"sqlite:///{tmp_path / 'clean.db'}")
    assert after == snapshot(clean)
    clean.dispose()
    with Session(engine) as session:
        statuses = sorted(session.scalars(select(RunRow.status)))
    assert "running" not in statuses
