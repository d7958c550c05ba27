"""The fast-lane job the CLI (`rigscout fast-lane`) and the daemon start: poll the first page of
each search that is due, then save, rank and alert through the daily job's own path."""

from __future__ import annotations

from datetime import UTC, datetime, time
from typing import TYPE_CHECKING

import httpx
from sqlalchemy.orm import Session

from alerts.channels import build_notifiers
from core.errors import BudgetError, ConfigError
from db.engine import open_engine
from db.lock import run_lock
from db.migrate import upgrade
from db.runs import load_requests_since
from db.sweeps import load_last_polls, load_search_weights, save_poll
from ranking.catalog import load_catalog
from ranking.titles import Normalizer, user_skus
from rigscout.jobs.daily import open_collector
from rigscout.jobs.fastlane import due_searches, plan_poll_intervals
from rigscout.jobs.pipeline import RunPlan, RunReport, run_daily
from rigscout.jobs.wiring import normalizer_for, utcnow

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from sqlalchemy import Engine

    from core.models import SavedSearch
    from rigscout.config.load import Settings

SOURCE = "fast-lane"  # the runs' source: what the day's budget counts


def run_fast_lane(
    settings: Settings,
    *,
    offline: Path | None = None,
    now: Callable[[], datetime] = utcnow,
) -> RunReport | None:
    """Poll the searches that are due; None when none is. LockedError while a run is going,
    BudgetError once today's (UTC) requests reach ``fast_lane_daily_requests``: the budget
    is enforced, not only planned from (each poll is at least one request; a search's pages
    and retries count as the runs record them)."""
    budget = settings.collector.fast_lane_daily_requests
    if budget <= 0:
        raise ConfigError("the fast lane is off: set [collector] fast_lane_daily_requests > 0")
    engine = open_engine(settings.database_url)
    try:
        with run_lock(engine):
            upgrade(engine)
            due = _due(settings, engine, budget, now())
            if not due:
                return None
            left = budget - _spent_today(engine, now())
            if left <= 0:
                raise BudgetError(
                    f"the fast lane's daily budget of {budget} requests is spent "
                    f"({budget - left} made since 00:00 UTC); it polls again after midnight UTC"
                )
            return _poll(settings, engine, due[:left], offline, now)
    finally:
        engine.dispose()


def _due(settings: Settings, engine: Engine, budget: int, now: datetime) -> list[SavedSearch]:
    names = [s.name for s in settings.searches]
    with Session(engine) as session:
        intervals = plan_poll_intervals(load_search_weights(session, names, now), budget)
        last = load_last_polls(session, names)
    return due_searches(settings.searches, intervals, last, now)


def _spent_today(engine: Engine, now: datetime) -> int:
    midnight = datetime.combine(now.astimezone(UTC).date(), time.min, tzinfo=UTC)
    with Session(engine) as session:
        return load_requests_since(session, source=SOURCE, since=midnight)


def _poll(
    settings: Settings,
    engine: Engine,
    due: list[SavedSearch],
    offline: Path | None,
    now: Callable[[], datetime],
) -> RunReport:
    plan = RunPlan(
        source=SOURCE,
        searches=tuple(due),
        profile=settings.rank.profile,
        full_sweep_hours=None,
    )
    with open_collector(settings, engine, offline) as collector, httpx.Client(timeout=30) as client:
        report = run_daily(
            settings,
            plan,
            engine=engine,
            collector=collector,
            normalize=normalizer_for(Normalizer(load_catalog())),
            skus=user_skus(),
            notifiers=build_notifiers(settings.alerts.channels, client=client),
            now=now,
        )
    with Session(engine) as session, session.begin():
        for search in due:
            save_poll(session, search.name, now=now())
    return report
