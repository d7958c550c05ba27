"""``rigscout schedule``: an APScheduler daemon that runs the daily job on a cron trigger.

The job lives in a persistent job store in rigscout's own database (table
``apscheduler_jobs``), runs coalesced (missed runs collapse into one), one instance at a time,
within ``schedule.misfire_grace_seconds``; SIGTERM and SIGINT shut it down cleanly. Settings
are re-read at every run, so config edits take effect without a restart.
"""

from __future__ import annotations

import logging
import os
import signal
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.blocking import BlockingScheduler
from apscheduler.triggers.cron import CronTrigger
from rich.console import Console

from rigscout.config import load_settings
from rigscout.errors import ConfigError, RigscoutError

if TYPE_CHECKING:
    from types import FrameType

    from sqlalchemy import Engine

    from rigscout.config import Settings

log = logging.getLogger(__name__)
JOB_ID = "rigscout-daily"


def scheduled_run(config_path: str | None, offline: str | None = None) -> int:
    """The scheduled job: one daily run with fresh settings; returns its exit code."""
    from rigscout.jobs import run_job

    started = datetime.now().astimezone()
    try:
        settings = load_settings(Path(config_path) if config_path else None, os.environ)
        report = run_job(
            settings,
            console=Console(quiet=True),
            offline=Path(offline) if offline else None,
            search_names=(),
            profile=None,
            alert=True,
            dry_run=False,
            wait=False,
            limit=0,
        )
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
        "rigscout.scheduler:scheduled_run",
        trigger,
        id=JOB_ID,
        name="rigscout daily run",
        kwargs=kwargs,
        replace_existing=True,
    )
    if run_now:
        scheduler.add_job(
            "rigscout.scheduler:scheduled_run",
            id=JOB_ID + "-now",
            kwargs=kwargs,
            replace_existing=True,
        )
    return scheduler


def serve(scheduler: BlockingScheduler) -> None:
    """Run until SIGTERM or SIGINT, then let a run in progress finish and stop."""

    def stop(signum: int, _frame: FrameType | None) -> None:
        log.info("received %s; shutting down after the current run", signal.Signals(signum).name)
        scheduler.shutdown(wait=True)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    job = scheduler.get_job(JOB_ID)
    log.info("scheduler starting; daily job on %s", job.trigger if job else "?")
    scheduler.start()
    log.info("scheduler stopped")
