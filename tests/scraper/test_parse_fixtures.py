"""parse_search_page on the hand-made edge-case pages in fixtures/ebay/."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from core.errors import ParseError
from core.models import BuyingFormat, Listing
from scraper.parse import parse_search_page
from tests.conftest import load_fixture

URL = "https://www.ebay.com/sch/i.html?_nkw=tesla+v100+sxm2"


def parse(name: str, **kwargs):
    return parse_search_page(load_fixture("ebay", name), url=URL, search="v100-sxm2", **kwargs)


def test_su_item_card_layout_is_read_by_its_own_module():
    page = parse("su_item_card.html", now=datetime(2026, 11, 20, 12, tzinfo=UTC))
    assert (page.layout, page.result_count, page.has_next) == ("su-item-card", 3, False)
    assert [x.item_id for x in page.listings] == ["405123456789", "405987654321", "405555000111"]
    assert page.listings[0] == Listing(
        item_id="405123456789",
        title="NVIDIA Tesla V100 SXM2 32GB GPU Accelerator 900-2G503-0010-000",
        url="https://www.ebay.com/itm/405123456789",
        price=Decimal("410.00"),
        currency="USD",
        buying_format=BuyingFormat.BEST_OFFER,
        shipping=Decimal("18.50"),
        best_offer=True,
        sold_date=date(2026, 11, 12),
        best_offer_accepted=True,
        condition="Pre-Owned",
        seller="gpu-recycler",
        seller_feedback=2400,
        seller_positive_pct=Decimal("99.6"),
        location="United States",
        image_url="https://i.ebayimg.com/images/g/aaaa/s-l500.webp",
    )


def test_auction_countdown_gives_an_end_time_only_with_a_clock():
    now = datetime(2026, 11, 20, 12, tzinfo=UTC)
    timed = parse("su_item_card.html", now=now).listings[1]
    assert (timed.buying_format, timed.bids) == (BuyingFormat.AUCTION, 5)
    assert timed.end_time == datetime(2026, 11, 21, 16, tzinfo=UTC)
    assert parse("su_item_card.html").listings[1].end_time is None


def test_markup_like_title_text_is_kept_verbatim_as_text():
    assert parse("su_item_card.html").listings[1].title == (
        "Lot of 4 NVIDIA Tesla V100 SXM2 16GB <b>tested</b>"
    )


def test_freight_is_unknown_shipping_with_a_note():
    heatsink = parse("su_item_card.html").listings[2]
    assert (heatsink.shipping, heatsink.shipping_note, heatsink.total) == (None, "freight", None)


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
