"""eBay misbehaving, played by the real local FakeEbay server: each fault ends as specified.

Transient faults (429, 5xx, a slow answer, a truncated body) are retried and the search is
collected in full; blocks and unreadable pages raise errors naming the search and the URL,
and nothing stored changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import httpx
import pytest

from core.errors import BlockedError, FetchError, ParseError
from core.models import Mode, SavedSearch
from core.settings import CollectorSettings
from scraper.collect import SearchResult, collect_search, web_page_source
from scraper.http import PoliteFetcher
from scraper.parse import parse_search_page
from tests.conftest import load_fixture, load_sample
from tests.support.fake_ebay import FakeEbay
from tests.support.memory_store import MemoryStore

if TYPE_CHECKING:
    from collections.abc import Iterator

PAGE_1 = "srp_sitem_active_2025-03_ebay-us_shirts.html"
PAGE_2 = "srp_scard_active_2026-04_ebay-de_lego-nan_EUR.html"
P40 = SavedSearch(name="p40", query="tesla p40")
SETTINGS = CollectorSettings(
    requests_per_second=200.0, jitter=0.0, timeout=0.3, retries=2, backoff=0.01
)


@pytest.fixture
def ebay() -> Iterator[FakeEbay]:
    with FakeEbay() as server:
        server.add_pages(P40.query, [load_sample("html", PAGE_1), load_sample("html", PAGE_2)])
        yield server


@pytest.fixture
def slept() -> list[float]:
    return []


@pytest.fixture
def fetcher(slept: list[float]) -> Iterator[PoliteFetcher]:
    """A fetcher whose waits are recorded; real ones are tiny anyway."""
    with httpx.Client(timeout=SETTINGS.timeout) as client:
        yield PoliteFetcher(client, SETTINGS, sleep=slept.append)


def collect_one_page(ebay: FakeEbay, fetcher: PoliteFetcher, store: MemoryStore) -> SearchResult:
    source = web_page_source(fetcher, base_url=ebay.base_url)
    return collect_search(P40, Mode.ACTIVE, fetch_page=source, is_known=store.is_known, max_pages=1)


def answers(ebay: FakeEbay) -> list[str]:
    return [r.answer for r in ebay.requests]


@pytest.mark.parametrize(
    ("queue_fault", "expected_answers"),
    [
        (lambda e: e.fail_next(status=429, retry_after=1), ["429", "page"]),
        (lambda e: e.fail_next(status=500), ["500", "page"]),
        (lambda e: e.fail_next(status=503, times=2), ["503", "503", "page"]),
        (lambda e: e.truncate_next(), ["truncated", "page"]),
    ],
)
def test_transient_faults_are_retried_and_the_page_is_read_in_full(
    ebay: FakeEbay, fetcher: PoliteFetcher, queue_fault, expected_answers: list[str]
) -> None:
    queue_fault(ebay)
    result = collect_one_page(ebay, fetcher, MemoryStore())
    assert answers(ebay) == expected_answers
    assert len(result.listings) == 60
    assert fetcher.requests == len(expected_answers)


def test_retry_after_is_honoured(
    ebay: FakeEbay, fetcher: PoliteFetcher, slept: list[float]
) -> None:
    ebay.fail_next(status=429, retry_after=3)
    collect_one_page(ebay, fetcher, MemoryStore())
    assert 3.0 in slept
    assert SETTINGS.backoff not in slept


def test_an_answer_slower_than_the_client_timeout_is_retried(
    ebay: FakeEbay, fetcher: PoliteFetcher
) -> None:
    ebay.slow_next(SETTINGS.timeout + 0.5)
    result = collect_one_page(ebay, fetcher, MemoryStore())
    assert len(result.listings) == 60
    assert fetcher.requests == 2


@pytest.mark.parametrize(
    ("queue_fault", "message", "status"),
    [
        (lambda e: e.fail_next(status=500, times=3), "HTTP 500 after 3 attempts", 500),
        (lambda e: e.fail_next(status=429, retry_after=1, times=3), "HTTP 429 after 3", 429),
        (lambda e: e.slow_next(SETTINGS.timeout + 0.3, times=3), "ReadTimeout|DeadlineExc", None),
        (lambda e: e.truncate_next(times=3), "RemoteProtocolError", None),
        (lambda e: e.fail_next(status=403), "HTTP 403", 403),
    ],
)
def test_faults_that_do_not_clear_fail_the_search_naming_it_and_the_url(
    ebay: FakeEbay, fetcher: PoliteFetcher, queue_fault, message: str, status: int | None
) -> None:
    queue_fault(ebay)
    with pytest.raises(FetchError, match=message) as caught:
        collect_one_page(ebay, fetcher, MemoryStore())
    assert caught.value.search == "p40"
    assert caught.value.url is not None
    assert caught.value.url.startswith(f"{ebay.base_url}/sch/i.html?_nkw=tesla+p40")
    assert caught.value.status == status


@pytest.mark.parametrize(
    ("queue_fault", "reason"),
    [
        (lambda e: e.captcha_next(), "captcha"),
        (lambda e: e.signin_next(), "sign-in wall"),
        (lambda e: e.signin_next(inline=True), "sign-in wall"),
    ],
)
def test_blocks_are_reported_as_such_without_retrying(
    ebay: FakeEbay, fetcher: PoliteFetcher, queue_fault, reason: str
) -> None:
    queue_fault(ebay)
    with pytest.raises(BlockedError, match=reason) as caught:
        collect_one_page(ebay, fetcher, MemoryStore())
    assert caught.value.search == "p40"
    assert caught.value.url is not None
    assert caught.value.url.startswith(f"{ebay.base_url}/sch/i.html")
    assert ebay.count() == 1


@pytest.mark.parametrize(
    ("fixture", "message"),
    [
        ("claims_results_no_cards.html", "says 242 results but no listing"),
        ("unknown_layout.html", "unknown results layout"),
    ],
)
def test_unreadable_pages_are_parse_errors_naming_search_and_url(
    fetcher: PoliteFetcher, fixture: str, message: str
) -> None:
    with FakeEbay() as ebay:
        ebay.add_page(P40.query, load_fixture("ebay", fixture))
        with pytest.raises(ParseError, match=message) as caught:
            collect_one_page(ebay, fetcher, MemoryStore())
    assert caught.value.search == "p40"
    assert caught.value.url is not None
    assert "_pgn=1" in caught.value.url


def test_a_failure_on_a_later_page_changes_nothing_stored(
    ebay: FakeEbay, fetcher: PoliteFetcher
) -> None:
    """Page 1 was read, page 2 is blocked: the search yields nothing, so nothing is saved."""
    store = MemoryStore()
    store.save(parse_search_page(load_sample("html", PAGE_2)).listings)
    before = dict(store.rows)
    ebay.captcha_next(page=2)
    source = web_page_source(fetcher, base_url=ebay.base_url)
    with pytest.raises(BlockedError, match="captcha") as caught:
        collect_search(P40, Mode.ACTIVE, fetch_page=source, is_known=store.is_known, max_pages=3)
    assert caught.value.url is not None
    assert "_pgn=2" in caught.value.url
    assert answers(ebay) == ["page", "captcha"]
    assert store.rows == before
