"""When each saved search was last read through all its pages (a full sweep), and when the
fast lane last polled its first page, in the ``state`` table.

Between sweeps the collector stops at the first page with nothing new, so a price change on
a deeper page waits for the next sweep; ``[collector] full_sweep_hours`` sets how long at most.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import func, select

from db.models import ListingRow
from db.state import load_state, save_state

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sqlalchemy.orm import Session

    from core.models import Mode


def _key(search: str, mode: Mode) -> str:
    return f"sweep:{mode.value}:{search}"[:100]


def load_sweep_due(
    session: Session, search: str, mode: Mode, *, every: timedelta, now: datetime
) -> bool:
    """Whether ``search`` in ``mode`` is due for a full sweep (never swept, or ``every`` ago)."""
    record = load_state(session, _key(search, mode))
    last = record.get("at") if record else None
    if not isinstance(last, str):
        return True
    return datetime.fromisoformat(last) <= now - every


def save_sweep(session: Session, search: str, mode: Mode, *, now: datetime) -> None:
    """Record that every page of ``search`` in ``mode`` was read at ``now``."""
    save_state(session, _key(search, mode), {"at": now.isoformat()}, now)


def _poll_key(search: str) -> str:
    return f"fastlane:{search}"[:100]


def load_last_polls(session: Session, searches: list[str]) -> dict[str, datetime | None]:
    """When the fast lane last polled each search (None: never)."""
    polls: dict[str, datetime | None] = {}
    for name in searches:
        record = load_state(session, _poll_key(name))
        at = record.get("at") if record else None
        polls[name] = datetime.fromisoformat(at) if isinstance(at, str) else None
    return polls


def save_poll(session: Session, search: str, *, now: datetime) -> None:
    """Record a fast-lane poll of ``search`` at ``now``."""
    save_state(session, _poll_key(search), {"at": now.isoformat()}, now)


def load_search_weights(session: Session, names: Sequence[str], now: datetime) -> dict[str, float]:
    """New listings first seen per search over the last two weeks, plus one (so a quiet
    search still gets its daily poll and a new search is not starved)."""
    counts = dict(
        session.execute(
            select(ListingRow.search, func.count())
            .where(
                ListingRow.search.in_(list(names)),
                ListingRow.first_seen >= now - timedelta(days=14),
            )
            .group_by(ListingRow.search)
        ).all()
    )
    return {name: float(counts.get(name, 0)) + 1.0 for name in names}
