"""Load what the report shows from the store: the ranker's deals per profile, price history,
runs, sent alerts and new listings of rare hardware.

No rule is recomputed here: the deals and the market references come from
``rigscout.jobs.deals.rank_stored``; prices are converted with ``ranking.landed``.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING

from alerts.outbox import parse_snapshot
from core.errors import AlertError
from db.report_rows import load_listing_news, load_new_rare_rows, load_sent_alert_rows
from db.runs import load_runs
from ranking.profiles import load_profiles
from ranking.records import RankFilters
from rigscout.jobs.deals import rank_stored_many
from rigscout.jobs.plans import EVERY_LISTING
from rigscout.outputs.report.asking import build_asking_days
from rigscout.outputs.report.records import NewListing, ProfileDeals, ReportData, SentAlert
from rigscout.outputs.report.sold import build_sold_points

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence

    from sqlalchemy.orm import Session

    from core.models import Deal
    from core.settings import RankSettings
    from ranking.catalog import Sku
    from ranking.records import PlannerView, Ranking
    from rigscout.config.report import ReportSettings
    from rigscout.outputs.report.records import AskingDay

RARE_MAX_ACTIVE = 3  # a SKU with at most this many active listings is rare
NEW_WITHIN = timedelta(days=1)
RUNS_SHOWN = 10
ALERTS_SHOWN = 20
NEW_SHOWN = 30


def build_report_data(
    session: Session,
    skus: Mapping[str, Sku],
    rank: RankSettings,
    report: ReportSettings,
    *,
    now: datetime,
    asking: Callable[[], tuple[AskingDay, ...]] | None = None,
    plan_profiles: Sequence[str] = (),
    planner: PlannerView | None = None,
) -> ReportData:
    """Everything the report shows, as of ``now``.

    ``plan_profiles``: profiles whose listings the rig planner needs
    (``ReportData.plan_deals``), ranked from the same loaded and priced rows: every one, or
    with ``planner`` those a plan can buy (``RankFilters.planner``).

    ``asking`` returns the daily asking ranges since ``history_start`` (default: loaded in
    ``session``); the caller may load them in parallel, as ``build.write_report`` does.
    """
    limit = report.top_per_sku * max(len(skus), 1)
    names = _profiles(rank, report.profiles)
    # A profile both shown and planned is ranked once: its first ``limit`` deals explained for
    # the page, every listing for the planner. Ranked first, on the session's own transaction
    # (the ranking keeps its priced listings: ``rigscout/jobs/priced.py``).
    planned_only = [name for name in plan_profiles if name not in names]
    filters = [
        RankFilters(name, limit=EVERY_LISTING, explain_top=limit, planner=planner)
        if name in plan_profiles
        else RankFilters(name, limit=limit)
        for name in names
    ] + [
        RankFilters(name, limit=EVERY_LISTING, explain=False, planner=planner)
        for name in planned_only
    ]
    rankings = rank_stored_many(session, skus, rank, now=now, filters=filters)
    by_profile = dict(zip([*names, *planned_only], rankings, strict=True))
    views = tuple(
        _profile_deals(name, by_profile[name], report.top_per_sku, limit) for name in names
    )
    planned = [by_profile[name] for name in plan_profiles]
    markets = rankings[0].markets  # the market does not depend on the profile
    since = history_start(now, report)
    shown = {d.listing_id for view in views for d in view.deals}
    ranked = {d.url: d for r in reversed(rankings) for d in r.deals}  # the first profile's wins
    return ReportData(
        now=now,
        currency=rank.currency,
        profile=rank.profile,
        window_days=rank.window_days,
        views=views,
        markets=markets,
        skus=skus,
        sold=build_sold_points(session, rank, since=since, now=now),
        asking=asking() if asking else build_asking_days(session, rank, since=since, now=now),
        runs=tuple(load_runs(session, limit=RUNS_SHOWN)),
        alerts=load_sent_alerts(session),
        new_rare=tuple(
            replace(new, deal=ranked.get(new.url))
            for new in load_new_rare(session, now=now)
            if not any(new.listing_id in r.kept_out for r in rankings)  # no scam is featured
        ),
        history_since=since,
        plan_deals={p: r.deals for p, r in zip(plan_profiles, planned, strict=True)},
        kept_out=tuple(
            {
                d.listing_id: d
                for r in rankings
                for d in r.flagged
                if not any(f.code == "ignored" for f in d.flags)  # you said: never again
            }.values()
        ),
        news=load_listing_news(session, shown),
    )


def history_start(now: datetime, report: ReportSettings) -> date:
    """The first day the price history shows."""
    return now.astimezone(UTC).date() - timedelta(days=report.history_days)


def _profiles(rank: RankSettings, wanted: Sequence[str]) -> list[str]:
    """The configured profile first, then the others wanted (default: all of them)."""
    known = load_profiles()
    names = [known.get(n).name for n in wanted] if wanted else list(known.profiles)
    return [rank.profile, *(n for n in names if n != rank.profile)]


def _profile_deals(profile: str, ranking: Ranking, top_per_sku: int, limit: int) -> ProfileDeals:
    """The profile's best ``limit`` deals, at most ``top_per_sku`` of each SKU."""
    per_sku: dict[str, int] = {}
    kept: list[Deal] = []
    for deal in ranking.deals[:limit]:
        per_sku[deal.sku] = per_sku.get(deal.sku, 0) + 1
        if per_sku[deal.sku] <= top_per_sku:
            kept.append(deal)
    description = load_profiles().get(profile).description
    return ProfileDeals(profile, description, tuple(kept), dict(ranking.skipped))


def load_sent_alerts(session: Session, limit: int = ALERTS_SHOWN) -> tuple[SentAlert, ...]:
    """The latest alerts delivered, newest first, as the deal they carried."""
    sent = []
    for row in load_sent_alert_rows(session, limit):
        try:
            deal = parse_snapshot(row.payload, alert_id=row.id)
        except AlertError:
            continue  # an unreadable old payload is not worth failing the report for
        if row.sent_at is not None:
            sent.append(SentAlert(row.sent_at, row.channel, deal))
    return tuple(sent)


def load_new_rare(
    session: Session, *, now: datetime, limit: int = NEW_SHOWN
) -> tuple[NewListing, ...]:
    """Listings first seen in the last day, of SKUs with at most ``RARE_MAX_ACTIVE`` active."""
    rows = load_new_rare_rows(
        session, since=now - NEW_WITHIN, max_active=RARE_MAX_ACTIVE, limit=limit
    )
    return tuple(NewListing(*row) for row in rows)
