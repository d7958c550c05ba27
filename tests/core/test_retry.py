"""The one Retry-After parser: seconds or an HTTP date, never capped, unreadable means absent."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.retry import POLICIES, parse_retry_after, policy_for
from core.settings import CollectorSettings

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"Retry-After": "7"}, 7.0),
        ({"Retry-After": "3600"}, 3600.0),  # an hour is an hour: never cut to 300 s
        ({"Retry-After": "86400"}, 86400.0),
        ({"Retry-After": "1.5"}, 1.5),  # Discord sends fractions
        (
            {
                "Retry-After": "Fri, 20 Nov 2026 13:00:00 GMT",
                "Date": "Fri, 20 Nov 2026 12:00:00 GMT",
            },
            3600.0,
        ),
        ({"Retry-After": "Fri, 20 Nov 2026 12:00:30 GMT"}, 30.0),  # no Date: against now
        ({"Retry-After": "Fri, 20 Nov 2026 11:00:00 GMT"}, 0.0),  # already past
        ({"Retry-After": "-5"}, 0.0),
        ({"Retry-After": "soon"}, None),
        ({"Retry-After": "inf"}, None),
        ({"Retry-After": "nan"}, None),
        ({"Retry-After": ""}, None),
        ({}, None),
    ],
)
def test_retry_after_in_seconds(headers: dict[str, str], seconds: float | None) -> None:
    assert parse_retry_after(headers, now=NOW) == seconds


def test_search_pages_take_their_retries_and_longest_wait_from_the_collector_settings() -> None:
    settings = CollectorSettings(retries=2, backoff=0.5, max_retry_wait=60.0)
    search = policy_for("search", settings)
    assert (search.attempts, search.backoff, search.max_retry_wait) == (3, 0.5, 60.0)
    assert policy_for("browse", settings).max_retry_wait == 60.0
    assert policy_for("discord", settings) == POLICIES["discord"]  # its own, set in one place
