"""Polite HTTP fetching of eBay pages: rate limit with jitter, concurrency cap, retries.

Settings (``[collector]``): ``requests_per_second``, ``jitter``, ``concurrency``, ``timeout``,
``retries`` with exponential ``backoff`` on 429/5xx/timeouts (Retry-After wins), and
``max_total_seconds`` for the fetcher's whole life; ``user_agent`` is sent as is. ``timeout``
bounds each whole request, connect to last byte (``scraper.deadline``), never only one read.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING

import httpx

from rigscout.errors import BlockedError, ConfigError, FetchError
from scraper.deadline import fetch_within

if TYPE_CHECKING:
    from collections.abc import Callable

    from rigscout.config import CollectorSettings

log = logging.getLogger(__name__)

RETRY_AFTER_CAP = 300.0  # seconds; a longer wait is treated as this long
TRANSIENT_ERRORS = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)


@dataclass(frozen=True, slots=True)
class _Retry:
    """One failed attempt worth retrying, and what the server asked of us."""

    reason: str
    status: int | None = None
    retry_after: float | None = None


class PoliteFetcher:
    """Fetches pages one polite request at a time; share one instance across threads.

    Every request (retries included) waits its turn under one rate limit: consecutive
    starts are at least ``1 / requests_per_second`` apart, plus up to ``jitter`` of that
    interval at random, and a 429 holds back every caller until its Retry-After passes.
    At most ``concurrency`` requests are in flight. ``requests`` counts requests sent.
    """

    def __init__(
        self,
        client: httpx.Client,
        settings: CollectorSettings,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        self.client = client
        self.settings = settings
        self.requests = 0
        self._sleep = sleep
        self._clock = clock
        self._rng = rng or random.Random()
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(max(1, settings.concurrency))
        self._next_start: float | None = None
        self._deadline = clock() + settings.max_total_seconds
        if settings.requests_per_second <= 0 or settings.jitter < 0 or settings.concurrency < 1:
            raise ConfigError(
                "[collector] needs requests_per_second > 0, jitter >= 0 and concurrency >= 1"
            )

    def fetch_text(self, url: str, *, search: str | None = None) -> str:
        """The decoded body of a 200 answer to GET ``url``; FetchError when it cannot be had."""
        attempt = 0
        while True:
            outcome = self._attempt(url, search)
            if isinstance(outcome, str):
                return outcome
            if attempt >= self.settings.retries:
                raise FetchError(
                    f"{outcome.reason} after {attempt + 1} attempts",
                    url=url,
                    search=search,
                    status=outcome.status,
                )
            self._wait_before_retry(outcome, attempt, url, search)
            attempt += 1

    def _attempt(self, url: str, search: str | None) -> str | _Retry:
        with self._slots:
            self._take_turn(url, search)
            remaining = self._remaining(url, search)
            with self._lock:
                self.requests += 1
            try:
                response = fetch_within(
                    self.client,
                    "GET",
                    url,
                    seconds=min(self.settings.timeout, remaining),
                    headers={"User-Agent": self.settings.user_agent},
                )
            except TRANSIENT_ERRORS as exc:
                log.info("GET %s failed: %s", url, type(exc).__name__)
                return _Retry(f"{type(exc).__name__}: {exc}")
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
                raise FetchError(f"cannot fetch: {exc}", url=url, search=search) from exc
        return _judge(response, url, search)

    def _take_turn(self, url: str, search: str | None) -> None:
        """Reserve the next start time under the lock, then sleep outside it."""
        interval = 1.0 / self.settings.requests_per_second
        with self._lock:
            now = self._clock()
            start = now if self._next_start is None else max(now, self._next_start)
            spacing = interval * (1.0 + self.settings.jitter * self._rng.random())
            self._next_start = start + spacing
        if start > now:
            if start > self._deadline:
                raise self._budget_spent(url, search)
            self._sleep(start - now)

    def _remaining(self, url: str, search: str | None) -> float:
        remaining = self._deadline - self._clock()
        if remaining <= 0:
            raise self._budget_spent(url, search)
        return remaining

    def _budget_spent(self, url: str, search: str | None) -> FetchError:
        budget = self.settings.max_total_seconds
        return FetchError(f"time budget of {budget:g}s spent", url=url, search=search)

    def _wait_before_retry(
        self, outcome: _Retry, attempt: int, url: str, search: str | None
    ) -> None:
        delay = outcome.retry_after
        if delay is None:
            delay = self.settings.backoff * 2**attempt
        if self._clock() + delay > self._deadline:
            raise FetchError(
                f"{outcome.reason}; waiting {delay:g}s more would pass the time budget "
                f"of {self.settings.max_total_seconds:g}s",
                url=url,
                search=search,
                status=outcome.status,
            )
        log.info("GET %s: %s; retrying in %.1fs", url, outcome.reason, delay)
        if outcome.status == 429:
            self._hold_everyone(delay)
        self._sleep(delay)

    def _hold_everyone(self, delay: float) -> None:
        """A 429 is about us as a whole: no thread starts a request before it has passed."""
        with self._lock:
            until = self._clock() + delay
            self._next_start = until if self._next_start is None else max(self._next_start, until)


def _judge(response: httpx.Response, url: str, search: str | None) -> str | _Retry:
    """The text of a success, a retry for 429/5xx, a FetchError for anything else."""
    status = response.status_code
    if response.history and _is_signin(response.url):
        raise BlockedError(
            f"eBay redirected to a sign-in wall ({response.url.host}{response.url.path})",
            url=url,
            search=search,
        )
    if status == 200:
        return response.text
    if status == 429 or status >= 500:
        return _Retry(f"HTTP {status}", status, parse_retry_after(response))
    raise FetchError(
        f"HTTP {status} {response.reason_phrase}", url=url, search=search, status=status
    )


def _is_signin(url: httpx.URL) -> bool:
    return url.host.startswith("signin.") or url.path.lower().startswith("/signin")


def parse_retry_after(response: httpx.Response) -> float | None:
    """Seconds to wait from ``Retry-After`` (seconds or an HTTP date), capped; None if absent.

    An HTTP date is read against the response's own ``Date`` header, so our clock's skew
    against eBay's does not matter.
    """
    value = response.headers.get("Retry-After", "").strip()
    if not value:
        return None
    if value.isdigit():
        return min(float(value), RETRY_AFTER_CAP)
    try:
        when = _aware(parsedate_to_datetime(value))
        sent = response.headers.get("Date")
        now = _aware(parsedate_to_datetime(sent)) if sent else datetime.now(UTC)
    except (TypeError, ValueError):
        return None
    return min(max(0.0, (when - now).total_seconds()), RETRY_AFTER_CAP)


def _aware(moment: datetime) -> datetime:
    """HTTP dates are GMT; ``-0000`` parses as naive."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
