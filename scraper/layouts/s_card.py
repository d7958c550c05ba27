"""The 2025-2026 results markup: ``li.s-card`` with ``s-card__*`` and ``su-card-container__*``.

Prices are the ``.s-card__price`` spans only (a struck-through "was" price sits next to them in
a plain span); the seller line and shipping are ordinary attribute rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scraper.layouts.base import (
    RawCard,
    is_placeholder,
    read_listing,
    result_nodes,
    text_of,
)

if TYPE_CHECKING:
    from selectolax.lexbor import LexborHTMLParser, LexborNode

    from core.errors import ParseError
    from core.models import Listing
    from scraper.layouts.base import Context

NAME = "s-card"
CARD_CLASS = "s-card"


def parse_cards(tree: LexborHTMLParser, ctx: Context) -> list[Listing | ParseError]:
    cards = (read_card(node) for node in result_nodes(tree, "li.s-card"))
    return [read_listing(card, ctx) for card in cards if not is_placeholder(card)]


def read_card(node: LexborNode) -> RawCard:
    link = node.css_first("a.s-card__link[href*='/itm/']") or node.css_first("a.s-card__link")
    prices = node.css(".s-card__price")
    subtitles = node.css(".s-card__subtitle")
    image = node.css_first("img.s-card__image")
    return RawCard(
        href=link.attributes.get("href") if link else None,
        listing_id=node.attributes.get("data-listingid"),
        title=text_of(node.css_first(".s-card__title")),
        price_text=" ".join(text_of(p) for p in prices),
        price_struck=any("strikethrough" in (p.attributes.get("class") or "") for p in prices),
        rows=tuple(text_of(row) for row in node.css(".s-card__attribute-row")),
        caption=text_of(node.css_first(".s-card__caption")),
        condition=text_of(subtitles[-1]) if subtitles else None,
        image_url=_image(image),
    )


def _image(img: LexborNode | None) -> str | None:
    if img is None:
        return None
    return img.attributes.get("src") or img.attributes.get("data-defer-load")
