"""A page survives a bad card: one unreadable card is skipped and named, never the page."""

from __future__ import annotations

import re

import pytest

from bench import FIXTURES
from core.errors import ParseError
from scraper.parse import parse_search_page

PAGE = FIXTURES / "demo" / "p40" / "active-p1.html"


def _page() -> str:
    return PAGE.read_text(encoding="utf-8")


def test_one_card_in_an_unread_currency_is_skipped_and_named_the_rest_kept() -> None:
    good = parse_search_page(_page())
    # a price in a sign no currency table knows
    html = _page().replace(">$216.36<", ">¤216.36<", 1)
    page = parse_search_page(html)
    assert len(page.listings) == len(good.listings) - 1
    assert "208901672666" not in {x.item_id for x in page.listings}
    assert len(page.skipped) == 1
    assert "item 208901672666" in page.skipped[0]
    assert good.skipped == ()


def test_a_page_most_of_whose_cards_cannot_be_read_fails_and_names_the_cause() -> None:
    html = re.sub(r'(s-card__price">)\$', r"\1¤", _page())
    with pytest.raises(ParseError) as failed:
        parse_search_page(html)
    message = str(failed.value)
    assert "cards could not be read" in message
    assert "truncated" not in message  # the real cause, not a guess
