"""The results-page layouts eBay has served; the result list's own cards say which one parses.

Each module exposes ``NAME``, ``CARD_CLASS`` (the class of its result cards) and
``parse_cards(tree, ctx)``. A new eBay markup is one new module and one line in ``LAYOUTS``.
A layout is chosen by the direct items of the result list only, by majority, so a class that
appears elsewhere on the page (eBay's carousels use ``su-item-card``) cannot take it over.
No module is written from a guess: a layout comes with a real saved page that shows it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from scraper.layouts import s_card, s_item
from scraper.layouts.base import own_card_classes, results_list

if TYPE_CHECKING:
    from selectolax.lexbor import LexborHTMLParser

    from core.errors import ParseError
    from core.models import Listing
    from scraper.layouts.base import Context


class Layout(Protocol):
    NAME: str
    CARD_CLASS: str

    def parse_cards(self, tree: LexborHTMLParser, ctx: Context) -> list[Listing | ParseError]:
        """Each card's listing, or the error that names why that card could not be read."""
        ...


LAYOUTS: tuple[Layout, ...] = (s_card, s_item)


def pick_layout(tree: LexborHTMLParser) -> Layout | None:
    """The layout of most of the result list's own items; None for an unknown markup.

    A page without a result list falls back to the first layout with a card anywhere. A page
    whose cards no module knows (eBay's ``su-item-card`` carousels alone, say) has no layout: the
    parser fails loudly rather than guess at markup no saved page has shown.
    """
    results = results_list(tree)
    if results is None:
        return next((x for x in LAYOUTS if tree.css_first(f".{x.CARD_CLASS}") is not None), None)
    items = own_card_classes(results)
    counts = [(sum(x.CARD_CLASS in classes for classes in items), x) for x in LAYOUTS]
    best, layout = max(counts, key=lambda pair: pair[0])
    return layout if best else None
