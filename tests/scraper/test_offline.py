"""offline_page_source: saved pages on disk replay through the same collection loop."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from core.errors import CollectError, ParseError
from core.models import Mode, SavedSearch
from scraper.collect import collect_search
from scraper.offline import offline_page_source
from tests.conftest import load_sample

if TYPE_CHECKING:
    from pathlib import Path

P40 = SavedSearch(name="p40", query="tesla p40")
ACTIVE = "srp_sitem_active_2025-03_ebay-us_shirts.html"
SOLD = "srp_scard_sold_2026-05_ebay-us_2006-vw-new-beetle.html"


def save(directory: Path, name: str, html: str) -> Path:
    path = directory / "p40" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html, encoding="utf-8")
    return path


@pytest.mark.parametrize(("mode", "sample"), [(Mode.ACTIVE, ACTIVE), (Mode.SOLD, SOLD)])
def test_reads_the_page_saved_for_the_search_mode_and_number(
    tmp_path: Path, mode: Mode, sample: str
) -> None:
    html = load_sample("html", sample)
    path = save(tmp_path, f"{mode.value}-p1.html", html)
    page = offline_page_source(tmp_path)(P40, mode, 1)
    assert page is not None
    assert page.html == html
    assert page.url == path.resolve().as_uri()


@pytest.mark.parametrize("mode", [Mode.ACTIVE, Mode.SOLD])
def test_a_missing_first_page_is_an_error_naming_search_mode_and_directory(
    tmp_path: Path, mode: Mode
) -> None:
    save(tmp_path, "other-mode-p1.html", "<html></html>")
    with pytest.raises(CollectError, match=f"no saved page for search p40 mode {mode.value} in"):
        offline_page_source(tmp_path)(P40, mode, 1)


def test_a_missing_later_page_means_no_more_pages(tmp_path: Path) -> None:
    save(tmp_path, "active-p1.html", load_sample("html", ACTIVE))
    assert offline_page_source(tmp_path)(P40, Mode.ACTIVE, 2) is None


def test_replay_runs_the_collection_loop_to_the_last_saved_page(tmp_path: Path) -> None:
    save(tmp_path, "sold-p1.html", load_sample("html", SOLD))
    result = collect_search(
        P40,
        Mode.SOLD,
        fetch_page=offline_page_source(tmp_path),
        is_known=lambda _: set(),
        max_pages=3,
    )
    assert (result.pages, result.stopped, len(result.listings)) == (1, "last-page", 60)
    assert all(listing.sold for listing in result.listings)


def test_a_saved_captcha_page_is_blocked_not_empty(tmp_path: Path) -> None:
    path = save(
        tmp_path, "active-p1.html", load_sample("html", "block_security-measure_2026-08.html")
    )
    with pytest.raises(CollectError, match="captcha") as caught:
        collect_search(
            P40,
            Mode.ACTIVE,
            fetch_page=offline_page_source(tmp_path),
            is_known=lambda _: set(),
            max_pages=3,
        )
    assert (caught.value.search, caught.value.url) == ("p40", path.resolve().as_uri())


def test_a_page_that_is_not_utf8_is_a_parse_error(tmp_path: Path) -> None:
    path = tmp_path / "p40" / "active-p1.html"
    path.parent.mkdir()
    path.write_bytes("Grafikkarte für 1.299,00 EUR".encode("utf-16"))
    with pytest.raises(ParseError, match="not UTF-8"):
        offline_page_source(tmp_path)(P40, Mode.ACTIVE, 1)


@pytest.mark.parametrize("name", ["../elsewhere", "a/b", "..", ""])
def test_a_search_name_cannot_escape_the_directory(tmp_path: Path, name: str) -> None:
    search = SavedSearch(name=name, query="tesla p40")
    with pytest.raises(CollectError, match="cannot name a directory"):
        offline_page_source(tmp_path)(search, Mode.ACTIVE, 1)
