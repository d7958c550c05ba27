"""Searches eBay asked us to leave alone until a time (a long Retry-After), in the ``state`` table.

Every run and every worker sharing the database reads the same record, so nobody asks again
before the time eBay named. Work inside the caller's transaction, like ``db.state``.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from db.state import load_state, save_state

if TYPE_CHECKING:
    from sqlalchemy.orm import Session


def _key(search: str) -> str:
    return f"deferred:{search}"[:100]


def save_deferral(
    session: Session, search: str, *, until: datetime, reason: str, now: datetime
) -> None:
    """Leave ``search`` alone until ``until`` (a later deferral already stored wins)."""
    current = load_deferral(session, search, now=now)
    if current is not None and current >= until:
        return
    save_state(session, _key(search), {"until": until.isoformat(), "reason": reason[:300]}, now)


def load_deferral(session: Session, search: str, *, now: datetime) -> datetime | None:
    """Until when ``search`` is deferred, or None when it may be collected now."""
    record = load_state(session, _key(search))
    if not record or not isinstance(record.get("until"), str):
        return None
    until = datetime.fromisoformat(str(record["until"]))
    return until if until > now else None
