"""The incremental collection loop for one saved search and mode.

Results come newest first, so paging stops at the first page whose listings are all
already stored unchanged: a daily run over an unchanged search costs one request. A full
sweep (``full=True``) reads every page instead, to catch price changes on deeper pages. Pages
are fetched by a page source (the web, or saved pages on disk) and parsed afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.marketplaces import marketplace
from core.models import Mode, SavedSearch
from scraper.parse import parse_search_page
from scraper.urls import build_search_url

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from core.models import Listing
    from scraper.http import PoliteFetcher
    from scraper.parse import SearchPage


@dataclass(frozen=True, slots=True)
class FetchedPage:
    """The raw HTML of one results page and where it came from (a URL or a file URI)."""

    url: str
    html: str


# A page source returns None when the page does not exist (past the last saved page).
PageSource = Callable[[SavedSearch, Mode, int], FetchedPage | None]


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What one collection of a saved search saw.

    ``listings`` holds every listing of every fetched page, the already known ones too
    (each item once, as first seen); ``stopped`` says why paging ended: ``"all-known"``,
    ``"last-page"`` or ``"max-pages"``; ``skipped`` why each unreadable card was left out.
    """

    search: str
    mode: Mode
    listings: tuple[Listing, ...]
    pages: int
    stopped: str
    skipped: tuple[str, ...] = ()


def collect_search(
    search: SavedSearch,
    mode: Mode,
    *,
    fetch_page: PageSource,
    is_known: Callable[[Sequence[Listing]], set[str]],
    max_pages: int,
    now: datetime | None = None,
    full: bool = False,
) -> SearchResult:
    """Fetch and parse pages 1..``max_pages`` of ``search`` until nothing new is left
    (or, for a ``full`` sweep, until the last page).

    ``is_known`` answers which of the given listings are already stored unchanged; ``now``
    lets the parser turn auction countdowns into end times. Errors propagate as
    CollectError subclasses naming the search and the page URL; nothing is returned then.
    """
    seen: dict[str, Listing] = {}
    skipped: list[str] = []
    pages = 0
    stopped = "max-pages"
    for number in range(1, max_pages + 1):
        fetched = fetch_page(search, mode, number)
        if fetched is None:
            stopped = "last-page"
            break
        page = parse_search_page(
            fetched.html,
            url=fetched.url,
            marketplace=search.marketplace,
            search=search.name,
            now=now,
        )
        pages += 1
        skipped += page.skipped
        for listing in page.listings:
            seen.setdefault(listing.item_id, listing)
        reason = _stop_reason(page, is_known, full=full)
        if reason:
            stopped = reason
            break
    return SearchResult(search.name, mode, tuple(seen.values()), pages, stopped, tuple(skipped))


def _stop_reason(
    page: SearchPage, is_known: Callable[[Sequence[Listing]], set[str]], *, full: bool
) -> str:
    """Why paging ends after ``page``, or ``""`` to go on."""
    if page.listings and not full:
        known = is_known(page.listings)
        if all(listing.item_id in known for listing in page.listings):
            return "all-known"
    if not page.listings or not page.has_next:
        return "last-page"
    return ""


def web_page_source(fetcher: PoliteFetcher, *, base_url: str | None) -> PageSource:
    """Pages fetched live from eBay (or from ``base_url``, a stand-in) through ``fetcher``."""

    def fetch_page(search: SavedSearch, mode: Mode, page: int) -> FetchedPage | None:
        url = build_search_url(search, mode, page, base_url=base_url)
        language = marketplace(search.marketplace).accept_language
        return FetchedPage(
            url, fetcher.fetch_text(url, search=search.name, accept_language=language)
        )

    return fetch_page
