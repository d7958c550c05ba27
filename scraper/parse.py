"""Parse one eBay search-results page (any known layout) into a ``SearchPage`` of listings.

Pure: HTML text in, frozen records out. Blocked pages raise BlockedError; unknown layouts,
truncated pages and pages that claim results but show none raise ParseError.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from selectolax.lexbor import LexborHTMLParser

from core.errors import BlockedError, ParseError
from core.marketplaces import marketplace_of_host
from scraper.blocks import detect_block
from scraper.layouts import pick_layout
from scraper.layouts.base import Context, text_of

if TYPE_CHECKING:
    from datetime import datetime

    from core.models import Listing
    from scraper.layouts import Layout


@dataclass(frozen=True, slots=True)
class SearchPage:
    """The listings of one results page, the layout that read them, eBay's result count
    (None when the page does not say), whether the pagination offers a next page, and the
    cards that could not be read (skipped, never silently: the run counts and names them)."""

    listings: tuple[Listing, ...]
    layout: str
    result_count: int | None
    has_next: bool
    skipped: tuple[str, ...] = ()  # why each unreadable card was left out ("item 1: …")


def parse_search_page(
    html: str,
    *,
    url: str = "",
    marketplace: str | None = None,
    search: str | None = None,
    now: datetime | None = None,
) -> SearchPage:
    """Read a results page; ``now`` (optional) turns auction countdowns into end times."""
    check_page_shape(html, url=url, search=search)
    reason = detect_block(html)
    if reason is not None:
        raise BlockedError(f"eBay served {reason} instead of results", url=url, search=search)
    tree = LexborHTMLParser(html)
    count = parse_result_count(tree)
    if count is None and not _has_end(html):
        # No count to check the listings against and no end: a page cut short cannot pass
        # for "no results", nor for a short page.
        raise ParseError(
            "page looks truncated: no result count and no end of the page",
            url=url,
            search=search,
        )
    layout = pick_layout(tree)
    if count == 0 or (count is None and _says_no_matches(tree)):
        return SearchPage((), layout.NAME if layout else "none", 0, False)
    if layout is None:
        raise ParseError("unknown results layout (no known listing cards)", url=url, search=search)
    ctx = Context(url, marketplace or infer_marketplace(tree, url), search, now)
    listings, skipped = _parse_cards(tree, layout, count, ctx)
    return SearchPage(listings, layout.NAME, count, _has_next(tree), skipped)


def _parse_cards(
    tree: LexborHTMLParser, layout: Layout, count: int | None, ctx: Context
) -> tuple[tuple[Listing, ...], tuple[str, ...]]:
    """The page's listings and the reasons its unreadable cards were skipped, checked against
    the page's own result count.

    One odd card (a price in a currency no rate reads, a date in a wording not known yet) is
    skipped and named; the page fails when most of its cards cannot be read, since then the
    page, not a card, is what is not understood. eBay closes every full result list with the
    pagination bar; a page without it that claims more results than it shows was cut short (a
    half-read last card is skipped, and the same verdict follows).
    """
    paginated = tree.css_first("nav.pagination") is not None
    read = layout.parse_cards(tree, ctx)
    listings = tuple(x for x in read if not isinstance(x, ParseError))
    errors = [x for x in read if isinstance(x, ParseError)]
    if not paginated and count is not None and count > len(listings):
        raise _truncated(count, ctx)
    if errors and len(errors) * 2 >= len(read):
        raise ParseError(
            f"{len(errors)} of {len(read)} cards could not be read; the first: {errors[0]}",
            url=ctx.url,
            search=ctx.search,
        )
    if not listings and count:
        raise ParseError(
            f"page says {count} results but no listing could be read",
            url=ctx.url,
            search=ctx.search,
        )
    return listings, tuple(str(e) for e in errors)


def _truncated(count: int, ctx: Context) -> ParseError:
    return ParseError(
        f"page looks truncated: it says {count} results but its result list has no end",
        url=ctx.url,
        search=ctx.search,
    )


# A results page is 0.5-3 MB with tags nested a few hundred deep at most (void tags counted as
# opened). The HTML parser's time grows with the square of the nesting, so a hostile page of
# 100,000 nested tags would take minutes: such pages are refused before parsing, in
# milliseconds, and the run's time limit holds whatever the server sends.
MAX_PAGE_CHARS = 10_000_000
MAX_PAGE_BYTES = 4 * MAX_PAGE_CHARS  # read off the wire: no page is read whole beyond this
MAX_DEPTH = 5_000
# The tokens that decide nesting, as an HTML parser reads them: comments, script and style
# bodies (raw text: a "</a>" in them closes nothing), start tags with their quoted attribute
# values (a "</a>" in a title="…" closes nothing either) and end tags.
_TOKENS = re.compile(
    r"<!--.*?(?:-->|\Z)"
    r"|<(?:script|style)\b[^>\"']*(?:(?:\"[^\"]*\"|'[^']*')[^>\"']*)*>.*?(?:</(?:script|style)\s*>|\Z)"
    r"|<(?P<open>[a-zA-Z][^\s/>]*)[^>\"']*(?:(?:\"[^\"]*\"|'[^']*')[^>\"']*)*>"
    r"|</(?P<close>[a-zA-Z][^\s>]*)[^>]*>",
    re.DOTALL | re.IGNORECASE,
)
_VOID = frozenset({
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr",
})  # fmt: skip
# SVG's leaf elements, self-closed in foreign content ("<path …/>"); any other "<x/>" opens an
# element, as an HTML parser reads it ("<div/>" is "<div>").
_SVG_LEAVES = frozenset({
    "path", "circle", "rect", "use", "line", "polyline", "polygon", "ellipse", "stop",
    "image",
})  # fmt: skip


def check_page_shape(html: str, *, url: str = "", search: str | None = None) -> None:
    """Refuse a page too large or too deeply nested to parse in bounded time."""
    if len(html) > MAX_PAGE_CHARS:
        raise ParseError(
            f"page too large: {len(html):,} characters (limit {MAX_PAGE_CHARS:,})",
            url=url,
            search=search,
        )
    depth = nesting_depth(html, stop_at=MAX_DEPTH)
    if depth > MAX_DEPTH:
        raise ParseError(
            f"page too deep: tags nested {depth:,} deep (limit {MAX_DEPTH:,})",
            url=url,
            search=search,
        )


def nesting_depth(html: str, *, stop_at: int | None = None) -> int:
    """How deep elements nest in ``html`` as a parser builds them: an end tag closes the open
    element of its name and those inside it, and an end tag with no such element open (the
    ``<div></x>`` trick) closes nothing. Stops counting past ``stop_at``."""
    stack: list[str] = []
    push, pop = stack.append, stack.pop
    open_names: dict[str, int] = {}
    deepest = 0
    limit = stop_at if stop_at is not None else len(html)
    for token in _TOKENS.finditer(html):
        opened, closed = token.group("open", "close")
        if opened:
            name = opened.lower()
            if name in _VOID or (name in _SVG_LEAVES and token.group(0).endswith("/>")):
                continue
            push(name)
            open_names[name] = open_names.get(name, 0) + 1
            if len(stack) > deepest:
                deepest = len(stack)
                if deepest > limit:
                    return deepest
        elif closed and open_names.get(name := closed.lower(), 0):
            while (last := pop()) != name:
                open_names[last] -= 1
            open_names[name] -= 1
    return deepest


_END = re.compile(r"</html\s*>", re.IGNORECASE)


def _has_end(html: str) -> bool:
    """Whether the document reached its closing tag (looked for in the last 4 KB only)."""
    return _END.search(html, max(0, len(html) - 4096)) is not None


_DIGITS = re.compile(r"\d[\d.,\s]*")


def parse_result_count(tree: LexborHTMLParser) -> int | None:
    """eBay's "242 results" / "1.300+ Ergebnisse" heading as a number (a floor for "+")."""
    heading = tree.css_first(".srp-controls__count-heading")
    match = _DIGITS.search(text_of(heading))
    if match is None:
        return None
    return int(re.sub(r"\D", "", match.group(0)))


_NO_MATCHES = ("No exact matches found", "Keine genauen Treffer gefunden", "0 results found")


def _says_no_matches(tree: LexborHTMLParser) -> bool:
    if tree.css_first(".srp-save-null-search") is not None:
        return True
    headings = " ".join(text_of(h) for h in tree.css("h1, h2, h3"))
    return any(phrase in headings for phrase in _NO_MATCHES)


def _has_next(tree: LexborHTMLParser) -> bool:
    nxt = tree.css_first("nav.pagination .pagination__next")
    return (
        nxt is not None
        and nxt.tag == "a"
        and nxt.attributes.get("aria-disabled") != "true"
        and bool(nxt.attributes.get("href"))
    )


def infer_marketplace(tree: LexborHTMLParser, url: str) -> str:
    """The marketplace whose site the page url is on or, failing that, where most item links
    point; eBay US when neither names one."""
    return marketplace_of_host(urlsplit(url).hostname or _usual_item_host(tree))


def _usual_item_host(tree: LexborHTMLParser) -> str:
    hosts = Counter(
        urlsplit(link.attributes.get("href") or "").hostname or ""
        for link in tree.css("a[href*='/itm/']")
    )
    return hosts.most_common(1)[0][0] if hosts else ""


def listing_to_contract(listing: Listing) -> dict[str, object]:
    """The stable ``rigscout parse`` JSON record of one listing (numbers as JSON numbers)."""
    return {
        "item_id": listing.item_id,
        "title": listing.title,
        "price": float(listing.price),
        "price_max": None if listing.price_max is None else float(listing.price_max),
        "currency": listing.currency,
        "shipping": None if listing.shipping is None else float(listing.shipping),
        "buying_format": listing.buying_format.value,
        "bids": listing.bids,
        "sold_date": listing.sold_date.isoformat() if listing.sold_date else None,
        "condition": listing.condition,
        "url": listing.url,
        "best_offer_accepted": listing.best_offer_accepted,
        "seller": listing.seller,
        "seller_feedback": listing.seller_feedback,
        "seller_positive_pct": (
            None if listing.seller_positive_pct is None else float(listing.seller_positive_pct)
        ),
        "location": listing.location,
        "image_url": listing.image_url,
        "end_time": listing.end_time.isoformat() if listing.end_time else None,
        "marketplace": listing.marketplace,
    }
