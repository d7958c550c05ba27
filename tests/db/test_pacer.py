"""Workers sharing a database share one request rate and one throttle (``db/pacer.py``).

Each ``DatabasePacer`` stands for one worker process; they share nothing but the database,
on SQLite and on PostgreSQL (where ``rigscout run --worker`` uses it). A wall clock that
only moves when told keeps the figures exact.
"""

from __future__ import annotations

import httpx
import pytest

from core.settings import CollectorSettings
from db.pacer import DatabasePacer
from scraper.http import PoliteFetcher
from tests.support.fake_ebay import FakeEbay


class Wall:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def wall():
    return Wall()


def test_two_workers_book_starts_one_interval_apart_between_them(engine, wall):
    first, second = (DatabasePacer(engine, wall=wall) for _ in range(2))
    waits = [first.reserve(0.25), second.reserve(0.25), first.reserve(0.25)]
    assert waits == [0.0, 0.25, 0.5]


def test_a_429_one_worker_gets_spaces_out_the_other_worker_s_requests(engine, wall):
    hit, other = (DatabasePacer(engine, throttle_factor=4.0, wall=wall) for _ in range(2))
    hit.reserve(0.25)
    hit.saw(429)
    wall.now += 10  # long after: only the spacing is left to tell
    assert other.reserve(0.25) == 0.0
    assert other.reserve(0.25) == 1.0  # 0.25 s x 4
    assert other.slowdown == 4.0


def test_successes_seen_by_any_worker_ease_the_shared_pace_back(engine, wall):
    hit, other = (DatabasePacer(engine, throttle_factor=4.0, wall=wall) for _ in range(2))
    hit.reserve(0.25)
    hit.saw(503)
    for _ in range(10):
        other.reserve(0.25)
        other.saw(200)
    assert other.slowdown == 1.0
    hit.reserve(0.25)
    assert hit.slowdown == 1.0


def test_a_503_on_one_worker_s_fetcher_slows_the_other_worker_s_fetcher(engine):
    """End to end on the real clock: two fetchers, one local eBay, one shared database."""
    settings = CollectorSettings(
        requests_per_second=20.0, jitter=0.0, retries=2, backoff=0.01, throttle_factor=4.0
    )
    with FakeEbay() as ebay, httpx.Client() as client:
        ebay.add_page("a", "<html>ok</html>")
        first, second = (
            PoliteFetcher(client, settings, pacer=DatabasePacer(engine, throttle_factor=4.0))
            for _ in range(2)
        )
        ebay.fail_next(status=503)
        first.fetch_text(f"{ebay.base_url}/sch/i.html?_nkw=a")  # 503, then retried
        assert second.slowdown == 1.0  # not read yet: it has booked nothing
        second.fetch_text(f"{ebay.base_url}/sch/i.html?_nkw=a")
        second.fetch_text(f"{ebay.base_url}/sch/i.html?_nkw=a")
        starts = [r.at for r in ebay.requests]
    assert second.slowdown > 1.0
    # The other worker's two requests come 1/20 s x 4 (eased back by 0.8) apart, not 1/20 s.
    assert starts[-1] - starts[-2] >= 0.12
