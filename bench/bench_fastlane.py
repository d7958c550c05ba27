"""A simulated eBay: how many deals are alerted before they sell, by one daily run, by as many
full runs as the request budget buys, and by the fast lane on the same budget.

The market, per starter search (busy searches list more; ``LISTINGS_PER_DAY``):

- **Every listing, not only deals.** Nine in ten new listings are fairly priced: the lane must
  not alert on them (the ranker decides; here it is exact) but they fill result pages, newest
  first, ``RESULTS_PER_PAGE`` (240, ``scraper/urls.py``) a page, so a deal further down than
  the pages fetched is not seen. Each search starts with ``BACKLOG_DAYS`` of unsold listings.
- **Deals**: one new listing in ten is underpriced, and a fifth as many again are price drops
  on a listing already up for up to two weeks (newest-first pages rank it by its listing time,
  so it sits deep: only a sweep's pages 2-3 may reach it).
- **Time to sale** of a deal is log-normal (σ 1) around a median; the store has no data for it
  (a listing is seen when polled, not when it was listed), so every figure is given for a
  median of 10 minutes, 30 minutes and 2 hours.
- **Index lag**: a new listing or a price drop shows in search 1-15 minutes after it happens.
- **Every request counts**: a sweep fetches as many active pages as the search fills (at most
  three) and sold page 1; a fast-lane poll one page; ``RETRY_SHARE`` of requests are retried
  once (a 429 or a 5xx). The lane's daily budget is enforced as the running code enforces it
  (``fastlane_job``: no poll once the day's requests reach it). Browse API and OAuth token
  calls are not simulated: the starter collects search pages.

The fast lane's own scheduling code (``plan_poll_intervals``, ``due_searches``, a daemon tick
every two minutes) decides when each first page is polled, weighted by the previous day's new
listings. The fair baseline (``fast_lane_unweighted``) polls the same first pages on the same
budget in equal shares. Each figure is the mean over ``seeds`` runs of ``days`` days, with the
lowest and highest run.
"""

from __future__ import annotations

import bisect
import math
import random
import statistics
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from core.models import SavedSearch
from rigscout.cli.scheduler import FAST_LANE_TICK_MINUTES
from rigscout.jobs.fastlane import due_searches, plan_poll_intervals
from scraper.urls import RESULTS_PER_PAGE

# New listings a day per starter search (busy consumer cards, quiet server chassis).
LISTINGS_PER_DAY = {
    "v100-sxm2": 14,
    "v100-pcie": 8,
    "p40": 18,
    "p100": 10,
    "rtx-3090": 60,
    "rtx-4090": 35,
    "rtx-3060-12gb": 45,
    "a100": 6,
    "sys-4028gr": 3,
    "t181-g20": 1,
    "esc4000": 2,
}
UNDERPRICED_SHARE = 0.10
PRICE_DROP_SHARE = 0.2  # price-drop deals on older listings, per new underpriced listing
DROP_AGE_DAYS = 14  # how old a listing whose price drops may be
BACKLOG_DAYS = 5  # unsold listings each search already shows when a day starts
INDEX_LAG_MINUTES = (1.0, 15.0)
SALE_MEDIANS_MINUTES = (10, 30, 120)
SALE_SIGMA = 1.0
RETRY_SHARE = 0.03
SWEEP_PAGES = 3  # active pages of a full sweep (collector max_pages), plus sold page 1
DAILY_RUN_HOUR = 6
DAY = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class Deal:
    search: str
    listed: datetime  # when the listing went up (its place on newest-first pages)
    visible: datetime  # when the deal shows in search (listed, or its price drop, + lag)
    sold: datetime


@dataclass(frozen=True, slots=True)
class Day:
    """One simulated day: its deals, every search's listing times, and its new listings."""

    start: datetime
    deals: list[Deal]
    listed: dict[str, list[datetime]]  # every listing's time, sorted (backlog included)
    new: dict[str, int]


def _simulate_day(rng: random.Random, start: datetime, sale_median: float) -> Day:
    deals: list[Deal] = []
    listed: dict[str, list[datetime]] = {}
    new: dict[str, int] = {}
    for search, rate in LISTINGS_PER_DAY.items():
        backlog = _poisson(rng, rate * BACKLOG_DAYS)
        times = [start - timedelta(days=rng.uniform(0, BACKLOG_DAYS)) for _ in range(backlog)]
        n = _poisson(rng, rate)
        new[search] = n
        for _ in range(n):
            at = start + timedelta(seconds=rng.uniform(0, 86400))
            times.append(at)
            if rng.random() < UNDERPRICED_SHARE:
                deals.append(_deal(rng, search, at, at, sale_median))
        for _ in range(_poisson(rng, rate * UNDERPRICED_SHARE * PRICE_DROP_SHARE)):
            drop = start + timedelta(seconds=rng.uniform(0, 86400))
            age = timedelta(days=rng.uniform(0, DROP_AGE_DAYS))
            times.append(drop - age)
            deals.append(_deal(rng, search, drop - age, drop, sale_median))
        listed[search] = sorted(times)
    return Day(start, deals, listed, new)


def _deal(
    rng: random.Random, search: str, listed: datetime, happened: datetime, median: float
) -> Deal:
    lag = timedelta(minutes=rng.uniform(*INDEX_LAG_MINUTES))
    life = timedelta(minutes=median * math.exp(rng.gauss(0, SALE_SIGMA)))
    return Deal(search, listed, happened + lag, happened + lag + life)


def _poisson(rng: random.Random, mean: float) -> int:
    """Knuth's method for small means, a rounded normal for large ones."""
    if mean > 30:
        return max(0, round(rng.gauss(mean, math.sqrt(mean))))
    limit, k, p = math.exp(-mean), 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1


def _on_pages(deal: Deal, day: Day, at: datetime, pages: int) -> bool:
    """Whether a poll at ``at`` reading ``pages`` newest-first pages shows the deal."""
    if not deal.visible <= at < deal.sold:
        return False
    times = day.listed[deal.search]
    shown = bisect.bisect_right(times, at)  # listed by now (the lag on others is noise)
    newer = shown - bisect.bisect_right(times, deal.listed)
    return newer < pages * RESULTS_PER_PAGE


def _pages(day: Day, search: str, at: datetime) -> int:
    """Active pages a sweep fetches: as many as the search fills, at most ``SWEEP_PAGES``."""
    shown = bisect.bisect_right(day.listed[search], at)
    return min(SWEEP_PAGES, max(1, math.ceil(shown / RESULTS_PER_PAGE)))


def _with_retries(rng: random.Random, requests: int) -> int:
    return requests + sum(rng.random() < RETRY_SHARE for _ in range(requests))


def _sweeps(rng: random.Random, day: Day, runs: int) -> tuple[dict[Deal, datetime], int]:
    """Alert times under ``runs`` full sweeps a day, evenly spaced from 06:00, and requests."""
    alerted: dict[Deal, datetime] = {}
    requests = 0
    for n in range(runs):
        at = day.start + timedelta(hours=DAILY_RUN_HOUR) + n * DAY / runs
        at -= DAY if at >= day.start + DAY else timedelta(0)
        for search in LISTINGS_PER_DAY:
            pages = _pages(day, search, at)
            requests += _with_retries(rng, pages + 1)  # and sold page 1
            for deal in day.deals:
                seen = deal.search == search and _on_pages(deal, day, at, pages)
                if seen and (deal not in alerted or at < alerted[deal]):
                    alerted[deal] = at
    return alerted, requests


def _fast_lane(
    rng: random.Random, day: Day, weights: dict[str, float], budget: int
) -> tuple[dict[Deal, datetime], int]:
    """Alert times under the daily sweep plus the fast lane on ``budget`` requests a day."""
    alerted, requests = _sweeps(rng, day, 1)
    searches = [SavedSearch(name=name, query=name) for name in LISTINGS_PER_DAY]
    intervals = plan_poll_intervals(weights, budget)
    last: dict[str, datetime | None] = dict.fromkeys(LISTINGS_PER_DAY, day.start - DAY)
    by_search: dict[str, list[Deal]] = {name: [] for name in LISTINGS_PER_DAY}
    for deal in day.deals:
        by_search[deal.search].append(deal)
    spent = 0
    tick = timedelta(minutes=FAST_LANE_TICK_MINUTES)
    now = day.start
    while now < day.start + DAY:
        for search in due_searches(searches, intervals, last, now)[: max(budget - spent, 0)]:
            spent += _with_retries(rng, 1)
            last[search.name] = now
            for deal in by_search[search.name]:
                if deal not in alerted and _on_pages(deal, day, now, 1):
                    alerted[deal] = now
        now += tick
    return alerted, requests + spent


def _score(deals: list[Deal], alerted: dict[Deal, datetime]) -> tuple[float, float]:
    caught = [deal for deal in deals if deal in alerted]
    minutes = [(alerted[d] - d.visible).total_seconds() / 60 for d in caught]
    share = len(caught) / len(deals) if deals else 0.0
    return share, statistics.median(minutes) if minutes else float("nan")


def _one_seed(
    seed: int, days: int, daily_requests: int, sale_median: float
) -> dict[str, tuple[float, float, int]]:
    """Per strategy: share caught, median minutes to alert, most requests in a day."""
    pooled: dict[str, list[tuple[Deal, datetime | None]]] = {}
    most: dict[str, int] = {}
    for n in range(days):
        rng = random.Random(seed * 100_003 + n)
        start = datetime(2026, 7, 1, tzinfo=UTC) + n * DAY
        yesterday = _simulate_day(rng, start - DAY, sale_median)
        day = _simulate_day(rng, start, sale_median)
        # what a sweep costs today (pages the searches fill, sold pages, retries): the budget
        # buys that many full runs, or one run and a fast lane on the rest
        at = start + timedelta(hours=DAILY_RUN_HOUR)
        sweep = sum(_pages(day, s, at) + 1 for s in LISTINGS_PER_DAY) * (1 + RETRY_SHARE)
        spread = max(1, int(daily_requests // sweep))
        budget = daily_requests - math.ceil(sweep)
        learned = {name: yesterday.new[name] + 1.0 for name in LISTINGS_PER_DAY}
        equal = dict.fromkeys(LISTINGS_PER_DAY, 1.0)
        runs = {
            "one_run_a_day": _sweeps(rng, day, 1),
            "full_runs_on_the_budget": _sweeps(rng, day, spread),
            "fast_lane": _fast_lane(rng, day, learned, budget),
            "fast_lane_unweighted": _fast_lane(rng, day, equal, budget),
        }
        for name, (alerted, requests) in runs.items():
            pooled.setdefault(name, []).extend((d, alerted.get(d)) for d in day.deals)
            most[name] = max(most.get(name, 0), requests)
    result = {}
    for name, pairs in pooled.items():
        share, median = _score([d for d, _ in pairs], {d: t for d, t in pairs if t is not None})
        result[name] = (share, median, most[name])
    return result


def run(days: int = 30, seeds: int = 5, daily_requests: int = 300) -> dict[str, object]:
    """Each time-to-sale median: every strategy's mean over ``seeds`` runs of ``days`` days,
    with the lowest and highest run, and the lane's gain over one run a day (naive) and over
    equal-share polling on the same budget (fair)."""
    figures: dict[str, object] = {
        "days": days,
        "seeds": seeds,
        "daily_requests": daily_requests,
        "deals_per_day": round(
            sum(LISTINGS_PER_DAY.values()) * UNDERPRICED_SHARE * (1 + PRICE_DROP_SHARE), 1
        ),
    }
    for median in SALE_MEDIANS_MINUTES:
        runs = [_one_seed(seed, days, daily_requests, median) for seed in range(seeds)]
        scenario: dict[str, object] = {}
        for name in runs[0]:
            caught = [r[name][0] for r in runs]
            minutes = [r[name][1] for r in runs]
            requests = [r[name][2] for r in runs]
            scenario[name] = {
                "caught": round(statistics.mean(caught), 3),
                "caught_range": [round(min(caught), 3), round(max(caught), 3)],
                "median_minutes_to_alert": round(statistics.mean(minutes), 1),
                "minutes_range": [round(min(minutes), 1), round(max(minutes), 1)],
                "max_requests_per_day": max(requests),
            }
        lane = [r["fast_lane"][0] for r in runs]
        scenario["naive_ratio"] = round(
            statistics.mean(lane) / statistics.mean(r["one_run_a_day"][0] for r in runs), 2
        )
        scenario["fair_ratio"] = round(
            statistics.mean(lane) / statistics.mean(r["fast_lane_unweighted"][0] for r in runs), 2
        )
        figures[f"sale_median_{median}_min"] = scenario
    return figures
