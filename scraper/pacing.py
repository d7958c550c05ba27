"""When the next request may start: the spacing between requests and the status-aware throttle.

``LocalPacer`` spaces the requests of one process; ``db.pacer.DatabasePacer`` spaces those of
every worker sharing a PostgreSQL database. ``Throttle`` stretches the interval after a 429 or
503 (eBay saying "slower", whatever the latency) and eases it back after successes.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable

MAX_SLOWDOWN = 32.0  # never slower than this many times the configured interval
RECOVERY = 0.8  # each success takes the slowdown this much closer to none


class Pacer(Protocol):
    """Hands out start times ``spacing`` seconds apart to every caller that shares it."""

    def reserve(self, spacing: float) -> float:
        """Book the next start; returns the seconds to wait before starting (0 for now)."""
        ...

    def hold(self, seconds: float) -> None:
        """No request starts before ``seconds`` from now."""
        ...


class LocalPacer:
    """Start times for the threads of one process, on ``clock`` (monotonic seconds)."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._next_start: float | None = None

    def reserve(self, spacing: float) -> float:
        with self._lock:
            now = self._clock()
            start = now if self._next_start is None else max(now, self._next_start)
            self._next_start = start + spacing
        return start - now

    def hold(self, seconds: float) -> None:
        with self._lock:
            until = self._clock() + seconds
            self._next_start = until if self._next_start is None else max(self._next_start, until)


class Throttle:
    """How many times the configured interval requests are currently spaced (1.0 = as set)."""

    def __init__(self, factor: float) -> None:
        self._factor = max(1.0, factor)
        self._lock = threading.Lock()
        self.slowdown = 1.0

    def saw(self, status: int) -> None:
        """A 429 or 503 multiplies the slowdown by the factor; a 2xx eases it back."""
        with self._lock:
            if status in (429, 503):
                self.slowdown = min(MAX_SLOWDOWN, self.slowdown * self._factor)
            elif 200 <= status < 300:
                self.slowdown = max(1.0, self.slowdown * RECOVERY)
