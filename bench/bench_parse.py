"""Parse throughput on the real eBay result pages: our selectolax parser vs BeautifulSoup+lxml
(the common way) and vs plain lxml with XPath for the same selectors (the fair baseline).

Both sides find the same card pieces (a ``RawCard``) and share ``build_listing`` for reading
their meaning, so the figures compare the HTML work alone. Run: ``python -m bench.bench_parse``.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import lxml.html
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


def lxml_baseline(html: str) -> list[Listing]:
    """The fair baseline: the same extraction on plain lxml (its C parser, XPath for the same
    selectors), what a competent engineer reaching for speed without selectolax would write."""
    root = lxml.html.fromstring(html)
    hosts = Counter(
        urlsplit(href).hostname or "" for href in root.xpath(".//a[contains(@href, '/itm/')]/@href")
    )
    host = hosts.most_common(1)[0][0] if hosts else ""
    market = next(
        (m for d, m in (("ebay.de", "EBAY_DE"), ("ebay.co.uk", "EBAY_GB")) if host.endswith(d)),
        "EBAY_US",
    )
    ctx = Context(url="", marketplace=market)
    cards = root.xpath(f".//li[{_cls('s-card')}]")
    if cards:
        raws = [_lxml_s_card(node) for node in cards]
    else:
        items = root.xpath(f".//li[{_cls('s-item')}]")
        raws = [_lxml_s_item(n) for n in items if n.xpath(f".//a[{_cls('s-item__link')}]")]
    return [build_listing(raw, ctx) for raw in raws if not is_placeholder(raw)]


def _cls(name: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


def _first(node: Any, path: str) -> Any:
    found = node.xpath(path)
    return found[0] if found else None


def _lxml_text(node: Any) -> str:
    return " ".join(" ".join(node.itertext()).split()) if node is not None else ""


def _lxml_s_card(node: Any) -> RawCard:
    link = _first(node, f".//a[{_cls('s-card__link')} and contains(@href, '/itm/')]")
    if link is None:
        link = _first(node, f".//a[{_cls('s-card__link')}]")
    prices = node.xpath(f".//*[{_cls('s-card__price')}]")
    subtitles = node.xpath(f".//*[{_cls('s-card__subtitle')}]")
    image = _first(node, f".//img[{_cls('s-card__image')}]")
    return RawCard(
        href=link.get("href") if link is not None else None,
        listing_id=node.get("data-listingid"),
        title=_lxml_text(_first(node, f".//*[{_cls('s-card__title')}]")),
        price_text=" ".join(_lxml_text(p) for p in prices),
        price_struck=any("strikethrough" in (p.get("class") or "").split() for p in prices),
        rows=tuple(_lxml_text(r) for r in node.xpath(f".//*[{_cls('s-card__attribute-row')}]")),
        caption=_lxml_text(_first(node, f".//*[{_cls('s-card__caption')}]")),
        condition=_lxml_text(subtitles[-1]) if subtitles else None,
        image_url=(image.get("src") or image.get("data-defer-load")) if image is not None else None,
    )


def _lxml_s_item(node: Any) -> RawCard:
    price = _first(node, f".//*[{_cls('s-item__price')}]")
    rows = []
    for detail in node.xpath(f".//*[{_cls('s-item__detail')}]"):
        if _first(detail, f".//*[{_cls('s-item__price')}]") is None:
            label = _first(detail, ".//*[@aria-label]")
            rows.append(
                _lxml_text(detail) or (label.get("aria-label") if label is not None else "") or ""
            )
    link = _first(node, f".//a[{_cls('s-item__link')}]")
    condition = _first(node, f".//*[{_cls('s-item__subtitle')}]//*[{_cls('SECONDARY_INFO')}]")
    image = _first(node, f".//*[{_cls('s-item__image')}]//img")
    return RawCard(
        href=link.get("href") if link is not None else None,
        listing_id=None,
        title=_lxml_text(_first(node, f".//*[{_cls('s-item__title')}]")),
        price_text=_lxml_text(price),
        price_struck=price is not None and bool(price.xpath(f".//*[{_cls('STRIKETHROUGH')}]")),
        rows=tuple(rows),
        caption=_lxml_text(_first(node, f".//*[{_cls('s-item__caption')}]")),
        condition=_lxml_text(condition) or None,
        image_url=image.get("src") if image is not None else None,
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
    if listings != [lxml_baseline(page) for page in pages]:
        raise AssertionError("the lxml baseline does not extract the same listings")
    count = sum(len(found) for found in listings)
    # Interleaved (ours, BeautifulSoup, lxml, ours…) so the machine's drift falls on all three.
    ours_s = base_s = lxml_s = float("inf")
    for _ in range(repeat):
        ours_s = min(ours_s, _best_time(ours, pages, 1))
        base_s = min(base_s, _best_time(baseline, pages, 1))
        lxml_s = min(lxml_s, _best_time(lxml_baseline, pages, 1))
    return {
        "pages": len(pages),
        "megabytes": round(sum(len(p.encode()) for p in pages) / 1e6, 2),
        "listings": count,
        "selectolax_seconds": round(ours_s, 4),
        "bs4_lxml_seconds": round(base_s, 4),
        "selectolax_listings_per_s": round(count / ours_s),
        "bs4_lxml_listings_per_s": round(count / base_s),
        "ratio": round(base_s / ours_s, 1),
        "lxml_seconds": round(lxml_s, 4),
        "lxml_listings_per_s": round(count / lxml_s),
        "fair_ratio": round(lxml_s / ours_s, 1),
    }


def main() -> None:
    result = run()
    width = max(len(k) for k in result)
    for key, value in result.items():
        print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()
