"""Polite HTTP fetching of eBay pages: rate limit with jitter, concurrency cap, retries.

Settings (``[collector]``): ``requests_per_second``, ``jitter``, ``concurrency``, ``timeout``,
``retries`` with exponential ``backoff`` on 429/5xx/timeouts under the one retry policy
(``core.retry``: a Retry-After up to ``max_retry_wait`` is waited out, a longer one raises
RateLimitedError so the search is deferred), ``throttle_factor`` (a 429/503 slows every
request), and ``max_total_seconds`` for the fetcher's whole life; ``user_agent`` is sent as
is. ``timeout`` bounds each whole request, connect to last byte (``core.deadline``).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import httpx

from core.deadline import fetch_within, text_of
from core.errors import BlockedError, ConfigError, FetchError, RateLimitedError, UnreachableError
from core.marketplaces import marketplace, marketplace_of_host
from core.retry import Transient, call_with_retries, parse_retry_after, policy_for
from scraper.pacing import LocalPacer
from scraper.parse import MAX_PAGE_BYTES

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.settings import CollectorSettings
    from scraper.pacing import Pacer

log = logging.getLogger(__name__)

TRANSIENT_ERRORS = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)


def _unreachable(url: str, exc: httpx.ConnectError, search: str | None) -> UnreachableError:
    host = urlsplit(url).hostname or url
    reason = str(exc).strip() or type(exc).__name__
    return UnreachableError(
        f"cannot reach {host}: {reason} — check the connection or [collector] base_url",
        url=url,
        search=search,
    )


def _utcnow() -> datetime:
    return datetime.now(UTC)


class PoliteFetcher:
    """Fetches pages one polite request at a time; share one instance across threads.

    Every request (retries included) waits its turn under one rate limit: consecutive
    starts are at least ``1 / requests_per_second`` apart, plus up to ``jitter`` of that
    interval at random, times the pacer's slowdown after 429s and 503s; a 429 holds back every
    caller until its Retry-After passes. The ``pacer`` hands out the start times and keeps the
    slowdown (shared by every worker when it lives in the database). At most ``concurrency``
    requests are in flight. ``requests`` counts requests sent, failed ones included.
    """

    def __init__(
        self,
        client: httpx.Client,
        settings: CollectorSettings,
        *,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        pacer: Pacer | None = None,
        wall: Callable[[], datetime] = _utcnow,
    ) -> None:
        if settings.requests_per_second <= 0 or settings.jitter < 0 or settings.concurrency < 1:
            raise ConfigError(
                "[collector] needs requests_per_second > 0, jitter >= 0 and concurrency >= 1"
            )
        self.client = client
        self.settings = settings
        self.requests = 0
        self._reached = False  # any answer at all yet (then a failed connect is a blip)
        self._sleep = sleep
        self._clock = clock
        self._wall = wall
        self._rng = rng or random.Random()
        self._lock = threading.Lock()
        self._slots = threading.BoundedSemaphore(max(1, settings.concurrency))
        self._pacer = pacer or LocalPacer(clock, throttle_factor=settings.throttle_factor)
        self._policy = policy_for("search", settings)
        self._deadline = clock() + settings.max_total_seconds

    @property
    def slowdown(self) -> float:
        """How many times the configured interval requests are spaced now (after 429s/503s)."""
        return self._pacer.slowdown

    def fetch_text(
        self, url: str, *, search: str | None = None, accept_language: str | None = None
    ) -> str:
        """The decoded body of a 200 answer to GET ``url``; FetchError when it cannot be had.
        ``accept_language``: the marketplace's (default: that of the site ``url`` is on).

        RateLimitedError when eBay asks for a longer wait than ``max_retry_wait``: the
        search is to be deferred until then, not retried early.
        """
        tries = 0

        def attempt() -> str:
            nonlocal tries
            tries += 1
            return self._attempt(url, search, language)

        language = accept_language or _accept_language(url)

        def before_wait(error: Transient, seconds: float, _: int) -> None:
            self._before_wait(error, seconds, url, search)

        try:
            return call_with_retries(
                attempt, self._policy, sleep=self._sleep, before_wait=before_wait
            )
        except Transient as exc:
            raise self._give_up(exc, tries, url, search) from exc

    def _give_up(self, error: Transient, tries: int, url: str, search: str | None) -> FetchError:
        defer = error.defer_for(self._policy)
        if defer is None:
            return FetchError(
                f"{error.reason} after {tries} attempts",
                url=url,
                search=search,
                status=error.status,
            )
        until = self._wall() + timedelta(seconds=defer)
        return RateLimitedError(
            f"{error.reason}: eBay asks us to wait {defer:g}s (Retry-After), longer than "
            f"max_retry_wait ({self._policy.max_retry_wait:g}s); deferred until "
            f"{until:%Y-%m-%d %H:%M:%S} UTC",
            until=until,
            url=url,
            search=search,
            status=error.status,
        )

    def _attempt(self, url: str, search: str | None, language: str) -> str:
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
                    max_bytes=MAX_PAGE_BYTES,
                    headers={
                        "User-Agent": self.settings.user_agent,
                        "Accept-Language": language,
                    },
                )
            except httpx.ConnectError as exc:
                if not self._reached:  # nothing got through yet: no point retrying anything
                    raise _unreachable(url, exc, search) from exc
                log.info("GET %s failed: %s", url, type(exc).__name__)
                raise Transient(f"{type(exc).__name__}: {exc}") from exc
            except TRANSIENT_ERRORS as exc:
                log.info("GET %s failed: %s", url, type(exc).__name__)
                raise Transient(f"{type(exc).__name__}: {exc}") from exc
            except (httpx.HTTPError, httpx.InvalidURL) as exc:
                raise FetchError(f"cannot fetch: {exc}", url=url, search=search) from exc
        self._reached = True
        self._pacer.saw(response.status_code)
        return _judge(response, url, search, now=self._wall())

    def _take_turn(self, url: str, search: str | None) -> None:
        """Book the next start with the pacer, then sleep until it outside any lock."""
        interval = 1.0 / self.settings.requests_per_second
        spacing = interval * (1.0 + self.settings.jitter * self._rng.random())
        wait = self._pacer.reserve(spacing)
        if wait > 0:
            if self._clock() + wait > self._deadline:
                raise self._budget_spent(url, search)
            self._sleep(wait)

    def _remaining(self, url: str, search: str | None) -> float:
        remaining = self._deadline - self._clock()
        if remaining <= 0:
            raise self._budget_spent(url, search)
        return remaining

    def _budget_spent(self, url: str, search: str | None) -> FetchError:
        budget = self.settings.max_total_seconds
        return FetchError(f"time budget of {budget:g}s spent", url=url, search=search)

    def _before_wait(self, error: Transient, delay: float, url: str, search: str | None) -> None:
        if self._clock() + delay > self._deadline:
            raise FetchError(
                f"{error.reason}; waiting {delay:g}s more would pass the time budget "
                f"of {self.settings.max_total_seconds:g}s",
                url=url,
                search=search,
                status=error.status,
            )
        log.info("GET %s: %s; retrying in %.1fs", url, error.reason, delay)
        if error.status == 429:
            # A 429 is about us as a whole: no thread starts a request before it has passed.
            self._pacer.hold(delay)


def _judge(response: httpx.Response, url: str, search: str | None, *, now: datetime) -> str:
    """The text of a success; Transient for 429/5xx; a FetchError for anything else."""
    status = response.status_code
    if response.history and _is_signin(response.url):
        raise BlockedError(
            f"eBay redirected to a sign-in wall ({response.url.host}{response.url.path})",
            url=url,
            search=search,
        )
    if status == 200:
        return text_of(response)
    if status == 429 or status >= 500:
        raise Transient(
            f"HTTP {status}",
            status=status,
            retry_after=parse_retry_after(response.headers, now=now),
        )
    raise FetchError(
        f"HTTP {status} {response.reason_phrase}", url=url, search=search, status=status
    )


def _is_signin(url: httpx.URL) -> bool:
    return url.host.startswith("signin.") or url.path.lower().startswith("/signin")


def _accept_language(url: str) -> str:
    """The language the marketplace of ``url`` writes its pages in, as eBay should answer:
    without it eBay picks one from where the request comes (ebay.com in Spanish, say)."""
    host = urlsplit(url).hostname or ""
    return marketplace(marketplace_of_host(host)).accept_language
