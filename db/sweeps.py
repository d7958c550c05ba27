"""When each saved search was last read through all its pages (a full sweep), in ``state``.

Between sweeps the collector stops at the first page with nothing new, so a price change on
a deeper page waits for the next sweep; ``[collector] full_sweep_hours`` sets how long at most.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from db.state import load_state, save_state

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from rigscout.models import Mode


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
