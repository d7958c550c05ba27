"""The ``ignores`` table: add, remove and read what the user asked never to see again.

``ranking.ignores`` decides what a stored ignore covers; this module only stores them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import delete, select

from db.models import IgnoreRow
from ranking.ignores import Ignores

if TYPE_CHECKING:
    from datetime import datetime

    from sqlalchemy.orm import Session


@dataclass(frozen=True, slots=True)
class StoredIgnore:
    kind: str
    value: str
    created_at: datetime


def save_ignore(session: Session, kind: str, value: str, *, now: datetime) -> bool:
    """Store one ignore (already in ``ranking.ignores.ignore_value`` form); False when it was
    there already."""
    exists = session.scalar(
        select(IgnoreRow.id).where(IgnoreRow.kind == kind, IgnoreRow.value == value)
    )
    if exists is not None:
        return False
    session.add(IgnoreRow(kind=kind, value=value, created_at=now))
    session.flush()
    return True


def delete_ignore(session: Session, kind: str, value: str) -> bool:
    """Remove one ignore; False when there was none."""
    result = session.execute(
        delete(IgnoreRow).where(IgnoreRow.kind == kind, IgnoreRow.value == value)
    )
    return bool(getattr(result, "rowcount", 0))


def load_ignore_list(session: Session) -> list[StoredIgnore]:
    """Every stored ignore, oldest first."""
    rows = session.execute(
        select(IgnoreRow.kind, IgnoreRow.value, IgnoreRow.created_at).order_by(IgnoreRow.id)
    )
    return [StoredIgnore(kind, value, created) for kind, value, created in rows]


def load_ignores(session: Session) -> Ignores:
    """The stored ignores as the ranking applies them."""
    by_kind: dict[str, set[str]] = {"item": set(), "seller": set(), "title_word": set()}
    for kind, value in session.execute(select(IgnoreRow.kind, IgnoreRow.value)):
        by_kind.setdefault(kind, set()).add(value)
    return Ignores(
        frozenset(by_kind["item"]), frozenset(by_kind["seller"]), frozenset(by_kind["title_word"])
    )
