"""One eBay item page (``/itm/<id>``): the listing it shows, for ``rigscout check``.

Pure: the page's HTML in, a ``Listing`` and the seller's item specifics out. Read from the
page's own structure (``x-item-title``, ``x-price-primary``, the ``ux-labels-values`` rows, the
seller card), as the result-page layouts are; a page without a title or a price is a
``ParseError``, and a captcha or error page a ``BlockedError``, never a half-read listing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

from selectolax.lexbor import LexborHTMLParser

from core.errors import BlockedError, ParseError
from core.marketplaces import ITEM_IN_URL, item_url
from core.models import BuyingFormat, Listing
from scraper.blocks import detect_block
from scraper.money import clean_text, parse_price, parse_shipping
from scraper.parse import check_page_shape

if TYPE_CHECKING:
    from collections.abc import Mapping

    from selectolax.lexbor import LexborNode

_FEEDBACK = re.compile(r"\((\d[\d,.]*)\)")
_POSITIVE = re.compile(r"(\d{1,3}(?:[.,]\d)?)\s*%")
_BIDS = re.compile(r"(\d[\d,.]*)\s*(?:bids?|Gebote?|ench[eè]res?|offerte?|pujas?)\b", re.I)


@dataclass(frozen=True, slots=True)
class ItemPage:
    """The listing an item page shows, and its item specifics (label → value, as written)."""

    listing: Listing
    specifics: Mapping[str, str] = field(default_factory=dict)


def parse_item_page(html: str, *, url: str, marketplace: str) -> ItemPage:
    """The listing of one item page; ``url`` is where it was fetched (for its item number and
    for messages)."""
    blocked = detect_block(html)
    if blocked is not None:
        raise BlockedError(f"eBay answered with {blocked} instead of the item page", url=url)
    check_page_shape(html, url=url)
    tree = LexborHTMLParser(html)
    title = _text(tree.css_first("h1.x-item-title__mainTitle")) or _meta(tree, "og:title")
    if not title:
        raise ParseError("no item title on the page (not an eBay item page?)", url=url)
    price_text = _text(tree.css_first("div.x-price-primary"))
    if not price_text:
        raise ParseError(f"no price on the item page of {title!r}", url=url)
    price = parse_price(price_text)
    rows = _labelled_rows(tree)
    shipping = _shipping(rows.get("shipping"), price.currency)
    bids = _BIDS.search(_text(tree.css_first(".x-bid-count")) or "")
    seller = tree.css_first(".x-sellercard-atf__info__about-seller")
    seller_text = _text(seller)
    feedback = _FEEDBACK.search(seller_text)
    positive = _POSITIVE.search(_text(tree.css_first(".x-sellercard-atf__data-item")))
    item_id = _item_id(tree, url)
    offers = tree.css_first("[data-testid='x-offer-action']") is not None
    buying = (
        BuyingFormat.AUCTION
        if bids
        else BuyingFormat.BEST_OFFER
        if offers
        else BuyingFormat.BUY_IT_NOW
    )
    listing = Listing(
        item_id=item_id,
        title=title,
        url=item_url(marketplace, item_id),
        price=price.low,
        price_max=price.high,
        currency=price.currency,
        buying_format=buying,
        marketplace=marketplace,
        shipping=shipping[0],
        shipping_note=shipping[1],
        best_offer=offers,
        bids=int(re.sub(r"\D", "", bids.group(1))) if bids else None,
        condition=_text(tree.css_first(".x-item-condition-text .ux-textspans")) or None,
        seller=_text(seller.css_first("a")) if seller and seller.css_first("a") else None,
        seller_feedback=int(re.sub(r"\D", "", feedback.group(1))) if feedback else None,
        seller_positive_pct=_percent(positive.group(1)) if positive else None,
        location=_location(rows.get("itemlocation") or rows.get("located")),
    )
    return ItemPage(listing, _specifics(tree))


def _text(node: LexborNode | None) -> str:
    return clean_text(node.text(separator=" ")) if node is not None else ""


def _meta(tree: LexborHTMLParser, prop: str) -> str:
    node = tree.css_first(f'meta[property="{prop}"]')
    return clean_text(str(node.attributes.get("content") or "")) if node is not None else ""


def _item_id(tree: LexborHTMLParser, url: str) -> str:
    canonical = tree.css_first("link[rel=canonical]")
    for candidate in (
        str(canonical.attributes.get("href") or "") if canonical is not None else "",
        _meta(tree, "og:url"),
        url,
    ):
        found = ITEM_IN_URL.search(candidate)
        if found:
            return found.group(1)
    raise ParseError("no item number on the item page or in its URL", url=url)


def _labelled_rows(tree: LexborHTMLParser) -> dict[str, str]:
    """The page's ``ux-labels-values--<name>`` rows by lower-cased name: their values' text."""
    rows: dict[str, str] = {}
    for node in tree.css("[data-testid='ux-labels-values']"):
        kinds = [
            c.removeprefix("ux-labels-values--").lower()
            for c in str(node.attributes.get("class") or "").split()
            if c.startswith("ux-labels-values--") and c != "ux-labels-values--inline"
        ]
        values = node.css_first(".ux-labels-values__values")
        for kind in kinds:
            rows.setdefault(kind, _text(values) if values is not None else _text(node))
    return rows


def _specifics(tree: LexborHTMLParser) -> dict[str, str]:
    """The item specifics (the inline label/value rows), as the seller wrote them."""
    found: dict[str, str] = {}
    for node in tree.css(".ux-labels-values--inline"):
        label = _text(node.css_first(".ux-labels-values__labels")).rstrip(":")
        value = _text(node.css_first(".ux-labels-values__values"))
        if label and value:
            found.setdefault(label, value)
    return found


def _shipping(text: str | None, currency: str) -> tuple[Decimal | None, str | None]:
    if not text:
        return None, "not shown on the item page"
    try:
        shipping = parse_shipping(text.split("(")[0], currency)
    except ParseError:
        return None, clean_text(text)[:80]
    return shipping.amount, shipping.note


def _percent(text: str) -> Decimal:
    return Decimal(text.replace(",", "."))


def _location(text: str | None) -> str | None:
    if not text:
        return None
    return clean_text(text.split(":", 1)[-1])[:80] or None
