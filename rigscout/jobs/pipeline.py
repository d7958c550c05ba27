"""The daily job as one readable sequence: collect → normalize → save → rank → alert.

Each saved search is collected and saved in its own transaction, so one bad page (a captcha,
a broken layout, a network failure) is recorded as a failure of that search and costs nothing
already stored; the other searches go on and the run ends non-zero.
"""

from __future__ import annotations

import contextlib
import logging
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol
from zoneinfo import ZoneInfo

from sqlalchemy.orm import Session

from alerts.dispatch import DispatchReport, send_pending
from alerts.outbox import save_pending_alerts
from alerts.quiet import held_channels
from alerts.rules import RuleFacts, Trust, match_rules, needs_history, rule_bounds, rule_matches
from core.errors import CollectError, RateLimitedError, UnreachableError
from core.secrets import redact
from db.deferrals import load_deferral, save_deferral
from db.leases import (
    claim_next_search,
    load_open_lease_count,
    save_lease_result,
    save_lease_rows,
)
from db.runs import (
    STALE_AFTER,
    RunCounts,
    finish_run,
    save_interrupted_runs,
    save_run_interrupted,
    start_run,
)
from db.store import SaveCounts, load_known_item_ids, save_ended, save_listings
from db.sweeps import load_sweep_due, save_sweep
from ranking.plan import load_plan_rules
from ranking.records import RankFilters
from rigscout.jobs.deals import rank_stored
from rigscout.jobs.plan_alerts import save_plan_alerts
from rigscout.jobs.plans import EVERY_LISTING
from rigscout.jobs.rule_facts import load_rule_facts

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Mapping, Sequence

    from sqlalchemy import Engine

    from alerts.dispatch import Notifier
    from alerts.settings import AlertRule
    from core.models import Deal, Listing, Mode, Normalized, SavedSearch
    from ranking.catalog import Sku
    from rigscout.config.load import Settings

log = logging.getLogger(__name__)


class Collector(Protocol):
    """Collects one saved search in one mode.

    ``is_known`` answers which of the given listings are already stored unchanged; ``full``
    asks for every page (a full sweep) instead of stopping at the first with nothing new.
    """

    def __call__(
        self,
        search: SavedSearch,
        mode: Mode,
        is_known: Callable[[Sequence[Listing]], set[str]],
        *,
        full: bool = False,
    ) -> CollectedSearch: ...


SHOWN = 50  # deals explained at the top of the run's ranking (the summary shows some of them)


@dataclass(frozen=True, slots=True)
class CollectedSearch:
    listings: tuple[Listing, ...]
    requests: int
    stopped: str
    skipped: tuple[str, ...] = ()  # why each unreadable card of its pages was left out


@dataclass(frozen=True, slots=True)
class SearchFailure:
    search: str
    mode: str
    error: str
    url: str | None = None

    def as_json(self) -> dict[str, object]:
        return {"search": self.search, "mode": self.mode, "error": self.error, "url": self.url}


@dataclass(frozen=True, slots=True)
class RunReport:
    run_id: int
    searches: int
    requests: int
    saved: SaveCounts
    failures: tuple[SearchFailure, ...]
    deals: tuple[Deal, ...]
    alerts: DispatchReport | None
    ended: int = 0
    notes: tuple[str, ...] = field(default=())
    ranked: bool = True  # False: `collect`, whose summary has no deals to count

    @property
    def exit_code(self) -> int:
        """0 all well, 1 some searches or channels failed."""
        failed_channels = bool(self.alerts and self.alerts.failed)
        return 1 if self.failures or failed_channels else 0


@dataclass(frozen=True, slots=True)
class RunPlan:
    """What one run does; the CLI builds it from options and settings."""

    source: str  # "web", "api" or "offline:<dir>"
    searches: tuple[SavedSearch, ...]
    profile: str
    alert: bool = True
    rank: bool = True  # False: `collect`, which stores and ranks nothing
    dry_run: bool = False
    lease_key: str | None = None  # set for `run --worker`: searches are leased, not all taken
    worker: str = "main"
    full_sweep_hours: float | None = 24.0  # every page at least this often; None: never


def run_daily(
    settings: Settings,
    plan: RunPlan,
    *,
    engine: Engine,
    collector: Collector,
    normalize: Callable[[Listing], Normalized],
    skus: Mapping[str, Sku],
    notifiers: Mapping[str, Notifier],
    now: Callable[[], datetime],
    on_step: Callable[[str], None] = lambda _: None,
    alert_guard: Callable[[], AbstractContextManager[object]] = contextlib.nullcontext,
) -> RunReport:
    """Run the whole daily job once and return what happened.

    A worker run (``plan.lease_key``) ranks and alerts only once no search of the day is left
    open, inside ``alert_guard`` (the run lock), so concurrent workers alert once.
    """
    with Session(engine) as session:
        # A locked run knows any run still marked running is dead; workers run side by side,
        # so they only mark runs older than any real run could be.
        stale = STALE_AFTER if plan.lease_key else timedelta(0)
        save_interrupted_runs(session, now(), stale_after=stale)
        run_id = start_run(session, source=plan.source, now=now())
    tally = _Tally()
    with _interrupted_on_ctrl_c(engine, run_id, now, tally):
        try:
            totals, failures, requests, taken = _collect_all(
                plan,
                engine=engine,
                collector=collector,
                normalize=normalize,
                run_id=run_id,
                now=now,
                on_step=on_step,
                tally=tally,
            )
        except UnreachableError as exc:
            with Session(engine) as session:
                error = SearchFailure(exc.search or "", "", redact(str(exc)), exc.url)
                counts = RunCounts(searches=1, requests=exc.requests or 1)
                finish_run(session, run_id, counts=counts, errors=[error.as_json()], now=now())
            raise
        with Session(engine) as session, session.begin():
            ended = save_ended(session, now=now())
        deals: Sequence[Deal] = ()
        if plan.rank:
            with Session(engine) as session:
                ranking = rank_stored(
                    session, skus, settings.rank, now=now(), filters=_alert_filters(settings, plan)
                )
                deals = ranking.deals
        dispatch = None
        if plan.alert and _all_searches_done(plan, engine):
            on_step("alerts")
            with alert_guard():
                dispatch = _alert(settings, plan, engine, deals, notifiers, run_id=run_id, now=now)
        with Session(engine) as session:
            finish_run(
                session,
                run_id,
                counts=RunCounts(
                    searches=taken,
                    requests=requests,
                    listings_seen=totals.seen,
                    listings_new=totals.new_listings,
                    observations_new=totals.new_observations,
                    alerts_sent=dispatch.total_sent if dispatch else 0,
                    cards_skipped=totals.cards_skipped,
                ),
                errors=[f.as_json() for f in failures] + _channel_errors(dispatch),
                now=now(),
            )
        return RunReport(
            run_id=run_id,
            searches=taken,
            requests=requests,
            saved=totals,
            failures=tuple(failures),
            deals=tuple(deals),
            alerts=dispatch,
            ended=ended,
            ranked=plan.rank,
        )


@dataclass
class _Tally:
    """What the collection has done so far, for a run stopped halfway to record."""

    saved: SaveCounts = field(default_factory=lambda: SaveCounts(0, 0, 0, 0))
    requests: int = 0
    searches: int = 0

    def counts(self) -> RunCounts:
        return RunCounts(
            searches=self.searches,
            requests=self.requests,
            listings_seen=self.saved.seen,
            listings_new=self.saved.new_listings,
            observations_new=self.saved.new_observations,
            cards_skipped=self.saved.cards_skipped,
        )


@contextlib.contextmanager
def _interrupted_on_ctrl_c(
    engine: Engine, run_id: int, now: Callable[[], datetime], tally: _Tally
) -> Iterator[None]:
    """Ctrl-C: what was saved stays (each page is its own transaction); the run says so, with
    what it had done (``rigscout runs`` shows the searches, requests and listings)."""
    try:
        yield
    except KeyboardInterrupt:
        with Session(engine) as session:
            save_run_interrupted(session, run_id, now=now(), counts=tally.counts())
        raise


def _collect_all(
    plan: RunPlan,
    *,
    engine: Engine,
    collector: Collector,
    normalize: Callable[[Listing], Normalized],
    run_id: int,
    now: Callable[[], datetime],
    on_step: Callable[[str], None],
    tally: _Tally | None = None,
) -> tuple[SaveCounts, list[SearchFailure], int, int]:
    """Collect every search this run takes; returns the totals, the failures, the requests
    sent (failed searches' too) and how many searches the run took in hand. ``tally`` follows
    along, for a run stopped halfway."""
    tally = tally or _Tally()
    totals = SaveCounts(0, 0, 0, 0)
    failures: list[SearchFailure] = []
    requests = 0
    taken = 0
    for search in _searches_for(plan, engine, now):
        taken += 1
        tally.searches = taken
        failed_before = len(failures)
        for mode in search.modes:
            on_step(f"{search.name} ({mode.value})")
            deferred = _deferred_until(engine, search, now())
            if deferred is not None:
                message = f"deferred: eBay asked us to wait until {deferred:%Y-%m-%d %H:%M} UTC"
                failures.append(SearchFailure(search.name, mode.value, message))
                continue
            try:
                counts, spent = collect_and_save(
                    search,
                    mode,
                    engine=engine,
                    collector=collector,
                    normalize=normalize,
                    run_id=run_id,
                    now=now,
                    full_sweep=None
                    if plan.full_sweep_hours is None
                    else timedelta(hours=plan.full_sweep_hours),
                )
            except UnreachableError:
                raise  # every search would fail the same way: the run stops here
            except CollectError as exc:
                log.warning("search %s (%s) failed: %s", search.name, mode.value, exc)
                failures.append(SearchFailure(search.name, mode.value, redact(str(exc)), exc.url))
                requests += exc.requests
                tally.requests = requests
                if isinstance(exc, RateLimitedError):
                    _defer(engine, search, exc, now())
                continue
            totals = totals + counts
            requests += spent
            tally.saved, tally.requests = totals, requests
        if plan.lease_key:
            with Session(engine) as session:
                ok = len(failures) == failed_before
                save_lease_result(session, plan.lease_key, search.name, ok=ok, now=now())
    return totals, failures, requests, taken


def _deferred_until(engine: Engine, search: SavedSearch, now: datetime) -> datetime | None:
    with Session(engine) as session:
        return load_deferral(session, search.name, now=now)


def _defer(engine: Engine, search: SavedSearch, error: RateLimitedError, now: datetime) -> None:
    with Session(engine) as session, session.begin():
        save_deferral(session, search.name, until=error.until, reason=str(error), now=now)


def _all_searches_done(plan: RunPlan, engine: Engine) -> bool:
    if plan.lease_key is None:
        return True
    with Session(engine) as session:
        return load_open_lease_count(session, plan.lease_key) == 0


def _searches_for(
    plan: RunPlan, engine: Engine, now: Callable[[], datetime]
) -> Iterator[SavedSearch]:
    """Every saved search, or for a worker, each search it manages to lease."""
    if plan.lease_key is None:
        yield from plan.searches
        return
    by_name = {s.name: s for s in plan.searches}
    with Session(engine) as session:
        save_lease_rows(session, plan.lease_key, list(by_name), now())
    tried: set[str] = set()
    while True:
        with Session(engine) as session:
            name = claim_next_search(session, plan.lease_key, plan.worker, now(), tried=tried)
        if name is None:
            return
        tried.add(name)
        log.info("worker %s leased search %s", plan.worker, name)
        yield by_name[name]


def collect_and_save(
    search: SavedSearch,
    mode: Mode,
    *,
    engine: Engine,
    collector: Collector,
    normalize: Callable[[Listing], Normalized],
    run_id: int | None,
    now: Callable[[], datetime],
    full_sweep: timedelta | None = None,
) -> tuple[SaveCounts, int]:
    """Collect one search and save it in one transaction: all of it, or nothing.

    Every page is read when the last full sweep of the search is ``full_sweep`` old or more.
    """

    def is_known(listings: Sequence[Listing]) -> set[str]:
        with Session(engine) as session:
            return load_known_item_ids(session, listings)

    with Session(engine) as session:
        full = full_sweep is not None and load_sweep_due(
            session, search.name, mode, every=full_sweep, now=now()
        )
    collected = collector(search, mode, is_known, full=full)
    if collected.skipped:
        log.warning(
            "search %s (%s): %d unreadable card(s) skipped, the rest of the page kept; first: %s",
            search.name,
            mode.value,
            len(collected.skipped),
            redact(collected.skipped[0]),
        )
    items = [(listing, normalize(listing)) for listing in collected.listings]
    with Session(engine) as session, session.begin():
        counts = save_listings(session, items, search=search.name, run_id=run_id, now=now())
        if collected.stopped != "all-known":
            save_sweep(session, search.name, mode, now=now())
    counts = replace(counts, cards_skipped=len(collected.skipped))
    log.info(
        "search %s (%s): %d listings, %d new, %d price changes, %d requests, stopped: %s",
        search.name,
        mode.value,
        counts.seen,
        counts.new_listings,
        counts.new_observations,
        collected.requests,
        collected.stopped,
    )
    return counts, collected.requests


def _alert_filters(settings: Settings, plan: RunPlan) -> RankFilters:
    return alert_filters(settings.alerts.rules if plan.alert else (), plan.profile)


def alert_filters(rules: Sequence[AlertRule], profile: str | None) -> RankFilters:
    """What a run ranks: every listing the alert ``rules`` may match (from kept rows, only
    those their conditions on the ranking's figures let through, ``rule_bounds``: each one,
    not only the top 50); the top 50 and every listing a rule matches get their sentence."""

    def matched(deal: Deal) -> bool:
        return any(rule_matches(deal, rule, profile) for rule in rules)

    if not rules:  # nothing to match: the summary's top is all this run needs
        return RankFilters(profile=profile, limit=SHOWN, kept_out=False)
    return RankFilters(
        profile=profile,
        limit=EVERY_LISTING,
        explain_top=SHOWN,
        explain_also=matched,
        kept_out=False,
        may_match=rule_bounds(rules, profile),
    )


def _alert(
    settings: Settings,
    plan: RunPlan,
    engine: Engine,
    deals: Sequence[Deal],
    notifiers: Mapping[str, Notifier],
    *,
    run_id: int,
    now: Callable[[], datetime],
) -> DispatchReport:
    rules = settings.alerts.rules
    facts = RuleFacts()
    if needs_history(rules):
        with Session(engine) as session:
            facts = load_rule_facts(
                session, deals, rules, settings.rank, profile=plan.profile, now=now()
            )
    trust = Trust.of(load_plan_rules())  # plan.toml [trust]: alerts weigh sellers as plans do
    matches = match_rules(deals, rules, profile=plan.profile, now=now(), facts=facts, trust=trust)
    if plan.dry_run:
        # Queue the alerts inside a transaction that is rolled back: the preview is exactly
        # what a real run would send, and nothing is recorded.
        with Session(engine) as session:
            save_pending_alerts(
                session, matches, price_drop=settings.alerts.price_drop, now=now(), run_id=run_id
            )
            save_plan_alerts(session, settings, now=now(), run_id=run_id)
            held = _held(settings, now())
            report = send_pending(session, notifiers, now=now(), dry_run=True, held=held)
            session.rollback()
            return report
    with Session(engine) as session, session.begin():
        save_pending_alerts(
            session, matches, price_drop=settings.alerts.price_drop, now=now(), run_id=run_id
        )
        save_plan_alerts(session, settings, now=now(), run_id=run_id)
    with Session(engine) as session:
        return send_pending(session, notifiers, now=now(), held=_held(settings, now()))


def _held(settings: Settings, now: datetime) -> dict[str, str]:
    """The channels in their quiet hours now, in the schedule's time zone."""
    quiet = {name: c.quiet_hours for name, c in settings.alerts.channels.items()}
    return held_channels(quiet, now=now, zone=ZoneInfo(settings.schedule.timezone))


def _channel_errors(dispatch: DispatchReport | None) -> list[dict[str, object]]:
    if dispatch is None:
        return []
    return [{"channel": name, "error": error} for name, error in dispatch.failed.items()]
