"""Jobs the CLI and the scheduler start: the daily run, imports. Wiring only; the work is in
``rigscout.jobs.pipeline`` and the stage packages."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from typing import TYPE_CHECKING

import httpx
from rich.markup import escape
from sqlalchemy.orm import Session

from alerts.channels import build_notifiers, missing_secrets
from core.errors import ConfigError, RigscoutError
from core.secrets import redact
from db.engine import open_engine
from db.lock import run_lock
from db.migrate import upgrade
from db.store import SaveCounts, save_sales_import
from ranking.titles.user_catalog import user_normalizer
from rigscout.cli.deal_view import deal_json, load_skus, print_deals
from rigscout.cli.render import progress_bar, render_run_summary
from rigscout.jobs.pipeline import Collector, RunPlan, RunReport, run_daily
from rigscout.jobs.wiring import (
    normalizer_for,
    offline_collector,
    utcnow,
    web_collector,
)
from scraper.offline import check_offline_folder

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence
    from pathlib import Path

    from rich.console import Console
    from sqlalchemy import Engine

    from core.models import SavedSearch
    from rigscout.config.load import Settings

__all__ = ["deal_json", "import_files", "load_skus", "print_deals", "run_job", "select_searches"]
log = logging.getLogger(__name__)


def select_searches(settings: Settings, names: Sequence[str]) -> tuple[SavedSearch, ...]:
    if not settings.searches:
        raise ConfigError("no saved searches configured (run `rigscout init` for a starter config)")
    if not names:
        return settings.searches
    unknown = set(names) - {s.name for s in settings.searches}
    if unknown:
        raise ConfigError(f"unknown saved searches: {', '.join(sorted(unknown))}")
    return tuple(s for s in settings.searches if s.name in names)


@contextlib.contextmanager
def open_collector(settings: Settings, engine: Engine, offline: Path | None) -> Iterator[Collector]:
    if offline is not None:
        yield offline_collector(offline, settings)
    else:
        with web_collector(settings, engine) as collector:
            yield collector


def run_job(
    settings: Settings,
    *,
    console: Console,
    offline: Path | None,
    search_names: Sequence[str],
    profile: str | None,
    alert: bool,
    dry_run: bool,
    wait: bool,
    limit: int,
    worker: bool = False,
) -> RunReport:
    """Lock the database, run the daily job, print its summary and top deals.

    A ``worker`` run takes no lock for collecting: it leases searches one at a time, so
    several workers on several machines share the day's searches without overlap.
    """
    searches = select_searches(settings, search_names)
    if offline is not None:
        check_offline_folder(offline, searches)
    missing = missing_secrets(settings.alerts.channels) if alert and not dry_run else []
    if missing:
        raise ConfigError("; ".join(missing) + " (--dry-run and --no-alerts need no secrets)")
    plan = RunPlan(
        source=f"offline:{offline}"[:300]
        if offline
        else ("api" if settings.api.enabled else "web"),
        searches=searches,
        profile=profile or settings.rank.profile,
        alert=alert,
        dry_run=dry_run,
        lease_key=f"{utcnow():%Y-%m-%d}" if worker else None,
        worker=f"{socket.gethostname()}:{os.getpid()}",
        full_sweep_hours=settings.collector.full_sweep_hours,
    )
    engine = open_engine(settings.database_url)
    steps = sum(len(s.modes) for s in searches) + 1
    lock = contextlib.nullcontext() if worker else run_lock(engine, wait=wait)
    with lock:
        # Migrate under the run lock: a run started alongside on a brand-new database gets
        # the lock message, never a half-made schema (workers share the lock only to migrate).
        with run_lock(engine, wait=True) if worker else contextlib.nullcontext():
            upgrade(engine)
        report = _run_locked(settings, plan, engine, console, steps, offline, worker)
    if settings.report.dir is not None:
        _write_report(console, engine, settings, settings.report.dir)
    engine.dispose()
    _print_report(console, report, limit=limit, dry_run=dry_run)
    return report


def _run_locked(
    settings: Settings,
    plan: RunPlan,
    engine: Engine,
    console: Console,
    steps: int,
    offline: Path | None,
    worker: bool,
) -> RunReport:
    with (
        open_collector(settings, engine, offline) as collector,
        httpx.Client(timeout=30) as client,
        progress_bar(console, steps) as step,
    ):
        return run_daily(
            settings,
            plan,
            engine=engine,
            collector=collector,
            normalize=normalizer_for(user_normalizer(settings.catalog_extra)),
            skus=load_skus(settings.catalog_extra),
            notifiers=build_notifiers(
                settings.alerts.channels, client=client, report_url=settings.report.url
            ),
            now=utcnow,
            on_step=step,
            alert_guard=(lambda: run_lock(engine, wait=True)) if worker else contextlib.nullcontext,
        )


def _write_report(console: Console, engine: Engine, settings: Settings, folder: Path) -> None:
    """The morning report after the run (``[report] dir``); a failure is shown, not raised."""
    from rigscout.outputs.report.build import write_report

    try:
        page = write_report(
            engine, settings, folder, skus=load_skus(settings.catalog_extra), now=utcnow()
        )
    except RigscoutError as exc:
        log.warning("report not written: %s", exc)
        console.print(f"[red]REPORT NOT WRITTEN[/red] {exc}", highlight=False, soft_wrap=True)
    else:
        console.print(f"Report: {page}", highlight=False, markup=False, soft_wrap=True)


def _print_report(console: Console, report: RunReport, *, limit: int, dry_run: bool) -> None:
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
        for channel in report.alerts.unconfigured:
            console.print(f"alerts queued for channel {channel!r}, which is not configured")
        for channel, why in report.alerts.held.items():
            console.print(f"alerts for {channel}: {why}", highlight=False, markup=False)
    if limit and report.deals:
        print_deals(console, report.deals[:limit])


def import_files(
    engine: Engine, files: Sequence[Path], extra: Sequence[Path] = ()
) -> Iterator[tuple[Path, SaveCounts]]:
    """Import sold listings from saved sold pages or Terapeak CSV files, each in one transaction."""
    from scraper.parse import parse_search_page
    from scraper.terapeak import parse_terapeak_csv

    normalize = normalizer_for(user_normalizer(extra))
    for path in files:
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.suffix.lower() == ".csv":
            listings, source = parse_terapeak_csv(text), "terapeak"
        else:
            listings, source = list(parse_search_page(text, url=str(path)).listings), "import"
        sold = [(listing, normalize(listing)) for listing in listings if listing.sold_date]
        with Session(engine) as session, session.begin():
            yield path, save_sales_import(session, sold, source=source, now=utcnow())
