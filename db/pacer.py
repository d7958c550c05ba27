"""One request rate shared by every process on a PostgreSQL database (``rigscout run --worker``).

The next free start time and the throttle's slowdown live in one ``state`` row; each request
books its start under a row lock (``SELECT … FOR UPDATE``), so two workers configured at
4 requests/s send 4 between them, not 8, and a 429 that one of them gets slows them all.
Times are wall-clock seconds: workers on several machines need synced clocks (NTP).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session

from core.errors import StoreError
from db.state import load_state, save_state
from scraper.pacing import next_slowdown

if TYPE_CHECKING:
    from collections.abc import Callable

    from sqlalchemy import Engine

KEY = "pacer:search-pages"


class DatabasePacer:
    """``scraper.pacing.Pacer`` backed by the database; one short transaction per request
    (two when an answer changes the slowdown)."""

    def __init__(
        self,
        engine: Engine,
        *,
        throttle_factor: float = 2.0,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self._engine = engine
        self._factor = throttle_factor
        self._wall = wall
        self.slowdown = 1.0  # as last read from the row

    def reserve(self, spacing: float) -> float:
        def book(now: float, next_start: float, slowdown: float) -> tuple[float, float, float]:
            start = max(now, next_start)
            return start + spacing * slowdown, slowdown, start - now

        return self._update(book)

    def hold(self, seconds: float) -> None:
        self._update(lambda now, start, slowdown: (max(start, now + seconds), slowdown, 0.0))

    def saw(self, status: int) -> None:
        if next_slowdown(self.slowdown, status, self._factor) == self.slowdown:
            return  # the common case, a success at full pace: nothing to write
        self._update(
            lambda now, start, slowdown: (
                start,
                next_slowdown(slowdown, status, self._factor),
                0.0,
            )
        )

    def _update(self, change: Callable[[float, float, float], tuple[float, float, float]]) -> float:
        """Apply ``change(now, next_start, slowdown) -> (next_start, slowdown, result)`` under
        the row lock."""
        for _ in range(3):  # the first two workers may both insert the missing row
            try:
                return self._update_once(change)
            except IntegrityError:
                continue
            except SQLAlchemyError as exc:
                raise StoreError(f"cannot book a request slot: {type(exc).__name__}") from exc
        raise StoreError("cannot book a request slot: the pacer row keeps changing")

    def _update_once(
        self, change: Callable[[float, float, float], tuple[float, float, float]]
    ) -> float:
        with Session(self._engine) as session, session.begin():
            record = load_state(session, KEY, lock=True) or {}
            now = self._wall()
            next_start, slowdown, result = change(
                now, _number(record, "next_start", 0.0), _number(record, "slowdown", 1.0)
            )
            stamp = datetime.fromtimestamp(now, tz=UTC)
            save_state(session, KEY, {"next_start": next_start, "slowdown": slowdown}, stamp)
        self.slowdown = slowdown
        return result


def _number(record: dict[str, Any], key: str, default: float) -> float:
    value = record.get(key)
    return float(value) if isinstance(value, int | float) else default
