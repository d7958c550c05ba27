"""The results-page layouts eBay has served, newest first; the first that matches parses.

Each module exposes ``NAME``, ``matches(tree)`` and ``parse_cards(tree, ctx)``. A new eBay markup
is one new module and one line in ``LAYOUTS``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from scraper.layouts import s_card, s_item, su_item_card

if TYPE_CHECKING:
    from selectolax.lexbor import LexborHTMLParser

    from rigscout.models import Listing
    from scraper.layouts.base import Context


class Layout(Protocol):
    NAME: str

    def matches(self, tree: LexborHTMLParser) -> bool: ...

    def parse_cards(self, tree: LexborHTMLParser, ctx: Context) -> list[Listing]: ...


LAYOUTS: tuple[Layout, ...] = (su_item_card, s_card, s_item)


def pick_layout(tree: LexborHTMLParser) -> Layout | None:
    """The first layout whose cards are on the page, or None for an unknown markup."""
    return next((layout for layout in LAYOUTS if layout.matches(tree)), None)
