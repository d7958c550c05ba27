"""A run as the user sees it: the progress bar while it works, then the morning report written
(``[report] dir``), the summary, what failed and the top deals. The work is
``rigscout.jobs.daily.run_job``; ``rigscout run``, ``rigscout collect`` and the scheduler's
runs show it through here."""

from __future__ import annotations

import logging
from functools import partial
from typing import TYPE_CHECKING

from rich.markup import escape

from core.clock import utcnow
from core.errors import RigscoutError
from core.secrets import redact
from ranking.titles import user_skus
from rigscout.cli.deal_view import print_deals
from rigscout.cli.render import progress_bar, render_run_summary
from rigscout.jobs.daily import run_job

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from rich.console import Console

    from rigscout.config.load import Settings
    from rigscout.jobs.pipeline import RunReport

log = logging.getLogger(__name__)


def run_and_show(
    settings: Settings,
    console: Console,
    *,
    offline: Path | None,
    search_names: Sequence[str],
    profile: str | None,
    alert: bool,
    dry_run: bool,
    wait: bool,
    limit: int,
    worker: bool = False,
    rank: bool = True,
) -> RunReport:
    """Run the daily job with a progress bar, write the report, print the summary and the top
    ``limit`` deals."""
    report = run_job(
        settings,
        offline=offline,
        search_names=search_names,
        profile=profile,
        alert=alert,
        dry_run=dry_run,
        wait=wait,
        worker=worker,
        rank=rank,
        progress=partial(progress_bar, console),
    )
    if settings.report.dir is not None and rank:
        write_run_report(console, settings, settings.report.dir)
    print_run(console, report, limit=limit)
    return report


def write_run_report(console: Console, settings: Settings, folder: Path) -> None:
    """The morning report after the run (``[report] dir``); a failure is shown, not raised."""
    from db.engine import open_engine
    from rigscout.outputs.report.build import write_report

    engine = open_engine(settings.database_url)
    try:
        page = write_report(
            engine, settings, folder, skus=user_skus(settings.catalog_extra), now=utcnow()
        )
    except RigscoutError as exc:
        log.warning("report not written: %s", exc)
        console.print(f"[red]REPORT NOT WRITTEN[/red] {exc}", highlight=False, soft_wrap=True)
    else:
        console.print(f"Report: {page}", highlight=False, markup=False, soft_wrap=True)
    finally:
        engine.dispose()


def print_run(console: Console, report: RunReport, *, limit: int) -> None:
    """The run's summary, what failed, what alerts did, and its top ``limit`` deals."""
    console.print(render_run_summary(report))
    for failure in report.failures:
        console.print(
            f"[red]FAILED[/red] {escape(failure.search)} ({failure.mode}): "
            f"{escape(redact(failure.error))}",
            highlight=False,
        )
    if report.alerts:
        for channel, error in report.alerts.failed.items():
            console.print(
                f"[red]ALERT CHANNEL FAILED[/red] {escape(channel)}: {escape(redact(error))} "
                "(alerts kept pending)",
                highlight=False,
            )
        for channel, lines in report.alerts.previews.items():
            for line in lines:
                console.print(
                    f"[dry run] {channel} would send: {line}", highlight=False, markup=False
                )
        for channel, waiting in report.alerts.unconfigured.items():
            console.print(
                f"{waiting} alert(s) wait for channel {channel!r}, which the config no longer "
                f"has: add [alerts.channels.{channel}] back to send them (they are kept)",
                highlight=False,
                markup=False,
            )
        for channel, why in report.alerts.held.items():
            console.print(f"alerts for {channel}: {why}", highlight=False, markup=False)
    if limit and report.deals:
        print_deals(console, report.deals[:limit])
