"""Incremental collection against the local FakeEbay server serving real saved eBay pages."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING

import httpx
import pytest

from bench import FIXTURES
from core.models import Mode, SavedSearch
from core.settings import CollectorSettings
from scraper.collect import FetchedPage, collect_search, web_page_source
from scraper.http import PoliteFetcher
from scraper.offline import offline_page_source
from tests.conftest import load_fixture, load_sample
from tests.support.fake_ebay import FakeEbay
from tests.support.memory_store import MemoryStore

if TYPE_CHECKING:
    from collections.abc import Iterator

ACTIVE_PAGES = (
    "srp_sitem_active_2025-03_ebay-us_shirts.html",
    "srp_sitem_active-bin_2021-01_ebay-uk_warhammer_GBP.html",
    "srp_scard_active_2026-04_ebay-de_lego-nan_EUR.html",
)
SOLD_PAGES = (
    "srp_scard_sold_2026-05_ebay-us_2006-vw-new-beetle.html",
    "srp_scard_sold_2025-11_ebay-us_charizard-base-set_cat183454.html",
)
P40 = SavedSearch(name="p40", query="tesla p40", modes=(Mode.ACTIVE, Mode.SOLD))
SETTINGS = CollectorSettings(
    requests_per_second=200.0, jitter=0.0, timeout=0.5, retries=2, backoff=0.01
)


@pytest.fixture
def ebay() -> Iterator[FakeEbay]:
    with FakeEbay() as server:
        server.add_pages(P40.query, [load_sample("html", name) for name in ACTIVE_PAGES])
        server.add_pages(P40.query, [load_sample("html", n) for n in SOLD_PAGES], sold=True)
        yield server


@pytest.fixture
def fetcher() -> Iterator[PoliteFetcher]:
    with httpx.Client(timeout=0.5) as client:
        yield PoliteFetcher(client, SETTINGS)


def collect(
    ebay: FakeEbay,
    fetcher: PoliteFetcher,
    store: MemoryStore,
    *,
    mode: Mode = Mode.ACTIVE,
    max_pages: int = 3,
):
    source = web_page_source(fetcher, base_url=ebay.base_url)
    return collect_search(
        P40, mode, fetch_page=source, is_known=store.is_known, max_pages=max_pages
    )


def test_first_run_reads_every_page_up_to_the_bound(ebay: FakeEbay, fetcher: PoliteFetcher) -> None:
    result = collect(ebay, fetcher, MemoryStore())
    assert (result.search, result.mode, result.pages, result.stopped) == (
        "p40",
        Mode.ACTIVE,
        3,
        "max-pages",
    )
    assert len(result.listings) == 60 + 61 + 60
    assert len({item.item_id for item in result.listings}) == len(result.listings)
    assert [r.page for r in ebay.requests] == [1, 2, 3]
    assert fetcher.requests == 3


def test_second_run_over_an_unchanged_search_costs_one_request(
    ebay: FakeEbay, fetcher: PoliteFetcher
) -> None:
    store = MemoryStore()
    store.save(collect(ebay, fetcher, store).listings)
    before = ebay.count()

    again = collect(ebay, fetcher, store)

    assert ebay.count() - before == 1
    assert (again.pages, again.stopped) == (1, "all-known")
    assert len(again.listings) == 60


@pytest.mark.parametrize("change", ["new", "repriced"])
def test_a_changed_first_page_continues_to_page_two(
    ebay: FakeEbay, fetcher: PoliteFetcher, change: str
) -> None:
    store = MemoryStore()
    store.save(collect(ebay, fetcher, store).listings)
    first = next(iter(store.rows))
    if change == "new":
        del store.rows[first]
    else:
        old = store.rows[first]
        store.rows[first] = dataclasses.replace(old, price=old.price + Decimal(5))
    before = ebay.count()

    again = collect(ebay, fetcher, store)

    assert ebay.count() - before == 2
    assert (again.pages, again.stopped) == (2, "all-known")


@pytest.mark.parametrize("max_pages", [1, 2])
def test_page_count_is_bounded(ebay: FakeEbay, fetcher: PoliteFetcher, max_pages: int) -> None:
    result = collect(ebay, fetcher, MemoryStore(), max_pages=max_pages)
    assert (result.pages, result.stopped) == (max_pages, "max-pages")
    assert ebay.count() == max_pages


def test_sold_mode_asks_for_sold_results_ended_recently_first(
    ebay: FakeEbay, fetcher: PoliteFetcher
) -> None:
    result = collect(ebay, fetcher, MemoryStore(), mode=Mode.SOLD, max_pages=2)
    assert result.mode is Mode.SOLD
    assert all(item.sold_date is not None for item in result.listings)
    assert len(result.listings) == 120
    for request in ebay.requests:
        assert request.params["LH_Sold"] == request.params["LH_Complete"] == "1"
        assert request.params["_sop"] == "13"


def test_an_empty_results_page_past_the_end_stops_paging(
    ebay: FakeEbay, fetcher: PoliteFetcher
) -> None:
    result = collect(ebay, fetcher, MemoryStore(), mode=Mode.SOLD, max_pages=5)
    assert (result.pages, result.stopped, len(result.listings)) == (3, "last-page", 120)
    assert [r.page for r in ebay.requests] == [1, 2, 3]


def test_requests_carry_the_configured_user_agent(ebay: FakeEbay, fetcher: PoliteFetcher) -> None:
    collect(ebay, fetcher, MemoryStore(), max_pages=1)
    assert [r.user_agent for r in ebay.requests] == [SETTINGS.user_agent]


@pytest.mark.parametrize(
    ("code", "language"),
    [("EBAY_US", "en-US"), ("EBAY_DE", "de-DE"), ("EBAY_FR", "fr-FR"), ("EBAY_ES", "es-ES")],
)
def test_requests_ask_for_the_marketplace_language_whatever_the_base_url(
    ebay: FakeEbay, fetcher: PoliteFetcher, code: str, language: str
) -> None:
    """eBay answers in the language it guesses from where a request comes (ebay.com in
    Spanish to a visitor from Peru) unless the request says which it wants."""
    search = dataclasses.replace(P40, marketplace=code)
    source = web_page_source(fetcher, base_url=ebay.base_url)
    collect_search(
        search, Mode.ACTIVE, fetch_page=source, is_known=MemoryStore().is_known, max_pages=1
    )
    (request,) = ebay.requests
    assert request.accept_language is not None
    assert request.accept_language.startswith(language)


def pages_source(*pages: str):
    def fetch_page(search: SavedSearch, mode: Mode, page: int) -> FetchedPage | None:
        if page > len(pages):
            return None
        return FetchedPage(f"https://www.ebay.com/sch/i.html?_pgn={page}", pages[page - 1])

    return fetch_page


@pytest.mark.parametrize(
    ("pages", "expected_pages", "expected_listings"),
    [
        ((load_fixture("ebay", "scard_2026-07_active.html"),), 1, 4),
        ((load_fixture("ebay", "zero_results.html"),), 1, 0),
    ],
)
def test_a_page_without_a_next_link_is_the_last(
    pages: tuple[str, ...], expected_pages: int, expected_listings: int
) -> None:
    store = MemoryStore()
    result = collect_search(
        P40, Mode.ACTIVE, fetch_page=pages_source(*pages), is_known=store.is_known, max_pages=5
    )
    assert (result.pages, result.stopped) == (expected_pages, "last-page")
    assert len(result.listings) == expected_listings


def test_now_turns_auction_countdowns_into_end_times() -> None:
    source = pages_source(load_fixture("ebay", "scard_2026-07_active.html"))
    now = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)

    def end_times(when: datetime | None) -> list[datetime]:
        result = collect_search(
            P40, Mode.ACTIVE, fetch_page=source, is_known=lambda _: set(), max_pages=1, now=when
        )
        return [item.end_time for item in result.listings if item.end_time is not None]

    assert end_times(None) == []
    assert [end > now for end in end_times(now)] == [True, True]  # the lot and the P40


def test_running_out_of_pages_is_the_last_page() -> None:
    page = load_sample("html", ACTIVE_PAGES[0])
    result = collect_search(
        P40, Mode.ACTIVE, fetch_page=pages_source(page), is_known=lambda _: set(), max_pages=3
    )
    assert (result.pages, result.stopped) == (1, "last-page")


def test_an_item_seen_on_two_pages_is_listed_once() -> None:
    page = load_sample("html", ACTIVE_PAGES[0])
    result = collect_search(
        P40,
        Mode.ACTIVE,
        fetch_page=pages_source(page, page),
        is_known=lambda _: set(),
        max_pages=2,
    )
    assert result.pages == 2
    assert len(result.listings) == 60


DEMO = FIXTURES / "demo"
DEMO_SEARCHES = sorted(path.name for path in DEMO.iterdir() if path.is_dir())


@pytest.mark.parametrize("mode", [Mode.ACTIVE, Mode.SOLD])
@pytest.mark.parametrize("name", DEMO_SEARCHES)
def test_the_web_and_a_replay_of_the_same_saved_pages_collect_the_same(
    fetcher: PoliteFetcher, name: str, mode: Mode
) -> None:
    search = SavedSearch(name=name, query=name.replace("-", " "))
    saved = len(list((DEMO / name).glob(f"{mode.value}-p*.html")))
    with FakeEbay() as ebay:
        assert ebay.add_saved_pages(DEMO, search) >= saved >= 1
        web = collect_search(
            search,
            mode,
            fetch_page=web_page_source(fetcher, base_url=ebay.base_url),
            is_known=MemoryStore().is_known,
            max_pages=5,
        )
    replay = collect_search(
        search,
        mode,
        fetch_page=offline_page_source(DEMO),
        is_known=MemoryStore().is_known,
        max_pages=5,
    )
    assert web.listings == replay.listings
    assert len(web.listings) > 0
    assert (web.pages, web.stopped, replay.pages, replay.stopped) == (
        saved,
        "last-page",
        saved,
        "last-page",
    )
