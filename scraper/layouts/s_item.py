"""eBay's older results markup (served until mid-2025): ``li.s-item`` with ``s-item__*``.

The first ``li.s-item`` of some pages is an obfuscated "SPONSORED" tag block with no link;
it is not a listing. "or Best Offer" may be only an icon with an ``aria-label``.
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

NAME = "s-item"
CARD_CLASS = "s-item"


def parse_cards(tree: LexborHTMLParser, ctx: Context) -> list[Listing | ParseError]:
    nodes = (n for n in result_nodes(tree, "li.s-item") if n.css_first("a.s-item__link"))
    cards = (read_card(node) for node in nodes)
    return [read_listing(card, ctx) for card in cards if not is_placeholder(card)]


def read_card(node: LexborNode) -> RawCard:
    link = node.css_first("a.s-item__link")
    price = node.css_first(".s-item__price")
    image = node.css_first(".s-item__image img")
    return RawCard(
        href=link.attributes.get("href") if link else None,
        listing_id=_id_from_li(node),
        title=text_of(node.css_first(".s-item__title")),
        price_text=text_of(price),
        price_struck=price is not None and price.css_first(".STRIKETHROUGH") is not None,
        rows=tuple(_rows(node)),
        caption=text_of(node.css_first(".s-item__caption")) or _tag_caption(node),
        condition=text_of(node.css_first(".s-item__subtitle .SECONDARY_INFO")) or None,
        image_url=_image(image),
    )


def _rows(node: LexborNode) -> list[str]:
    rows = []
    for detail in node.css(".s-item__detail"):
        if detail.css_first(".s-item__price") is not None:
            continue
        label = detail.css_first("[aria-label]")
        text = text_of(detail)
        rows.append(text or (label.attributes.get("aria-label") or "" if label else ""))
    return rows


def _tag_caption(node: LexborNode) -> str:
    """Older sold pages put "Sold  Mar 7, 2021" in a POSITIVE span of the title tag block."""
    return text_of(node.css_first(".s-item__title--tagblock .POSITIVE"))


def _id_from_li(node: LexborNode) -> str | None:
    li_id = node.attributes.get("data-listingid") or ""
    return li_id or None


def _image(img: LexborNode | None) -> str | None:
    if img is None:
        return None
    src = img.attributes.get("src") or ""
    if src.endswith(".gif") or not src:
        return img.attributes.get("data-src") or src or None
    return src
