"""One request rate shared by every process on a PostgreSQL database (``rigscout run --worker``).

The next free start time lives in one ``state`` row; each request books its start under a
row lock (``SELECT … FOR UPDATE``), so two workers configured at 4 requests/s send 4 between
them, not 8. Times are wall-clock seconds: workers on several machines need synced clocks (NTP).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import Session

from db.state import load_state, save_state
from rigscout.errors import StoreError

if TYPE_CHECKING:
    from collections.abc import Callable

    from sqlalchemy import Engine

KEY = "pacer:search-pages"


class DatabasePacer:
    """``scraper.pacing.Pacer`` backed by the database; one short transaction per request."""

    def __init__(self, engine: Engine, *, wall: Callable[[], float] = time.time) -> None:
        self._engine = engine
        self._wall = wall

    def reserve(self, spacing: float) -> float:
        def book(now: float, next_start: float) -> tuple[float, float]:
            start = max(now, next_start)
            return start + spacing, start - now

        return self._update(book)

    def hold(self, seconds: float) -> None:
        self._update(lambda now, next_start: (max(next_start, now + seconds), 0.0))

    def _update(self, change: Callable[[float, float], tuple[float, float]]) -> float:
        """Apply ``change(now, next_start) -> (new next_start, result)`` under the row lock."""
        for _ in range(3):  # the first two workers may both insert the missing row
            try:
                return self._update_once(change)
            except IntegrityError:
                continue
            except SQLAlchemyError as exc:
                raise StoreError(f"cannot book a request slot: {type(exc).__name__}") from exc
        raise StoreError("cannot book a request slot: the pacer row keeps changing")

    def _update_once(self, change: Callable[[float, float], tuple[float, float]]) -> float:
        with Session(self._engine) as session, session.begin():
            record = load_state(session, KEY, lock=True) or {}
            now = self._wall()
            stored = record.get("next_start")
            next_start = float(stored) if isinstance(stored, int | float) else 0.0
            new_next, result = change(now, next_start)
            save_state(session, KEY, {"next_start": new_next}, datetime.fromtimestamp(now, tz=UTC))
        return result
