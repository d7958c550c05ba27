"""Jobs the CLI and the scheduler start: the daily run, imports. Wiring only; the work is in
``rigscout.jobs.pipeline`` and the stage packages, what the user sees of it in ``rigscout.cli``
(``run_view``: the progress bar, the summary, the report written after a run)."""

from __future__ import annotations

import contextlib
import logging
import os
import socket
from typing import TYPE_CHECKING

import httpx
from sqlalchemy.orm import Session

from alerts.channels import build_notifiers, missing_secrets
from core.errors import ConfigError
from db.engine import open_engine
from db.lock import run_lock
from db.migrate import upgrade
from db.store import SaveCounts, save_sales_import
from ranking.titles import user_normalizer, user_skus
from rigscout.jobs.pipeline import Collector, RunPlan, RunReport, run_daily
from rigscout.jobs.wiring import (
    normalizer_for,
    offline_collector,
    utcnow,
    web_collector,
)
from scraper.offline import check_offline_folder

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from contextlib import AbstractContextManager
    from pathlib import Path

    from sqlalchemy import Engine

    from core.models import SavedSearch
    from rigscout.config.load import Settings

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
    offline: Path | None,
    search_names: Sequence[str],
    profile: str | None,
    alert: bool,
    dry_run: bool,
    wait: bool,
    worker: bool = False,
    rank: bool = True,
    progress: Callable[[int], AbstractContextManager[Callable[[str], None]]] | None = None,
) -> RunReport:
    """Lock the database and run the daily job; ``progress`` shows its steps.

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
        rank=rank,
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
        shown = progress(steps) if progress else contextlib.nullcontext(_no_step)
        with shown as step:
            report = _run_locked(settings, plan, engine, offline=offline, worker=worker, step=step)
    engine.dispose()
    return report


def _no_step(_label: str) -> None:
    return None


def _run_locked(
    settings: Settings,
    plan: RunPlan,
    engine: Engine,
    *,
    offline: Path | None,
    worker: bool,
    step: Callable[[str], None],
) -> RunReport:
    with (
        open_collector(settings, engine, offline) as collector,
        httpx.Client(timeout=30) as client,
    ):
        return run_daily(
            settings,
            plan,
            engine=engine,
            collector=collector,
            normalize=normalizer_for(user_normalizer(settings.catalog_extra)),
            skus=user_skus(settings.catalog_extra),
            notifiers=build_notifiers(
                settings.alerts.channels, client=client, report_url=settings.report.url
            ),
            now=utcnow,
            on_step=step,
            alert_guard=(lambda: run_lock(engine, wait=True)) if worker else contextlib.nullcontext,
        )


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
