"""The one retry policy of every outbound call: search pages, the Browse API and its token,
Discord webhooks, apprise services and SMTP. Built on tenacity; each endpoint's settings live
in ``POLICIES``.

A call signals a failure worth retrying by raising ``Transient`` (with the server's
Retry-After, if any). Waits are the server's Retry-After when it gives one, else exponential
backoff; a Retry-After longer than the policy's ``max_retry_wait`` is not waited out in place
and never shortened: the caller defers the work until then (``Transient.defer_for``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, TypeVar

import tenacity

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from core.settings import CollectorSettings

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """``attempts`` tries in all; waits of ``backoff`` doubling up to ``max_backoff`` seconds;
    a server's Retry-After up to ``max_retry_wait`` seconds is waited out, a longer one defers."""

    attempts: int
    backoff: float
    max_backoff: float = 300.0
    max_retry_wait: float = 300.0


# Per-endpoint settings, in this one place. Search pages take theirs from [collector].
POLICIES: Mapping[str, RetryPolicy] = {
    "search": RetryPolicy(attempts=5, backoff=2.0),
    "browse": RetryPolicy(attempts=4, backoff=2.0),
    "token": RetryPolicy(attempts=3, backoff=2.0),
    # Discord asks for short pauses; a longer rate limit leaves the alerts pending for next time.
    "discord": RetryPolicy(attempts=4, backoff=1.0, max_retry_wait=60.0),
    # apprise passes on no Retry-After: back off 2, 4, 8 s, then leave the alerts pending.
    "apprise": RetryPolicy(attempts=4, backoff=2.0, max_retry_wait=60.0),
    # A mail server that hangs up or answers 4xx is usually back within seconds.
    "smtp": RetryPolicy(attempts=3, backoff=2.0, max_retry_wait=0.0),
}


def policy_for(endpoint: str, collector: CollectorSettings | None = None) -> RetryPolicy:
    """The policy of ``endpoint``; ``[collector]`` settings shape the search and Browse ones."""
    policy = POLICIES[endpoint]
    if collector is None:
        return policy
    if endpoint == "search":
        policy = replace(policy, attempts=collector.retries + 1, backoff=collector.backoff)
    if endpoint in {"search", "browse", "token"}:
        policy = replace(policy, max_retry_wait=collector.max_retry_wait)
    return policy


class Transient(Exception):
    """One failed attempt worth retrying: why, the HTTP status, the server's Retry-After."""

    def __init__(
        self, reason: str, *, status: int | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.status = status
        self.retry_after = retry_after

    def defer_for(self, policy: RetryPolicy) -> float | None:
        """The Retry-After to defer by when it is longer than the policy waits in place."""
        if self.retry_after is not None and self.retry_after > policy.max_retry_wait:
            return self.retry_after
        return None


def call_with_retries(
    attempt: Callable[[], T],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], None],
    before_wait: Callable[[Transient, float, int], None] | None = None,
) -> T:
    """``attempt()`` until it returns, retrying ``Transient`` under ``policy``.

    The last ``Transient`` is re-raised when tries run out or its Retry-After is too long to
    wait; ``before_wait(error, seconds, tries_so_far)`` runs before each wait and may raise
    to stop (a spent time budget). Any other exception ends the call at once.
    """
    backoff = tenacity.wait_exponential(multiplier=policy.backoff, max=policy.max_backoff)

    def wait(state: tenacity.RetryCallState) -> float:
        error = _transient(state)
        if error is not None and error.retry_after is not None:
            return error.retry_after
        return float(backoff(state))

    def retry(state: tenacity.RetryCallState) -> bool:
        error = _transient(state)
        return error is not None and error.defer_for(policy) is None

    def before_sleep(state: tenacity.RetryCallState) -> None:
        error = _transient(state)
        if before_wait is not None and error is not None:
            before_wait(error, state.upcoming_sleep, state.attempt_number)

    retrying = tenacity.Retrying(
        stop=tenacity.stop_after_attempt(max(1, policy.attempts)),
        wait=wait,
        retry=retry,
        sleep=sleep,
        before_sleep=before_sleep,
        reraise=True,
    )
    return retrying(attempt)


def _transient(state: tenacity.RetryCallState) -> Transient | None:
    if state.outcome is None or not state.outcome.failed:
        return None
    error = state.outcome.exception()
    return error if isinstance(error, Transient) else None


def parse_retry_after(headers: Mapping[str, str], *, now: datetime | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds or an HTTP date); None if absent
    or unreadable. Never capped: a long wait is the caller's to honour or to defer.

    An HTTP date is read against the response's own ``Date`` header, so our clock's skew
    against the server's does not matter; ``now`` stands in when there is none.
    """
    value = (headers.get("Retry-After") or "").strip()
    if not value:
        return None
    try:  # seconds; Discord and others send fractions ("1.5") though RFC 9110 says digits
        seconds = float(value)
    except ValueError:
        pass
    else:
        return max(0.0, seconds) if math.isfinite(seconds) else None
    try:
        when = _aware(parsedate_to_datetime(value))
        sent = headers.get("Date")
        reference = _aware(parsedate_to_datetime(sent)) if sent else (now or datetime.now(UTC))
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, (when - reference).total_seconds())


def _aware(moment: datetime) -> datetime:
    """HTTP dates are GMT; ``-0000`` parses as naive."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
