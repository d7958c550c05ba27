"""A simulated day of eBay: how many underpriced listings are alerted before they sell, once a
day against the fast lane, at equal or lower daily requests.

A simulated market lists items for the starter's 11 searches over 24 hours (busy searches list
more); one in ten is underpriced and sells after an exponential delay averaging two hours. The
fast lane's own scheduling code (``plan_poll_intervals``, ``due_searches``, a daemon tick every
two minutes) decides when each first page is polled, weighted by the previous day's new
listings; a poll sees every unsold listing of its search listed before it (newest first, they
fit on page 1). The baselines are one full run a day at 06:00, and as many full runs a day as
the same request budget buys, evenly spaced. Several simulated days, one seed each, are pooled.
The fair baseline is ``fast_lane_unweighted``: the same first-page polling on the same budget in
equal shares, without the learned weights; ``fair_ratio`` is the lane's gain over it.
"""

from __future__ import annotations

import random
import statistics
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from core.models import SavedSearch
from rigscout.jobs.fastlane import due_searches, plan_poll_intervals
from rigscout.jobs.scheduler import FAST_LANE_TICK_MINUTES

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
MEAN_SALE_HOURS = 2.0  # how long an underpriced listing stays up
SWEEP_REQUESTS = 4  # a full sweep of one search: active pages 1-3 and sold page 1
DAILY_RUN_HOUR = 6
DAY = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class Item:
    search: str
    listed: datetime
    sold: datetime


def _simulate_day(rng: random.Random, start: datetime) -> tuple[list[Item], dict[str, int]]:
    """The underpriced items of one day, and how many listings each search got."""
    items: list[Item] = []
    counts: dict[str, int] = {}
    for search, rate in LISTINGS_PER_DAY.items():
        n = _poisson(rng, rate)
        counts[search] = n
        for _ in range(n):
            if rng.random() >= UNDERPRICED_SHARE:
                continue
            listed = start + timedelta(seconds=rng.uniform(0, 86400))
            life = timedelta(hours=rng.expovariate(1 / MEAN_SALE_HOURS))
            items.append(Item(search, listed, listed + life))
    return items, counts


def _poisson(rng: random.Random, mean: float) -> int:
    """Knuth's method; means here are small."""
    limit, k, p = pow(2.718281828459045, -mean), 0, 1.0
    while True:
        p *= rng.random()
        if p <= limit:
            return k
        k += 1


def _daily_run(items: list[Item], start: datetime, runs: int = 1) -> dict[Item, datetime]:
    """Alert times under ``runs`` full runs a day, evenly spaced from 06:00."""
    alerted: dict[Item, datetime] = {}
    for n in range(runs):
        at = start + timedelta(hours=DAILY_RUN_HOUR) + n * DAY / runs
        at -= DAY if at >= start + DAY else timedelta(0)
        for item in items:
            if item.listed <= at < item.sold and (item not in alerted or at < alerted[item]):
                alerted[item] = at
    return alerted


def _fast_lane(
    items: list[Item], start: datetime, weights: dict[str, float], budget: int
) -> tuple[dict[Item, datetime], int]:
    """Alert times under the fast lane, and the first-page requests it spent."""
    searches = [SavedSearch(name=name, query=name) for name in LISTINGS_PER_DAY]
    intervals = plan_poll_intervals(weights, budget)
    last: dict[str, datetime | None] = dict.fromkeys(LISTINGS_PER_DAY, start - DAY)
    by_search: dict[str, list[Item]] = {name: [] for name in LISTINGS_PER_DAY}
    for item in items:
        by_search[item.search].append(item)
    alerted = _daily_run(items, start)  # the daily sweep still runs
    polls = 0
    tick = timedelta(minutes=FAST_LANE_TICK_MINUTES)
    now = start
    while now < start + DAY:
        for search in due_searches(searches, intervals, last, now):
            polls += 1
            last[search.name] = now
            for item in by_search[search.name]:
                if item not in alerted and item.listed <= now < item.sold:
                    alerted[item] = now
        now += tick
    return alerted, polls


def _score(items: list[Item], alerted: dict[Item, datetime]) -> tuple[float, float]:
    caught = [item for item in items if item in alerted]
    minutes = [(alerted[item] - item.listed).total_seconds() / 60 for item in caught]
    share = len(caught) / len(items) if items else 0.0
    return share, statistics.median(minutes) if minutes else float("nan")


def run(days: int = 30, daily_requests: int = 300) -> dict[str, object]:
    """Pool ``days`` simulated days; the fast lane gets what the sweep leaves of the budget."""
    sweep = SWEEP_REQUESTS * len(LISTINGS_PER_DAY)
    budget = daily_requests - sweep
    pooled: dict[str, list[tuple[Item, datetime | None]]] = {}
    spread = daily_requests // sweep  # full runs a day within the same budget
    requests = {
        "one_run_a_day": sweep,
        f"{spread}_full_runs_a_day": spread * sweep,
        "fast_lane": 0,
        "fast_lane_unweighted": 0,
    }
    for day in range(days):
        rng = random.Random(day)
        start = datetime(2026, 7, 1, tzinfo=UTC) + day * DAY
        _, yesterday = _simulate_day(rng, start - DAY)
        items, _ = _simulate_day(rng, start)
        learned = {name: yesterday[name] + 1.0 for name in LISTINGS_PER_DAY}
        equal = dict.fromkeys(LISTINGS_PER_DAY, 1.0)
        runs = {
            "one_run_a_day": (_daily_run(items, start), 0),
            f"{spread}_full_runs_a_day": (_daily_run(items, start, spread), 0),
            "fast_lane": _fast_lane(items, start, learned, budget),
            "fast_lane_unweighted": _fast_lane(items, start, equal, budget),
        }
        for name, (alerted, polls) in runs.items():
            pooled.setdefault(name, []).extend((item, alerted.get(item)) for item in items)
            if polls:
                requests[name] = max(requests[name], sweep + polls)
    figures: dict[str, object] = {
        "days": days,
        "underpriced_items": len(pooled["fast_lane"]),
        "max_requests_per_day": requests,
    }
    for name, pairs in pooled.items():
        share, median = _score([i for i, _ in pairs], {i: t for i, t in pairs if t is not None})
        figures[name] = {"caught": round(share, 3), "median_minutes_to_alert": round(median, 1)}
    lane = figures["fast_lane"]["caught"]  # type: ignore[index]
    # Naive: against one run a day (a sixth of the requests). Fair: against polling every
    # search's first page in equal shares on the same request budget.
    figures["naive_ratio"] = round(lane / figures["one_run_a_day"]["caught"], 2)  # type: ignore[index]
    figures["fair_ratio"] = round(lane / figures["fast_lane_unweighted"]["caught"], 2)  # type: ignore[index]
    return figures
