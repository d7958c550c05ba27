"""``rigscout schedule``: an APScheduler daemon that runs the daily job on a cron trigger.

The job lives in a persistent job store in rigscout's own database (table
``apscheduler_jobs``), runs coalesced (missed runs collapse into one), one instance at a time,
within ``schedule.misfire_grace_seconds``; SIGTERM and SIGINT shut it down cleanly. A second
job ticks every few minutes for the fast lane (``[collector] fast_lane_daily_requests``). Settings
are re-read at every run, so config edits take effect without a restart.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from apscheduler.events import (
    EVENT_JOB_ERROR,
    EVENT_JOB_EXECUTED,
    EVENT_JOB_MISSED,
    EVENT_SCHEDULER_STARTED,
)
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers import SchedulerNotRunningError
from apscheduler.schedulers.blocking import BlockingScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from rich.console import Console

from core.errors import BudgetError, ConfigError, LockedError, RigscoutError
from rigscout.cli.interrupts import INTERRUPTED
from rigscout.config.load import load_settings

if TYPE_CHECKING:
    from types import FrameType

    from apscheduler.events import JobExecutionEvent, SchedulerEvent
    from apscheduler.schedulers.base import BaseScheduler
    from sqlalchemy import Engine

    from rigscout.config.load import Settings

log = logging.getLogger(__name__)
JOB_ID = "rigscout-daily"
FAST_LANE_JOB_ID = "rigscout-fast-lane"
FAST_LANE_TICK_MINUTES = 2  # how often the daemon looks for searches due a fast-lane poll
LOCK_RETRIES = 4  # a daily run finding a fast-lane pass under way tries again this often…
LOCK_RETRY_SECONDS = 30.0  # …this far apart
STOPPING = threading.Event()  # set on SIGTERM/SIGINT: no new run starts, a waiting one gives up


def scheduled_fast_lane(config_path: str | None, offline: str | None = None) -> int:
    """The daemon's fast-lane tick: poll the searches that are due, if the lane is on."""
    from rigscout.jobs.fastlane_job import run_fast_lane

    try:
        settings = load_settings(Path(config_path) if config_path else None, os.environ)
        if settings.collector.fast_lane_daily_requests <= 0:
            return 0
        report = run_fast_lane(settings, offline=Path(offline) if offline else None)
    except LockedError:
        log.info("fast lane: a run is under way; skipping this tick")
        return 0
    except BudgetError as exc:
        log.info("fast lane: %s", exc)
        return 0
    except RigscoutError as exc:
        log.error("fast lane failed: %s", exc)
        return 2
    if report is not None:
        log.info(
            "fast lane run %d: %d searches, %d new listings, %d alerts sent",
            report.run_id,
            report.searches,
            report.saved.new_listings,
            report.alerts.total_sent if report.alerts else 0,
        )
    return 0 if report is None else report.exit_code


def scheduled_run(config_path: str | None, offline: str | None = None) -> int:
    """The scheduled job: one daily run with fresh settings; returns its exit code.

    A run finding the lock taken tries again a few times: a fast-lane pass takes seconds.
    """
    started = datetime.now().astimezone()
    for attempt in range(LOCK_RETRIES):
        if STOPPING.is_set():
            log.info("scheduled run skipped: the scheduler is shutting down")
            return 0
        try:
            return _scheduled_run_once(config_path, offline, started)
        except LockedError as exc:
            if attempt + 1 == LOCK_RETRIES:
                log.error("scheduled run failed: %s", exc)
                return 2
            log.info("scheduled run: the lock is taken (a fast-lane pass?); retrying shortly")
            STOPPING.wait(LOCK_RETRY_SECONDS)  # a SIGTERM ends the wait, and the run is skipped
    return 2


def _scheduled_run_once(config_path: str | None, offline: str | None, started: datetime) -> int:
    from rigscout.cli.run_view import run_and_show

    try:
        settings = load_settings(Path(config_path) if config_path else None, os.environ)
        report = run_and_show(
            settings,
            Console(quiet=True),
            offline=Path(offline) if offline else None,
            search_names=(),
            profile=None,
            alert=True,
            dry_run=False,
            wait=False,
            limit=0,
        )
    except LockedError:
        raise
    except RigscoutError as exc:
        log.error("scheduled run failed: %s", exc)
        return 2
    log.info(
        "scheduled run %d finished in %.1fs: exit %d, %d listings seen, %d new, %d failures",
        report.run_id,
        (datetime.now().astimezone() - started).total_seconds(),
        report.exit_code,
        report.saved.seen,
        report.saved.new_listings,
        len(report.failures),
    )
    return report.exit_code


def build_scheduler(
    settings: Settings,
    engine: Engine,
    *,
    config_path: Path | None,
    offline: Path | None = None,
    run_now: bool = False,
) -> BlockingScheduler:
    """A scheduler with the daily job stored in the database (replacing an older definition)."""
    try:
        tz = ZoneInfo(settings.schedule.timezone)
        trigger = CronTrigger.from_crontab(settings.schedule.cron, timezone=tz)
    except (ValueError, KeyError) as exc:
        raise ConfigError(f"[schedule] {exc}") from exc
    scheduler = BlockingScheduler(
        jobstores={"default": SQLAlchemyJobStore(engine=engine)},
        job_defaults={
            "coalesce": True,
            "max_instances": 1,
            "misfire_grace_time": settings.schedule.misfire_grace_seconds,
        },
        timezone=tz,
    )
    kwargs = {
        "config_path": str(config_path) if config_path else None,
        "offline": str(offline) if offline else None,
    }
    scheduler.add_job(
        "rigscout.cli.scheduler:scheduled_run",
        trigger,
        id=JOB_ID,
        name="rigscout daily run",
        kwargs=kwargs,
        replace_existing=True,
    )
    scheduler.add_job(
        "rigscout.cli.scheduler:scheduled_fast_lane",
        IntervalTrigger(minutes=FAST_LANE_TICK_MINUTES, timezone=tz),
        id=FAST_LANE_JOB_ID,
        name="rigscout fast lane",
        kwargs=kwargs,
        replace_existing=True,
    )
    if run_now:
        scheduler.add_job(
            "rigscout.cli.scheduler:scheduled_run",
            id=JOB_ID + "-now",
            kwargs=kwargs,
            replace_existing=True,
        )
    return scheduler


def serve_scheduler(scheduler: BlockingScheduler) -> None:
    """Run until SIGTERM or SIGINT, then let a run in progress finish and stop."""

    def stop(signum: int, _frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        if STOPPING.is_set():  # a second Ctrl-C while the first one's shutdown is under way
            log.info("received %s again; still finishing the current run", name)
            return
        log.info("received %s; shutting down after the current run", name)
        STOPPING.set()
        with contextlib.suppress(SchedulerNotRunningError):  # a signal before it started
            scheduler.shutdown(wait=True)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if INTERRUPTED.is_set():  # one came before these handlers, and was lost on its way
        STOPPING.set()
    job = scheduler.get_job(JOB_ID)
    log.info("scheduler starting; daily job on %s", job.trigger if job else "?")

    def after_daily(event: JobExecutionEvent) -> None:
        if event.job_id in (JOB_ID, JOB_ID + "-now") and (line := next_run_line(scheduler)):
            log.info("%s", line)

    if line := next_run_line(scheduler):
        log.info("%s", line)

    def started(_event: SchedulerEvent) -> None:
        if STOPPING.is_set():  # a signal while it was starting, too early to stop it then
            scheduler.shutdown(wait=False)

    scheduler.add_listener(after_daily, EVENT_JOB_EXECUTED | EVENT_JOB_ERROR | EVENT_JOB_MISSED)
    scheduler.add_listener(started, EVENT_SCHEDULER_STARTED)
    if not STOPPING.is_set():  # a signal during start-up: nothing to start
        scheduler.start()
    log.info("scheduler stopped")


def next_run_line(scheduler: BaseScheduler, now: datetime | None = None) -> str | None:
    """ "next daily run: 2026-11-29 06:00 CET (in 16 h 4 min)", from the daily job's trigger."""
    job = scheduler.get_job(JOB_ID)
    if job is None:
        return None
    moment = now or datetime.now(scheduler.timezone)
    when = job.trigger.get_next_fire_time(None, moment)
    if when is None:
        return None
    minutes = max(int((when - moment).total_seconds() // 60), 0)
    hours, minutes = divmod(minutes, 60)
    wait = f"{hours} h {minutes} min" if hours else f"{minutes} min"
    return f"next daily run: {when:%Y-%m-%d %H:%M %Z} (in {wait})"
