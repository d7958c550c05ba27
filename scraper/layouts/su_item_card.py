"""The 2026-07 results markup: ``su-item-card`` with ``su-item-card__*`` parts.

No real page of this generation was available; the class names (``__title``, ``__price``,
``__caption``, ``__subtitle``, ``__attribute``, ``__seller``, ``__image``) are an informed guess
from eBay's naming, documented with a hand-made page in fixtures/ebay/su_item_card.html.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scraper.layouts.base import (
    RawCard,
    build_listing,
    is_placeholder,
    result_nodes,
    text_of,
)

if TYPE_CHECKING:
    from selectolax.lexbor import LexborHTMLParser, LexborNode

    from core.models import Listing
    from scraper.layouts.base import Context

NAME = "su-item-card"
CARD_CLASS = "su-item-card"


def parse_cards(tree: LexborHTMLParser, ctx: Context) -> list[Listing]:
    cards = (read_card(node) for node in result_nodes(tree, ".su-item-card"))
    return [build_listing(card, ctx) for card in cards if not is_placeholder(card)]


def read_card(node: LexborNode) -> RawCard:
    link = node.css_first("a[href*='/itm/']")
    prices = node.css(".su-item-card__price")
    image = node.css_first(".su-item-card__image img")
    subtitles = node.css(".su-item-card__subtitle")
    rows = [text_of(row) for row in node.css(".su-item-card__attribute, .su-item-card__seller")]
    return RawCard(
        href=link.attributes.get("href") if link else None,
        listing_id=node.attributes.get("data-listingid"),
        title=text_of(node.css_first(".su-item-card__title")),
        price_text=" ".join(text_of(p) for p in prices),
        price_struck=any("strikethrough" in (p.attributes.get("class") or "") for p in prices),
        rows=tuple(rows),
        caption=text_of(node.css_first(".su-item-card__caption")),
        condition=text_of(subtitles[-1]) if subtitles else None,
        image_url=image.attributes.get("src") if image else None,
    )
