"""parse_search_page on the hand-made edge-case pages in fixtures/ebay/."""

from __future__ import annotations

import pytest

from core.errors import ParseError
from scraper.parse import parse_search_page
from tests.conftest import load_fixture

URL = "https://www.ebay.com/sch/i.html?_nkw=tesla+v100+sxm2"


def parse(name: str, **kwargs):
    return parse_search_page(load_fixture("ebay", name), url=URL, search="v100-sxm2", **kwargs)


def test_a_page_of_su_item_cards_alone_is_an_unknown_layout_not_a_guess():
    html = load_fixture("ebay", "scard_2026-07_active.html")
    start, end = (
        html.index('<ul class="srp-results'),
        html.index("</ul>", html.index('<ul class="srp-results')),
    )
    carousel = '<li class="su-item-card" data-listingid="405123456789"><a class="su-item-card__link" href="https://www.ebay.com/itm/405123456789"><div class="su-item-card__title">NVIDIA Tesla V100</div></a><div class="su-item-card__price">$410.00</div></li>'
    only_carousels = html[:start] + f'<ul class="srp-results srp-list">{carousel}' + html[end:]
    only_carousels = only_carousels.replace('class="s-card', 'class="x-card')
    with pytest.raises(ParseError, match="unknown results layout"):
        parse_search_page(only_carousels, url=URL)


def test_unknown_layout_fails_loudly_naming_the_url():
    with pytest.raises(ParseError, match="unknown results layout") as caught:
        parse("unknown_layout.html")
    assert caught.value.url == URL
    assert URL in str(caught.value)


def test_genuine_zero_results_page_is_empty_not_an_error():
    page = parse("zero_results.html")
    assert (page.listings, page.result_count, page.has_next) == ((), 0, False)


def test_page_claiming_results_with_only_placeholders_fails():
    with pytest.raises(ParseError, match="says 242 results but no listing"):
        parse("claims_results_no_cards.html")


@pytest.mark.parametrize("name", ["zero_results.html", "scard_2026-07_active.html"])
def test_a_page_cut_before_its_result_count_is_an_error_not_empty(name):
    html = load_fixture("ebay", name)
    cut = html[: html.index("srp-controls__count-heading") - 20]
    with pytest.raises(ParseError, match="truncated"):
        parse_search_page(cut, url=URL)
    parse_search_page(html, url=URL)  # the whole page reads as before


def test_a_no_matches_page_cut_after_its_heading_is_an_error_too():
    html = load_fixture("ebay", "zero_results.html").replace(
        'class="srp-controls__count-heading"', 'class="srp-controls__heading"'
    )
    cut = html[: len(html) * 2 // 3]
    with pytest.raises(ParseError, match="truncated"):
        parse_search_page(cut, url=URL)
