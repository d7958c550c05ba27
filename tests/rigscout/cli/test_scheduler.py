"""The daemon: runs the job from its persistent job store, logs each run, stops on SIGTERM."""

from __future__ import annotations

import signal
import threading
import time

from sqlalchemy import inspect, select
from sqlalchemy.orm import Session

from db.models import RunRow
from tests.support.cli import DEMO, engine_url, rigscout_process, write_config


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
    # It says when the next daily run is due, at start and after each run.
    assert stderr.count("next daily run: ") >= 2
    assert "scheduler stopped" in stderr
    # The daily job is kept in the database's job store for the next start.
    assert "apscheduler_jobs" in inspect(engine).get_table_names()


def _daemon_running(engine) -> bool:
    from core.errors import LockedError
    from db.lock import daemon_lock

    try:
        with daemon_lock(engine, grace=0):  # an instant's check, never waiting on the daemon
            return False
    except LockedError:
        return True


def test_a_second_daemon_on_the_same_database_refuses_with_exit_3(engine, tmp_path):
    config = write_config(tmp_path, engine_url(engine))
    first = rigscout_process(["--config", str(config), "schedule"])
    try:
        deadline = time.monotonic() + 60
        while not _daemon_running(engine) and time.monotonic() < deadline:
            assert first.poll() is None, first.communicate()[1]
            time.sleep(0.1)
        second = rigscout_process(["--config", str(config), "schedule"])
        _, stderr = second.communicate(timeout=60)
        assert second.returncode == 3, stderr
        (line,) = stderr.strip().splitlines()
        assert "another `rigscout schedule` daemon is already running on this database" in line
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=30)
    assert first.returncode == 0
    assert not _daemon_running(engine)  # released on the way out


def test_sigterm_while_a_run_waits_for_the_lock_skips_the_run(engine, tmp_path, monkeypatch):
    import threading

    from db.lock import run_lock
    from rigscout.cli import scheduler

    config = write_config(tmp_path, engine_url(engine))
    monkeypatch.setattr(scheduler, "STOPPING", threading.Event())
    results: list[int] = []
    with run_lock(engine):  # a fast-lane pass, say, holds the run lock
        job = threading.Thread(target=lambda: results.append(scheduler.scheduled_run(str(config))))
        job.start()
        time.sleep(0.5)  # the job has found the lock taken and is waiting to retry
        scheduler.STOPPING.set()  # what the SIGTERM handler does
        job.join(timeout=10)
    assert results == [0]
    with Session(engine) as session:  # and no run was started after the signal
        assert session.scalars(select(RunRow)).all() == []


def test_the_next_daily_run_is_named_in_the_users_time_zone(engine, tmp_path):
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from rigscout.cli.scheduler import build_scheduler, next_run_line
    from rigscout.config.load import load_settings

    config = tmp_path / "rigscout.toml"
    config.write_text(
        f'[database]\nurl = "{engine_url(engine)}"\n'
        '[schedule]\ncron = "0 6 * * *"\ntimezone = "Europe/Berlin"\n',
        encoding="utf-8",
    )
    settings = load_settings(config, {})
    scheduler = build_scheduler(settings, engine, config_path=None)
    evening = datetime(2026, 11, 27, 21, 30, tzinfo=ZoneInfo("Europe/Berlin"))

    assert (
        next_run_line(scheduler, evening) == "next daily run: 2026-11-28 06:00 CET (in 8 h 30 min)"
    )


def test_repeated_ctrl_c_and_a_ctrl_c_at_start_up_end_the_daemon_without_a_traceback(tmp_path):
    """Two quick SIGINTs (an impatient Ctrl-C, Ctrl-C), or `timeout -s TERM` twice: the
    first stops the daemon, the second is told to wait; and a Ctrl-C while it is still
    starting ends it with one line. Never a traceback."""
    config = write_config(tmp_path, f"sqlite:///{tmp_path / 'r.db'}")
    for signum, gap in ((signal.SIGINT, 0), (signal.SIGINT, 0.02), (signal.SIGTERM, 0.1)):
        proc = rigscout_process(["-v", "--config", str(config), "schedule"])
        # Its signal handlers are in place once it says so (on a loaded machine its start-up,
        # the store's migrations included, can take seconds after the daemon lock is taken).
        rest = _stderr_after(proc, "scheduler starting")
        time.sleep(0.5)  # the scheduler's loop is running
        proc.send_signal(signum)
        time.sleep(gap)
        proc.send_signal(signum)
        stderr = rest()
        assert proc.returncode == 0, stderr
        assert "Traceback" not in stderr and "Error" not in stderr, stderr
        assert "scheduler stopped" in stderr
    for delay in (0.3, 0.6, 0.9, 1.2):  # from our first import to the scheduler's start
        proc = rigscout_process(["--config", str(config), "schedule"])
        time.sleep(delay)
        proc.send_signal(signal.SIGINT)
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
        assert "Traceback" not in stderr, (delay, stderr)
        assert proc.returncode in (0, 130), (delay, stderr)


def _stderr_after(proc, text: str):
    """Wait until ``proc`` writes a line with ``text`` to stderr (or ends, or a minute
    passes); the function returned waits for the process to end and gives all of stderr."""
    lines: list[str] = []
    seen = threading.Event()

    def pump() -> None:
        for line in proc.stderr:
            lines.append(line)
            if text in line:
                seen.set()
        seen.set()

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    seen.wait(60)

    def rest() -> str:
        proc.wait(timeout=60)
        reader.join(timeout=10)
        return "".join(lines)

    return rest
