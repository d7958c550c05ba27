"""The daemon: runs the job from its persistent job store, logs each run, stops on SIGTERM."""

from __future__ import annotations

import signal
import time

from sqlalchemy import inspect, select
from sqlalchemy.orm import Session

from db.models import RunRow
from tests.rigscout.helpers import DEMO, engine_url, rigscout_process, write_config


def test_schedule_runs_the_job_and_shuts_down_cleanly_on_sigterm(engine, tmp_path):
    config = write_config(tmp_path, engine_url(engine))
    proc = rigscout_process(
        ["-v", "--config", str(config), "schedule", "--run-now", "--offline", str(DEMO)]
    )
    deadline = time.monotonic() + 60
    finished = []
    while time.monotonic() < deadline and not finished:
        time.sleep(0.5)
        with Session(engine) as session:
            finished = list(session.scalars(select(RunRow).where(RunRow.finished_at.is_not(None))))
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=30)
    assert finished, stderr
    assert proc.returncode == 0, stderr
    assert "scheduled run" in stderr and "finished" in stderr
    assert "scheduler stopped" in stderr
    # The daily job is kept in the database's job store for the next start.
    assert "apscheduler_jobs" in inspect(engine).get_table_names()
