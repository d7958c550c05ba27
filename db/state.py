"""Small persistent key/value state in the ``state`` table: the Browse API token and call budget.

``load_state``/``save_state`` work inside the caller's transaction; ``SessionStateStore`` wraps
them for the Browse collector and commits every save at once, so a spent call is never lost.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from core.errors import StoreError
from db.engine import without_waiting
from db.models import KeyValueRow

if TYPE_CHECKING:
    from datetime import datetime

    from sqlalchemy import Engine


def load_state(session: Session, key: str, *, lock: bool = False) -> dict[str, object] | None:
    """The value stored under ``key``, or None. ``lock`` holds the row until the next commit."""
    query = select(KeyValueRow.value).where(KeyValueRow.key == key)
    if lock:
        query = query.with_for_update()
    value = session.scalar(query)
    return dict(value) if value is not None else None


def save_state(session: Session, key: str, value: dict[str, object], now: datetime) -> None:
    """Insert or replace the value under ``key`` (flushed, not committed)."""
    row = session.scalars(
        select(KeyValueRow).where(KeyValueRow.key == key).execution_options(populate_existing=True)
    ).one_or_none()
    if row is None:
        session.add(KeyValueRow(key=key, value=dict(value), updated_at=now))
    else:
        row.value = dict(value)
        row.updated_at = now
    session.flush()


def save_state_unless_busy(
    engine: Engine, key: str, value: dict[str, object], now: datetime
) -> bool:
    """Save and commit ``value`` in a transaction of its own, unless that means waiting.

    For state that is only a cache: where another transaction holds the lock it needs, it gives
    up at once (False) rather than wait out the busy timeout, and a store that refuses the write
    (a read-only file) is False too.
    """
    try:
        with Session(engine) as session, without_waiting(session):
            save_state(session, key, value, now)
            session.commit()
    except SQLAlchemyError:
        return False
    return True


class SessionStateStore:
    """The collector's view of the state table. Give it a session of its own: saves commit."""

    def __init__(self, session: Session) -> None:
        self._session = session

    def load(self, key: str, *, lock: bool = False) -> dict[str, object] | None:
        try:
            return load_state(self._session, key, lock=lock)
        except SQLAlchemyError as exc:
            self._session.rollback()
            raise StoreError(f"cannot read state {key!r}: {type(exc).__name__}") from exc

    def save(self, key: str, value: dict[str, object], now: datetime) -> None:
        try:
            save_state(self._session, key, value, now)
            self._session.commit()
        except SQLAlchemyError as exc:
            self._session.rollback()
            raise StoreError(f"cannot write state {key!r}: {type(exc).__name__}") from exc

    def release(self) -> None:
        """End the read transaction (and any row lock) without writing."""
        self._session.rollback()
