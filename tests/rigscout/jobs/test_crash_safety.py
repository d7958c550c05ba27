"""A run killed at any point (kill -9) leaves the database consistent; the next run completes it."""

from __future__ import annotations

import signal
import time

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.engine import open_engine
from db.models import ListingRow, ObservationRow, RunRow, SaleRow
from tests.support.cli import (
    collector_config,
    count,
    engine_url,
    rigscout_process,
    serve_demo_pages,
    write_config,
)
from tests.support.fake_ebay import FakeEbay


def snapshot(engine) -> tuple[int, int, int]:
    return count(engine, ListingRow), count(engine, ObservationRow), count(engine, SaleRow)


def wait_until_running(engine, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with Session(engine) as session:
            if session.scalars(select(RunRow).where(RunRow.status == "running")).first():
                return
        time.sleep(0.05)
    raise AssertionError("the run never started")


def run_to_end(config) -> None:
    proc = rigscout_process(["--config", str(config), "run", "--no-alerts"])
    _, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 0, stderr


@pytest.mark.slow
@pytest.mark.parametrize("kill_after", [0.3, 1.5, 3.0])
def test_a_killed_run_is_completed_by_the_next_one(engine, tmp_path, kill_after):
    with FakeEbay() as fake:
        serve_demo_pages(fake)
        extra = collector_config(fake.base_url, rate=6.0)  # a run takes several seconds
        config = write_config(tmp_path, engine_url(engine), extra=extra)

        victim = rigscout_process(["--config", str(config), "run", "--no-alerts"])
        wait_until_running(engine)
        time.sleep(kill_after)
        victim.send_signal(signal.SIGKILL)
        victim.wait(timeout=10)
        assert victim.returncode == -signal.SIGKILL, "the run ended before it could be killed"

        with Session(engine) as session:
            orphans = session.scalars(
                select(ObservationRow.id).outerjoin(ListingRow).where(ListingRow.id.is_(None))
            ).all()
        assert orphans == []
        before = snapshot(engine)

        run_to_end(config)
        after = snapshot(engine)

        clean_db = tmp_path / "clean.db"
        run_to_end(write_config(tmp_path / "clean", f"sqlite:///{clean_db}", extra=extra))

    assert all(a >= b for a, b in zip(after, before, strict=True)), "data was lost"
    clean = open_engine(f"sqlite:///{clean_db}")
    assert after == snapshot(clean), "the completed run differs from one clean run"
    clean.dispose()
    with Session(engine) as session:
        statuses = set(session.scalars(select(RunRow.status)))
    assert "running" not in statuses and "interrupted" in statuses
