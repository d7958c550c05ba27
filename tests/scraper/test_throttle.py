"""A 429 or 503 slows the whole collector, not only the request that got it.

Unlike a latency-driven throttle (Scrapy's AutoThrottle), ours listens to what eBay says:
after a 429/503 every later request is spaced ``throttle_factor`` times wider, easing back as
successes come in. Played against the real local FakeEbay server, on the real clock.
"""

from __future__ import annotations

import itertools

import httpx

from core.settings import CollectorSettings
from scraper.http import PoliteFetcher
from tests.support.fake_ebay import FakeEbay

SETTINGS = CollectorSettings(
    requests_per_second=20.0, jitter=0.0, retries=2, backoff=0.01, throttle_factor=4.0
)


def gaps(ebay: FakeEbay) -> list[float]:
    return [round(b.at - a.at, 3) for a, b in itertools.pairwise(ebay.requests)]


def test_a_503_on_one_search_spaces_out_the_requests_of_the_others() -> None:
    with FakeEbay() as ebay, httpx.Client() as client:
        for query in ("a", "b"):
            ebay.add_page(query, "<html>ok</html>")
        fetcher = PoliteFetcher(client, SETTINGS)
        for _ in range(3):
            fetcher.fetch_text(f"{ebay.base_url}/sch/i.html?_nkw=a")
        ebay.fail_next(status=503)
        fetcher.fetch_text(f"{ebay.base_url}/sch/i.html?_nkw=a")  # 503, then retried
        for _ in range(3):
            fetcher.fetch_text(f"{ebay.base_url}/sch/i.html?_nkw=b")
        answers = [r.answer for r in ebay.requests]
        spacing = gaps(ebay)

    assert answers == ["page"] * 3 + ["503"] + ["page"] * 4
    before = spacing[:3]
    after_b = spacing[-3:]
    assert max(before) < 0.1  # 1/20 s apart
    # The other search's requests come at least 1/20 s x 4 x 0.8 apart, easing back.
    assert min(after_b) >= 0.12
    assert after_b[0] >= after_b[-1]
    assert fetcher.slowdown > 1.0


def test_successes_bring_the_pace_back_to_the_configured_rate() -> None:
    with FakeEbay() as ebay, httpx.Client() as client:
        ebay.add_page("a", "<html>ok</html>")
        fetcher = PoliteFetcher(client, SETTINGS)
        ebay.fail_next(status=429)
        for _ in range(12):
            fetcher.fetch_text(f"{ebay.base_url}/sch/i.html?_nkw=a")
    assert fetcher.slowdown == 1.0
