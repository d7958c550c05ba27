"""parse_search_page against the real saved eBay pages in ../shared/ebay-samples/html."""

from __future__ import annotations

import re
from datetime import date
from decimal import Decimal

import pytest

from core.errors import BlockedError, ParseError
from core.marketplaces import item_url
from core.models import BuyingFormat, Listing
from scraper.parse import SearchPage, listing_to_contract, parse_search_page
from tests.conftest import load_sample

BEETLE = "srp_scard_sold_2026-05_ebay-us_2006-vw-new-beetle.html"
CHARIZARD = "srp_scard_sold_2025-11_ebay-us_charizard-base-set_cat183454.html"
LEGO_DE = "srp_scard_active_2026-04_ebay-de_lego-nan_EUR.html"
SHIRTS = "srp_sitem_active_2025-03_ebay-us_shirts.html"
WARHAMMER = "srp_sitem_active-bin_2021-01_ebay-uk_warhammer_GBP.html"


def parse(name: str, *, url: str = "", search: str | None = None) -> SearchPage:
    return parse_search_page(load_sample("html", name), url=url, search=search)


def by_id(name: str, item_id: str) -> Listing:
    return next(x for x in parse(name).listings if x.item_id == item_id)


@pytest.mark.parametrize(
    ("name", "layout", "count", "result_count", "marketplace"),
    [
        (BEETLE, "s-card", 60, 242, "EBAY_US"),
        (CHARIZARD, "s-card", 60, 12000, "EBAY_US"),
        (LEGO_DE, "s-card", 60, 1300, "EBAY_DE"),
        (SHIRTS, "s-item", 60, 7000000, "EBAY_US"),
        (WARHAMMER, "s-item", 61, 185510, "EBAY_GB"),
    ],
)
def test_every_real_listing_is_found_once(name, layout, count, result_count, marketplace):
    page = parse(name)
    assert page.layout == layout
    assert len(page.listings) == count
    assert len({x.item_id for x in page.listings}) == count
    assert page.result_count == result_count
    assert page.has_next
    assert {x.marketplace for x in page.listings} == {marketplace}
    # each item links to the site it was found on (an ebay.de search to ebay.de)
    assert all(x.url == item_url(marketplace, x.item_id) for x in page.listings)


@pytest.mark.parametrize("name", [BEETLE, CHARIZARD, LEGO_DE, SHIRTS, WARHAMMER])
def test_placeholders_badges_and_screen_reader_text_never_reach_titles(name):
    titles = [x.title for x in parse(name).listings]
    assert "Shop on eBay" not in titles
    for junk in ("Opens in a new window", "Wird in neuem Fenster", "New Listing", "SPONSORED"):
        assert not any(junk in t for t in titles)


@pytest.mark.parametrize(("name", "sold"), [(BEETLE, 60), (CHARIZARD, 60), (LEGO_DE, 0)])
def test_sold_pages_date_every_listing(name, sold):
    assert sum(x.sold_date is not None for x in parse(name).listings) == sold


def test_sold_best_offer_accepted_card_in_full():
    assert by_id(BEETLE, "168179143276") == Listing(
        item_id="168179143276",
        title="2004-2010 VW New Beetle Dash Center A/C Vent Radio Bezel Black OEM "
        "(For: 2006 Volkswagen Beetle)",
        url="https://www.ebay.com/itm/168179143276",
        price=Decimal("109.00"),
        currency="USD",
        buying_format=BuyingFormat.BEST_OFFER,
        marketplace="EBAY_US",
        shipping=Decimal("26.55"),
        best_offer=True,
        sold_date=date(2026, 3, 6),
        best_offer_accepted=True,
        condition="Pre-Owned",
        seller="r00sters",
        seller_feedback=1100,
        seller_positive_pct=Decimal("99.8"),
        location="United States",
        image_url="https://i.ebayimg.com/images/g/5OIAAeSwkE1pm3xw/s-l140.webp",
    )


def test_sold_auction_with_bids_and_no_shipping_row():
    car = by_id(BEETLE, "306799759810")
    assert (car.price, car.buying_format, car.bids) == (Decimal("610.00"), BuyingFormat.AUCTION, 7)
    assert (car.sold_date, car.shipping, car.seller) == (date(2026, 3, 5), None, "justdonated")


def test_best_offer_accepted_counts_match_the_page():
    assert sum(x.best_offer_accepted for x in parse(BEETLE).listings) == 11
    assert sum(x.best_offer_accepted for x in parse(CHARIZARD).listings) == 10


def test_discounted_price_is_the_sale_price_not_the_struck_was_price():
    door = by_id(BEETLE, "205909820653")
    assert door.price == Decimal("79.99")
    assert not door.best_offer_accepted


def test_new_listing_badge_is_stripped_from_the_title():
    lot = by_id(CHARIZARD, "286955451586")
    assert lot.title == (
        "Vintage Pokemon Card Collection! Over 150+ Rare Vintage Cards. (See Description)"
    )
    assert (lot.price, lot.shipping, lot.sold_date) == (
        Decimal("2500.00"),
        Decimal("0.00"),
        date(2025, 11, 20),
    )


def test_usd_price_range_on_a_sold_page():
    cards = by_id(CHARIZARD, "184461143089")
    assert (cards.price, cards.price_max, cards.shipping) == (
        Decimal("3.25"),
        Decimal("195.87"),
        Decimal("6.52"),
    )
    assert (cards.seller, cards.seller_feedback, cards.location) == (
        "andy-scarfo",
        4200,
        "United Kingdom",
    )


def test_eur_decimal_comma_range_and_german_captions():
    first = parse(LEGO_DE).listings[0]
    assert first == Listing(
        item_id="266831246079",
        title="Original LEGO® Großeltern Geschenk & Bank Oma Opa Minifiguren Nan Opa",
        url="https://www.ebay.de/itm/266831246079",
        price=Decimal("17.72"),
        price_max=Decimal("18.66"),
        currency="EUR",
        buying_format=BuyingFormat.BUY_IT_NOW,
        marketplace="EBAY_DE",
        shipping=Decimal("10.24"),
        condition="Neu",
        location="Großbritannien",
        image_url="https://i.ebayimg.com/images/g/ht8AAOSw~7hmUxfM/s-l500.jpg",
    )


def test_german_best_offer_is_recognised():
    trophy = by_id(LEGO_DE, "376998995869")
    assert (trophy.buying_format, trophy.price, trophy.shipping) == (
        BuyingFormat.BEST_OFFER,
        Decimal("54.49"),
        Decimal("20.46"),
    )


def test_gbp_range_with_postage_on_the_old_layout():
    squad = by_id(WARHAMMER, "324293101484")
    assert squad == Listing(
        item_id="324293101484",
        title="ADEPTA SORORITAS REPENTIA SQUAD - Sisters of battle Warhammer 40k - INDIVIDUALS",
        url="https://www.ebay.co.uk/itm/324293101484",
        price=Decimal("4.49"),
        price_max=Decimal("8.49"),
        currency="GBP",
        buying_format=BuyingFormat.BUY_IT_NOW,
        marketplace="EBAY_GB",
        shipping=Decimal("5.49"),
        condition="Brand new",
        location="United Kingdom",
        image_url="https://i.ebayimg.com/thumbs/images/g/v~AAAOSwjF9fViN4/s-l225.jpg",
    )


def test_best_offer_shown_only_as_an_icon_label():
    bases = by_id(WARHAMMER, "203236320699")
    assert (bases.buying_format, bases.shipping, bases.shipping_note) == (
        BuyingFormat.BEST_OFFER,
        Decimal("25.21"),
        "estimate",
    )


def test_postage_not_specified_is_unknown_not_free():
    bits = by_id(WARHAMMER, "284125416712")
    assert (bits.shipping, bits.shipping_note, bits.total) == (None, "not specified", None)


def test_old_layout_us_range():
    tee = parse(SHIRTS).listings[0]
    assert (tee.item_id, tee.price, tee.price_max, tee.shipping, tee.condition) == (
        "253241346941",
        Decimal("10.44"),
        Decimal("15.96"),
        Decimal("32.51"),
        "New (Other)",
    )


def test_contract_keys_and_json_types():
    record = listing_to_contract(by_id(BEETLE, "168179143276"))
    assert list(record)[:11] == [
        "item_id", "title", "price", "price_max", "currency", "shipping",
        "buying_format", "bids", "sold_date", "condition", "url",
    ]  # fmt: skip
    assert record["price"] == 109.0
    assert record["shipping"] == 26.55
    assert (record["buying_format"], record["sold_date"]) == ("best_offer", "2026-03-06")
    assert record["best_offer_accepted"] is True


@pytest.mark.parametrize(
    ("name", "phrase"),
    [
        ("block_security-measure_2026-08.html", "Security Measure"),
        ("block_error-page_2026-08.html", "error page"),
    ],
)
def test_block_pages_raise_blocked_error_naming_search_and_url(name, phrase):
    url = "https://www.ebay.com/sch/i.html?_nkw=tesla+v100"
    with pytest.raises(BlockedError, match=phrase) as caught:
        parse(name, url=url, search="v100-sxm2")
    assert (caught.value.url, caught.value.search) == (url, "v100-sxm2")
    assert "v100-sxm2" in str(caught.value)


def test_an_item_page_is_not_a_results_page():
    with pytest.raises(ParseError, match="unknown results layout"):
        parse("item_2025-06_ebay-us_rtx-5090-founders-edition.html", url="https://x/itm/1")


def cut_points(html: str) -> tuple[int, int]:
    """Where the result list starts and where its pagination bar (its last part) begins."""
    first_card = re.search(r"<li[^>]*class=\"?s-(?:card|item)[\s\"]", html)
    pagination = re.search(r"<nav[^>]*class=\"?pagination[\s\">]", html)
    assert first_card
    assert pagination
    return first_card.start(), pagination.start()


@pytest.mark.parametrize("name", [BEETLE, LEGO_DE, SHIRTS, WARHAMMER])
@pytest.mark.parametrize("where", [0.2, 0.5, 0.97])
def test_a_page_cut_inside_its_result_list_raises(name, where):
    html = load_sample("html", name)
    start, end = cut_points(html)
    cut = html[: start + int((end - start) * where)]
    with pytest.raises(ParseError, match="truncated") as caught:
        parse_search_page(cut, url="https://www.ebay.com/sch/i.html?_nkw=x", search="x")
    assert caught.value.url == "https://www.ebay.com/sch/i.html?_nkw=x"


@pytest.mark.parametrize(("name", "count"), [(BEETLE, 60), (LEGO_DE, 60), (WARHAMMER, 61)])
def test_a_page_cut_after_its_pagination_still_holds_every_listing(name, count):
    html = load_sample("html", name)
    _, end = cut_points(html)
    page = parse_search_page(html[: end + 20_000])
    assert len(page.listings) == count
