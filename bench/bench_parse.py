"""Parse throughput on the real eBay result pages: our selectolax parser vs BeautifulSoup+lxml.

Both sides find the same card pieces (a ``RawCard``) and share ``build_listing`` for reading
their meaning, so the figures compare the HTML work alone. Run: ``python -m bench.bench_parse``.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from bs4 import BeautifulSoup

from scraper.layouts.base import Context, RawCard, build_listing, is_placeholder
from scraper.parse import parse_search_page

if TYPE_CHECKING:
    from collections.abc import Callable

    from bs4 import Tag

    from core.models import Listing

ROOT = Path(__file__).resolve().parents[1]
PAGES = (
    "srp_scard_sold_2026-05_ebay-us_2006-vw-new-beetle.html",
    "srp_scard_sold_2025-11_ebay-us_charizard-base-set_cat183454.html",
    "srp_scard_active_2026-04_ebay-de_lego-nan_EUR.html",
    "srp_sitem_active_2025-03_ebay-us_shirts.html",
    "srp_sitem_active-bin_2021-01_ebay-uk_warhammer_GBP.html",
)


def samples_dir() -> Path:
    shared = Path(os.environ.get("RIGSCOUT_SHARED", ROOT.parent / "shared"))
    return shared / "ebay-samples" / "html"


def load_pages(directory: Path) -> list[str]:
    return [(directory / name).read_text(encoding="utf-8") for name in PAGES]


def ours(html: str) -> list[Listing]:
    return list(parse_search_page(html).listings)


def baseline(html: str) -> list[Listing]:
    """The same extraction written the common way: BeautifulSoup on lxml with CSS selectors."""
    soup = BeautifulSoup(html, "lxml")
    market = _bs4_marketplace(soup)
    ctx = Context(url="", marketplace=market)
    if soup.select_one("li.s-card") is not None:
        raws = [_bs4_s_card(node) for node in soup.select("li.s-card")]
    else:
        nodes = [n for n in soup.select("li.s-item") if n.select_one("a.s-item__link")]
        raws = [_bs4_s_item(node) for node in nodes]
    return [build_listing(raw, ctx) for raw in raws if not is_placeholder(raw)]


def _text(node: Tag | None) -> str:
    return " ".join(node.get_text(" ").split()) if node is not None else ""


def _attr(node: Tag | None, name: str) -> str | None:
    value = node.get(name) if node is not None else None
    return value if isinstance(value, str) else None


def _bs4_marketplace(soup: BeautifulSoup) -> str:
    hosts = Counter(
        urlsplit(_attr(link, "href") or "").hostname or ""
        for link in soup.select("a[href*='/itm/']")
    )
    host = hosts.most_common(1)[0][0] if hosts else ""
    for domain, market in (("ebay.de", "EBAY_DE"), ("ebay.co.uk", "EBAY_GB")):
        if host.endswith(domain):
            return market
    return "EBAY_US"


def _bs4_s_card(node: Tag) -> RawCard:
    link = node.select_one("a.s-card__link[href*='/itm/']") or node.select_one("a.s-card__link")
    prices = node.select(".s-card__price")
    subtitles = node.select(".s-card__subtitle")
    image = node.select_one("img.s-card__image")
    return RawCard(
        href=_attr(link, "href"),
        listing_id=_attr(node, "data-listingid"),
        title=_text(node.select_one(".s-card__title")),
        price_text=" ".join(_text(p) for p in prices),
        price_struck=any("strikethrough" in (p.get("class") or []) for p in prices),
        rows=tuple(_text(row) for row in node.select(".s-card__attribute-row")),
        caption=_text(node.select_one(".s-card__caption")),
        condition=_text(subtitles[-1]) if subtitles else None,
        image_url=_attr(image, "src") or _attr(image, "data-defer-load"),
    )


def _bs4_s_item(node: Tag) -> RawCard:
    price = node.select_one(".s-item__price")
    rows = []
    for detail in node.select(".s-item__detail"):
        if detail.select_one(".s-item__price") is None:
            label = detail.select_one("[aria-label]")
            rows.append(_text(detail) or _attr(label, "aria-label") or "")
    return RawCard(
        href=_attr(node.select_one("a.s-item__link"), "href"),
        listing_id=None,
        title=_text(node.select_one(".s-item__title")),
        price_text=_text(price),
        price_struck=price is not None and price.select_one(".STRIKETHROUGH") is not None,
        rows=tuple(rows),
        caption=_text(node.select_one(".s-item__caption")),
        condition=_text(node.select_one(".s-item__subtitle .SECONDARY_INFO")) or None,
        image_url=_attr(node.select_one(".s-item__image img"), "src"),
    )


def _best_time(parse: Callable[[str], list[Listing]], pages: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for page in pages:
            parse(page)
        best = min(best, time.perf_counter() - start)
    return best


def run(repeat: int = 3) -> dict[str, float | int]:
    """Best-of-``repeat`` throughput of both parsers over the real s-card and s-item pages."""
    pages = load_pages(samples_dir())
    listings = [ours(page) for page in pages]
    if listings != [baseline(page) for page in pages]:
        raise AssertionError("the baseline does not extract the same listings")
    count = sum(len(found) for found in listings)
    ours_s = _best_time(ours, pages, repeat)
    base_s = _best_time(baseline, pages, repeat)
    return {
        "pages": len(pages),
        "megabytes": round(sum(len(p.encode()) for p in pages) / 1e6, 2),
        "listings": count,
        "selectolax_seconds": round(ours_s, 4),
        "bs4_lxml_seconds": round(base_s, 4),
        "selectolax_listings_per_s": round(count / ours_s),
        "bs4_lxml_listings_per_s": round(count / base_s),
        "ratio": round(base_s / ours_s, 1),
    }


def main() -> None:
    result = run()
    width = max(len(k) for k in result)
    for key, value in result.items():
        print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()
