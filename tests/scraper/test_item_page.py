"""An eBay item page read as the listing it shows: title, price, shipping, seller, format and
the item specifics; a page that is not one is an error, never a half-read listing."""

from __future__ import annotations

from decimal import Decimal

import pytest

from core.errors import BlockedError, ParseError
from core.models import BuyingFormat
from scraper.item_page import parse_item_page
from tests.conftest import load_fixture, load_sample

URL = "https://www.ebay.com/itm/355512349876"


def test_our_item_page_is_read_whole():
    page = parse_item_page(
        load_fixture("items", "v100-sxm2-16gb.html"), url=URL, marketplace="EBAY_US"
    )
    listing = page.listing
    assert listing.item_id == "355512349876"
    assert listing.title.startswith("NVIDIA Tesla V100 SXM2 16GB")
    assert (listing.price, listing.currency, listing.shipping) == (
        Decimal("92.00"),
        "USD",
        Decimal("8.50"),
    )
    assert listing.buying_format is BuyingFormat.BUY_IT_NOW
    assert (listing.seller, listing.seller_feedback) == ("bayside_compute", 1530)
    assert listing.seller_positive_pct == Decimal("99.8")
    assert listing.location == "San Jose, California, United States"
    assert listing.condition == "Used"
    assert page.specifics["Memory Size"] == "16 GB"


def test_a_real_item_page_saved_by_others_is_read():
    html = load_sample("html", "item_2025-06_ebay-us_rtx-5090-founders-edition.html")
    page = parse_item_page(html, url="https://www.ebay.com/itm/1", marketplace="EBAY_US")
    listing = page.listing
    assert listing.item_id == "226771798286"  # its canonical link, not the URL asked
    assert "RTX 5090" in listing.title
    assert (listing.price, listing.currency, listing.shipping) == (
        Decimal("3500.00"),
        "EUR",
        Decimal("150.00"),
    )
    assert (listing.seller, listing.seller_feedback) == ("salomon0651", 113)
    assert page.specifics["Taille de la mémoire"] == "24 Go"


def test_a_captcha_instead_of_the_item_page_is_a_blocked_error():
    html = load_sample("html", "block_security-measure_2026-08.html")
    with pytest.raises(BlockedError):
        parse_item_page(html, url=URL, marketplace="EBAY_US")


@pytest.mark.parametrize(
    ("cut", "message"),
    [
        ('<div class="x-price-primary"', "no price on the item page"),
        ('<div class="vim x-item-title"', "no item title"),
    ],
)
def test_a_page_without_its_title_or_price_is_an_error(cut, message):
    html = load_fixture("items", "v100-sxm2-16gb.html")
    start = html.index(cut)
    broken = html[:start] + html[html.index("</div>", start) + 6 :]
    if "title" in message:
        broken = broken.replace('<meta property="og:title"', '<meta property="og:x"')
    with pytest.raises(ParseError, match=message):
        parse_item_page(broken, url=URL, marketplace="EBAY_US")
