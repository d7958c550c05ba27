"""When the next request may start: the spacing between requests and the status-aware throttle.

``LocalPacer`` spaces the requests of one process; ``db.pacer.DatabasePacer`` spaces those of
every worker sharing a PostgreSQL database. Both stretch the spacing after a 429 or 503 (eBay
saying "slower", whatever the latency) and ease it back after successes (``next_slowdown``),
so a 429 one worker gets slows every worker sharing the pacer.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable

MAX_SLOWDOWN = 32.0  # never slower than this many times the configured interval
RECOVERY = 0.8  # each success takes the slowdown this much closer to none


def next_slowdown(slowdown: float, status: int, factor: float) -> float:
    """After an answer with ``status``: a 429 or 503 multiplies the slowdown by ``factor``
    (at most ``MAX_SLOWDOWN``), a 2xx eases it back towards 1, anything else keeps it."""
    if status in (429, 503):
        return min(MAX_SLOWDOWN, slowdown * max(1.0, factor))
    if 200 <= status < 300:
        return max(1.0, slowdown * RECOVERY)
    return slowdown


class Pacer(Protocol):
    """Hands out start times to every caller that shares it, spaced by the current slowdown."""

    @property
    def slowdown(self) -> float:
        """How many times the asked spacing starts are currently apart (1.0: as asked)."""
        ...

    def reserve(self, spacing: float) -> float:
        """Book the next start ``spacing`` x the slowdown after the previous one; returns the
        seconds to wait before starting (0 for now)."""
        ...

    def hold(self, seconds: float) -> None:
        """No request starts before ``seconds`` from now."""
        ...

    def saw(self, status: int) -> None:
        """An answer came back with ``status`` (see ``next_slowdown``)."""
        ...


class LocalPacer:
    """Start times for the threads of one process, on ``clock`` (monotonic seconds)."""

    def __init__(self, clock: Callable[[], float], *, throttle_factor: float = 2.0) -> None:
        self._clock = clock
        self._factor = throttle_factor
        self._lock = threading.Lock()
        self._next_start: float | None = None
        self.slowdown = 1.0

    def reserve(self, spacing: float) -> float:
        with self._lock:
            now = self._clock()
            start = now if self._next_start is None else max(now, self._next_start)
            self._next_start = start + spacing * self.slowdown
        return start - now

    def hold(self, seconds: float) -> None:
        with self._lock:
            until = self._clock() + seconds
            self._next_start = until if self._next_start is None else max(self._next_start, until)

    def saw(self, status: int) -> None:
        with self._lock:
            self.slowdown = next_slowdown(self.slowdown, status, self._factor)
