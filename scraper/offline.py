"""Saved search pages on disk as a page source: replay instead of fetching.

Layout: ``<dir>/<search name>/<mode>-p<page>.html`` (``active-p1.html``, ``sold-p2.html``).
A missing first page is an error; a missing later page means there are no more pages.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from core.errors import CollectError, ConfigError, ParseError
from scraper.collect import FetchedPage

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from core.models import Mode, SavedSearch
    from scraper.collect import PageSource


def offline_page_source(directory: Path) -> PageSource:
    """Read each page of a search from the files saved under ``directory``."""

    def read_page(search: SavedSearch, mode: Mode, page: int) -> FetchedPage | None:
        path = saved_page_path(directory, search, mode, page)
        url = path.resolve().as_uri()
        if not path.is_file():
            if page == 1:
                raise CollectError(
                    f"no saved page for search {search.name} mode {mode.value} in {directory}",
                    url=url,
                    search=search.name,
                )
            return None
        try:
            return FetchedPage(url, path.read_text(encoding="utf-8"))
        except UnicodeDecodeError as exc:
            raise ParseError(
                f"saved page is not UTF-8: {exc}", url=url, search=search.name
            ) from exc

    return read_page


def saved_page_path(directory: Path, search: SavedSearch, mode: Mode, page: int) -> Path:
    """Where page ``page`` of ``search`` in ``mode`` is saved under ``directory``."""
    if search.name in {"", ".", ".."} or "/" in search.name or "\\" in search.name:
        raise CollectError(
            f"search name {search.name!r} cannot name a directory", search=search.name
        )
    return directory / search.name / f"{mode.value}-p{page}.html"


def check_offline_folder(directory: Path, searches: Sequence[SavedSearch]) -> None:
    """A ``ConfigError`` in one line when ``directory`` holds no saved first page of any of
    ``searches`` (a mis-laid or empty folder), before a run reports every search failed."""
    if not directory.is_dir():
        raise ConfigError(f"--offline {directory}: no such folder")
    firsts = [saved_page_path(directory, s, m, 1) for s in searches for m in s.modes]
    if firsts and not any(path.is_file() for path in firsts):
        example = firsts[0].relative_to(directory)
        raise ConfigError(
            f"--offline {directory}: no saved page of any search in it (expected {example} "
            "and the like, one folder per search, as in fixtures/demo)"
        )


def parse_fetched_at(text: str | None, path: Path) -> datetime:
    """When a saved page was fetched: ``text`` (ISO 8601; no zone means UTC), else the file's
    modification time. Auction countdowns on the page count from this moment."""
    if text is None:
        return datetime.fromtimestamp(path.stat().st_mtime, tz=UTC)
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        raise ConfigError(
            f"--fetched-at {text!r}: expected an ISO 8601 time such as 2026-07-09T14:30:00Z"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
