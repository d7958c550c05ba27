"""What every results layout shares: the raw text of one card and how it becomes a Listing.

A layout module only finds the card's pieces (link, title, price text, attribute rows); this
module reads their meaning (shipping, bids, best offer, sold date, seller) the same way for all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

from core.errors import ParseError
from core.marketplaces import ITEM_IN_URL, item_url
from core.models import BuyingFormat, Listing
from scraper.money import Price, Shipping, clean_text, parse_price, parse_shipping
from scraper.wording import wording

if TYPE_CHECKING:
    from collections.abc import Iterator

    from selectolax.lexbor import LexborHTMLParser, LexborNode

PLACEHOLDER_TITLES = frozenset({"shop on ebay"})
# eBay starts a second, looser list after this marker ("Results matching fewer words").
REWRITE_MARKER = "li.srp-river-answer--REWRITE_START"


@dataclass(frozen=True, slots=True)
class Context:
    """Page-level facts a card needs: where it came from and the clock for countdowns."""

    url: str
    marketplace: str
    search: str | None = None
    now: datetime | None = None

    @property
    def dollar(self) -> str:
        """What a bare "$" means on this marketplace."""
        return {"EBAY_CA": "CAD", "EBAY_AU": "AUD"}.get(self.marketplace, "USD")


@dataclass(frozen=True, slots=True)
class RawCard:
    """The text pieces of one result card, before any interpretation."""

    href: str | None
    listing_id: str | None
    title: str
    price_text: str
    price_struck: bool
    rows: tuple[str, ...]
    caption: str = ""
    condition: str | None = None
    image_url: str | None = None


def results_list(tree: LexborHTMLParser) -> LexborNode | None:
    """The result list itself (``ul.srp-results``), or None on a page without one.

    Cards elsewhere on the page (carousels, the hidden ``s-clipped`` "Shop on eBay"
    placeholder) are not results and never decide the layout.
    """
    return tree.css_first("ul.srp-results")


def own_card_classes(results: LexborNode) -> list[set[str]]:
    """The class names of each of the list's own items (its direct ``li`` children)."""
    return [
        set((child.attributes.get("class") or "").split())
        for child in results.iter()
        if child.tag == "li"
    ]


def result_nodes(tree: LexborHTMLParser, card_selector: str) -> Iterator[LexborNode]:
    """The card nodes of the real results, in page order, stopping at the fewer-words list.

    Only cards inside the result list count when the page has one.
    """
    scope = results_list(tree) or tree
    for node in scope.css(f"{card_selector}, {REWRITE_MARKER}"):
        if "srp-river-answer--REWRITE_START" in (node.attributes.get("class") or ""):
            return
        yield node


def text_of(node: LexborNode | None) -> str:
    """All text of a node, whitespace collapsed ("" for a missing node)."""
    if node is None:
        return ""
    return clean_text(node.text(deep=True, separator=" "))


def is_placeholder(card: RawCard) -> bool:
    return card.title.casefold() in PLACEHOLDER_TITLES


def read_listing(card: RawCard, ctx: Context) -> Listing | ParseError:
    """``build_listing``, or the error that says why this one card cannot be read: a page
    survives a bad card (``scraper.parse`` decides when too many are bad)."""
    try:
        return build_listing(card, ctx)
    except ParseError as exc:
        return exc


def build_listing(card: RawCard, ctx: Context) -> Listing:
    """Interpret one card; any unreadable price, shipping or date names the item and url."""
    item_id = _item_id(card, ctx)
    try:
        return _listing(item_id, card, ctx)
    except ParseError as exc:
        raise ParseError(f"item {item_id}: {exc}", url=ctx.url, search=ctx.search) from exc


def _listing(item_id: str, card: RawCard, ctx: Context) -> Listing:
    price = _price(card, ctx)
    shipping = _shipping(card.rows, price.currency, ctx)
    facts = _facts(card.rows, card.price_struck, ctx.now)
    seller = _seller(card.rows)
    return Listing(
        item_id=item_id,
        title=clean_title(card.title),
        url=item_url(ctx.marketplace, item_id),
        price=price.low,
        price_max=price.high,
        currency=price.currency,
        buying_format=facts.buying_format,
        marketplace=ctx.marketplace,
        shipping=shipping.amount,
        shipping_note=shipping.note,
        best_offer=facts.best_offer,
        bids=facts.bids,
        end_time=facts.end_time,
        sold_date=parse_sold_date(card.caption),
        best_offer_accepted=facts.accepted,
        condition=_condition(card.condition),
        seller=seller[0],
        seller_feedback=seller[1],
        seller_positive_pct=seller[2],
        location=_location(card.rows),
        image_url=card.image_url,
    )


def _item_id(card: RawCard, ctx: Context) -> str:
    match = ITEM_IN_URL.search(card.href or "")
    if match:
        return match.group(1)
    if card.listing_id and card.listing_id.isdigit():
        return card.listing_id
    raise ParseError(f"card {card.title!r} has no item id", url=ctx.url, search=ctx.search)


def clean_title(title: str) -> str:
    """The seller's title without eBay's badges and screen-reader suffixes; text kept verbatim."""
    words = wording()
    return words.badges.sub("", words.screen_reader.sub("", clean_text(title)))


def _price(card: RawCard, ctx: Context) -> Price:
    if not card.price_text:
        raise ParseError("card has no price")
    return parse_price(card.price_text, dollar=ctx.dollar)


def _shipping(rows: tuple[str, ...], currency: str, ctx: Context) -> Shipping:
    shipping_row = wording().shipping_row
    for row in rows:
        if shipping_row.search(row):
            return parse_shipping(row, currency, dollar=ctx.dollar)
    return Shipping(None, None)


@dataclass(frozen=True, slots=True)
class _Facts:
    buying_format: BuyingFormat
    best_offer: bool
    accepted: bool
    bids: int | None
    end_time: datetime | None


def _facts(rows: tuple[str, ...], struck: bool, now: datetime | None) -> _Facts:
    words = wording()
    bids: int | None = None
    offer = accepted = auction = False
    end_time: datetime | None = None
    for row in rows:
        if (match := words.bids.match(row)) is not None:
            bids = int(re.sub(r"[,.]", "", match.group(1)))
        offer = offer or bool(words.best_offer.search(row))
        accepted = accepted or bool(words.offer_accepted.search(row))
        auction = auction or bool(words.auction.match(row))
        left = countdown(row)
        if left is not None:
            auction = True
            end_time = now + left if now is not None else None
    accepted = accepted or (struck and bids is None)
    if bids is not None or auction:
        fmt = BuyingFormat.AUCTION
    elif offer or accepted:
        fmt = BuyingFormat.BEST_OFFER
    else:
        fmt = BuyingFormat.BUY_IT_NOW
    return _Facts(fmt, offer or accepted, accepted, bids, end_time)


def countdown(row: str) -> timedelta | None:
    """'2d 3h left', '5 bids · 45m left', 'Noch 1T 4Std', 'Quedan 2d 3h' -> the time left;
    else None."""
    words = wording()
    match = next((m for p in words.left if (m := p.search(row)) is not None), None)
    if match is None:
        return None
    seconds = sum(
        int(number) * words.units.get(unit.lower(), 0)
        for number, unit in words.unit.findall(match.group("span"))
    )
    return timedelta(seconds=seconds)


_US_DATE = re.compile(r"^(?P<mon>[^\W\d_]{3,5})\.?\s+(?P<day>\d{1,2}),?\s+(?P<year>\d{4})")
_EU_DATE = re.compile(
    r"^(?P<day>\d{1,2})\.?\s+(?:de\s+)?(?P<mon>[^\W\d_]{3,5})\.?\s+(?:de\s+)?(?P<year>\d{4})"
)


def parse_sold_date(caption: str) -> date | None:
    """'Sold  Mar 7, 2026', 'Sold 7 Mar 2026', 'Verkauft  07. Mär. 2026', 'Vendu le 7 févr.
    2026' -> the date; None for a caption that is no sold caption."""
    words = wording()
    sold = words.sold.match(clean_text(caption))
    if sold is None:
        return None
    when = re.sub(r"^(?:le|il|el)\s+", "", sold.group("when"), flags=re.IGNORECASE)
    match = _US_DATE.match(when) or _EU_DATE.match(when)
    month = words.months.get(match.group("mon").lower()) if match else None
    if match is None or month is None:
        raise ParseError(f"unreadable sold date {caption!r}")
    return date(int(match.group("year")), month, int(match.group("day")))


_SCALED = re.compile(r"^(?P<number>\d[\d.,\s]*?)\s*(?P<suffix>[^\d\s.,][^\d\s]*)?$")
_SELLER_COUNT_FIRST = re.compile(
    r"^(?P<name>\S+)\s+\((?P<fb>\d[\d.,]*(?:\s?[^\d\s()]+)?)\)\s+(?P<pct>\d{1,3}(?:[.,]\d)?)\s?%"
)


def _seller(rows: tuple[str, ...]) -> tuple[str | None, int | None, Decimal | None]:
    for row in rows:
        match = wording().positive.match(row) or _SELLER_COUNT_FIRST.match(row)
        if match:
            pct = Decimal(match.group("pct").replace(",", "."))
            return match.group("name"), _feedback(match.group("fb")), pct
    return None, None, None


def _feedback(text: str | None) -> int | None:
    """'354' -> 354, '10.7K' -> 10700, '2,1 mil' -> 2100, '1,234' -> 1234 (eBay rounds large
    counts; the suffixes are ``feedback_scales`` of scraper/wording.toml)."""
    if not text:
        return None
    number, scale = text.strip(), 1
    digits = _SCALED.match(number)
    if digits and digits["suffix"]:
        number, scale = digits["number"], wording().feedback_scales.get(digits["suffix"].lower(), 1)
    number = number.replace(" ", "")
    number = number.replace(",", ".") if scale > 1 else re.sub(r"[.,]", "", number)
    try:
        return int(Decimal(number) * scale)
    except InvalidOperation:
        return None


def _location(rows: tuple[str, ...]) -> str | None:
    located = wording().located
    for row in rows:
        match = located.match(row)
        if match:
            return match.group("place")
    return None


def _condition(text: str | None) -> str | None:
    if not text:
        return None
    first = re.split(r"\s[|·]\s?|\s?[|·]\s", clean_text(text))[0].strip(" |·")
    return first or None
