"""Requests spent per saved search: a first run (everything new) against a second run over
unchanged searches, which should cost one request per search. Uses the real collector
(PoliteFetcher, parse, collect_search) against the local FakeEbay serving real saved pages."""

from __future__ import annotations

import json
import time

import httpx

from bench import SAMPLES
from core.models import Mode, SavedSearch
from core.settings import CollectorSettings
from scraper.collect import collect_search, web_page_source
from scraper.http import PoliteFetcher
from tests.support.fake_ebay import FakeEbay
from tests.support.memory_store import MemoryStore

PAGES = (
    "srp_sitem_active_2025-03_ebay-us_shirts.html",
    "srp_sitem_active-bin_2021-01_ebay-uk_warhammer_GBP.html",
    "srp_scard_active_2026-04_ebay-de_lego-nan_EUR.html",
)
SETTINGS = CollectorSettings(requests_per_second=1000.0, jitter=0.0, timeout=5.0)


def _collect_all(
    ebay: FakeEbay,
    fetcher: PoliteFetcher,
    searches: list[SavedSearch],
    stores: dict[str, MemoryStore],
) -> dict[str, float]:
    """One daily run over every search; requests per search as the server counted them."""
    before = {s.query: ebay.count(s.query) for s in searches}
    source = web_page_source(fetcher, base_url=ebay.base_url)
    listings = 0
    started = time.perf_counter()
    for search in searches:
        store = stores[search.name]
        result = collect_search(
            search, Mode.ACTIVE, fetch_page=source, is_known=store.is_known, max_pages=len(PAGES)
        )
        store.save(result.listings)
        listings += len(result.listings)
    seconds = time.perf_counter() - started
    spent = [ebay.count(s.query) - before[s.query] for s in searches]
    return {
        "requests": sum(spent),
        "requests_per_search": sum(spent) / len(searches),
        "max_requests_per_search": max(spent),
        "listings": listings,
        "seconds": round(seconds, 3),
    }


def run(searches: int = 20) -> dict[str, object]:
    """Start FakeEbay with ``searches`` saved searches of 3 pages each; run twice; compare."""
    pages = [(SAMPLES / "html" / name).read_text(encoding="utf-8") for name in PAGES]
    saved = [SavedSearch(name=f"search-{i}", query=f"gpu query {i}") for i in range(searches)]
    stores = {s.name: MemoryStore() for s in saved}
    with FakeEbay() as ebay, httpx.Client(timeout=SETTINGS.timeout) as client:
        for search in saved:
            ebay.add_pages(search.query, pages)
        fetcher = PoliteFetcher(client, SETTINGS)
        first = _collect_all(ebay, fetcher, saved, stores)
        second = _collect_all(ebay, fetcher, saved, stores)
    return {
        "searches": searches,
        "pages_per_search": len(PAGES),
        "first_run": first,
        "second_run": second,
        "ratio_first_to_second": first["requests"] / second["requests"],
        "target_second_run_requests_per_search": 1,
        "met": second["max_requests_per_search"] == 1,
    }


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
