"""Builds the run's collaborators from ``Settings``: the collector, the notifiers, the clock.

This is the only place that turns configuration into live objects (HTTP clients, SMTP
notifiers); the pipeline itself receives them ready-made.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import httpx
from sqlalchemy.orm import Session

from core.clock import utcnow as utcnow
from core.errors import CollectError
from core.models import Listing, Mode, Normalized, SavedSearch
from db.pacer import DatabasePacer
from db.state import SessionStateStore
from rigscout.jobs.pipeline import CollectedSearch, Collector
from scraper.browse import BrowseClient
from scraper.collect import collect_search, web_page_source
from scraper.http import PoliteFetcher
from scraper.offline import offline_page_source

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from pathlib import Path

    from sqlalchemy import Engine

    from core.settings import CollectorSettings
    from ranking.titles import Normalizer
    from rigscout.config.load import Settings
    from scraper.collect import FetchedPage, PageSource
    from scraper.pacing import Pacer


def normalizer_for(normalizer: Normalizer) -> Callable[[Listing], Normalized]:
    def normalize(listing: Listing) -> Normalized:
        return normalizer.normalize(
            listing.title, category_id=listing.category_id, condition=listing.condition
        )

    return normalize


def _page_collector(
    source: PageSource,
    max_pages: int,
    requests: Callable[[], int],
) -> Collector:
    def collect(
        search: SavedSearch,
        mode: Mode,
        is_known: Callable[[Sequence[Listing]], set[str]],
        *,
        full: bool = False,
    ) -> CollectedSearch:
        before = requests()
        try:
            result = collect_search(
                search,
                mode,
                fetch_page=source,
                is_known=is_known,
                max_pages=min(search.max_pages, max_pages),
                now=utcnow(),
                full=full,
            )
        except CollectError as exc:
            exc.requests = requests() - before
            raise
        return CollectedSearch(result.listings, requests() - before, result.stopped, result.skipped)

    return collect


def offline_collector(directory: Path, settings: Settings) -> Collector:
    """Replays saved pages from ``directory`` through the same parse/normalize/save path."""
    pages = 0

    read = offline_page_source(directory)

    def counted(search: SavedSearch, mode: Mode, page: int) -> FetchedPage | None:
        nonlocal pages
        fetched = read(search, mode, page)
        pages += fetched is not None
        return fetched

    return _page_collector(counted, settings.collector.max_pages, lambda: pages)


@contextlib.contextmanager
def polite_fetcher(cs: CollectorSettings, pacer: Pacer | None = None) -> Iterator[PoliteFetcher]:
    """An HTTP client with the collector's timeout and User-Agent, behind its rate, retries
    and deadlines (``scraper.http.PoliteFetcher``): what every request to eBay goes through."""
    with httpx.Client(
        timeout=cs.timeout, headers={"User-Agent": cs.user_agent}, follow_redirects=True
    ) as client:
        yield PoliteFetcher(client, cs, pacer=pacer)


@contextlib.contextmanager
def web_collector(settings: Settings, engine: Engine) -> Iterator[Collector]:
    """Search pages over HTTP, or the Browse API for active listings when keys are set."""
    cs = settings.collector
    # On PostgreSQL every process (workers, cron, the daemon) shares one request rate.
    pacer = (
        DatabasePacer(engine, throttle_factor=cs.throttle_factor)
        if engine.dialect.name == "postgresql"
        else None
    )
    with polite_fetcher(cs, pacer) as fetcher:
        pages = _page_collector(
            web_page_source(fetcher, base_url=cs.base_url), cs.max_pages, lambda: fetcher.requests
        )
        if not settings.api.enabled:
            yield pages
            return
        with Session(engine) as state_session:
            browse = BrowseClient(
                fetcher.client, settings.api, SessionStateStore(state_session), now=utcnow
            )

            def collect(
                search: SavedSearch,
                mode: Mode,
                is_known: Callable[[Sequence[Listing]], set[str]],
                *,
                full: bool = False,
            ) -> CollectedSearch:
                # Browse has no sold listings (Marketplace Insights is closed to new users),
                # so sold searches still go through the search pages. Browse always reads
                # every page it is allowed, so it needs no separate sweep.
                if mode is Mode.SOLD:
                    return pages(search, mode, is_known, full=full)
                before = browse.calls
                try:
                    result = browse.fetch_item_summaries(search, max_pages=search.max_pages)
                except CollectError as exc:
                    exc.requests = browse.calls - before
                    raise
                return CollectedSearch(result.listings, result.calls, "api")

            yield collect
