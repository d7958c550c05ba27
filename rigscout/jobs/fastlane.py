"""The fast lane: between full sweeps, poll each saved search's first page, newest first.

Underpriced cards sell within hours, so a daily run finds most of them gone. The fast lane
spends ``[collector] fast_lane_daily_requests`` first-page requests a day, shared out by where
new listings appeared over the last two weeks (at least one poll a day each, more for the busy
searches in proportion to the square root of their new listings), and runs them
through the daily job's own path: save, rank, alert (same outbox, so no duplicate alerts).
"""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from core.models import Mode

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from core.models import SavedSearch

DAY = timedelta(days=1)


def plan_poll_intervals(weights: Mapping[str, float], daily_requests: int) -> dict[str, timedelta]:
    """How often to poll each search: one poll a day each, and the rest of ``daily_requests``
    shared in proportion to the square root of ``weights`` (new listings seen per search);
    never over budget unless the budget is smaller than one poll per search.

    A deal waits half an interval on average, so the total wait of r deals a day polled every
    T is r·T/2; with the polls a day fixed, that is smallest when T goes as 1/sqrt(r).

    >>> intervals = plan_poll_intervals({"p40": 16.0, "a100": 4.0}, 8)
    >>> {name: interval / timedelta(hours=1) for name, interval in intervals.items()}
    {'p40': 4.8, 'a100': 8.0}
    """
    roots = {name: math.sqrt(max(0.0, w)) for name, w in weights.items()}
    total = sum(roots.values())
    spare = max(0, daily_requests - len(weights))
    intervals: dict[str, timedelta] = {}
    for name, root in roots.items():
        share = root / total if total > 0 else 1 / len(weights)
        intervals[name] = DAY / (1 + math.floor(spare * share))
    return intervals


def due_searches(
    searches: Sequence[SavedSearch],
    intervals: Mapping[str, timedelta],
    last_polls: Mapping[str, datetime | None],
    now: datetime,
) -> list[SavedSearch]:
    """The searches whose interval has passed since their last poll (or never polled),
    each as a fast-lane search: active listings, first page only."""
    due = []
    for search in searches:
        last = last_polls.get(search.name)
        interval = intervals.get(search.name, DAY)
        if last is None or now - last >= interval:
            due.append(replace(search, modes=(Mode.ACTIVE,), max_pages=1))
    return due
