"""Browse API itemSummary JSON becomes Listing records: every real saved item, and the hard ones."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from bench import SAMPLES
from core.errors import ParseError
from core.models import BuyingFormat, Listing
from scraper.browse_parse import parse_item_summaries, parse_item_summary
from tests.conftest import load_sample

SAMPLE_FILES = sorted(p.name for p in (SAMPLES / "browse-api").glob("*.json")) or ["absent.json"]


def _items(name: str) -> list[dict[str, Any]]:
    payload = json.loads(load_sample("browse-api", name))
    items: list[dict[str, Any]] = payload["itemSummaries"] if isinstance(payload, dict) else payload
    return items


def _item(name: str, legacy_id: str) -> dict[str, Any]:
    return next(i for i in _items(name) if i["legacyItemId"] == legacy_id)


@pytest.mark.parametrize("name", SAMPLE_FILES)
def test_every_real_item_parses_with_its_id_price_and_link(name):
    payload = json.loads(load_sample("browse-api", name))
    listings = parse_item_summaries(payload, marketplace="EBAY_US")
    items = _items(name)
    assert [x.item_id for x in listings] == [i["legacyItemId"] for i in items]
    for listing, item in zip(listings, items, strict=True):
        assert listing.url == f"https://www.ebay.com/itm/{item['legacyItemId']}"
        assert listing.currency == "USD"
        assert listing.price > 0
        has_fixed_cost = any(
            o["shippingCostType"] == "FIXED" for o in item.get("shippingOptions", [])
        )
        assert (listing.shipping is not None) == has_fixed_cost
        assert listing.seller == item["seller"]["username"]


EXPECTED = [
    pytest.param(
        "itemsummaries_tesla-v100_2024-01.json",
        "296156094954",
        Listing(
            item_id="296156094954",
            title="NVIDIA Tesla V100 32GB PCI-E GPU Computing Accelerator Card 699-2G500-0202-400",
            url="https://www.ebay.com/itm/296156094954",
            price=Decimal("2383.00"),
            currency="USD",
            buying_format=BuyingFormat.AUCTION,
            shipping=Decimal("0.00"),
            bids=0,
            end_time=datetime(2024, 1, 16, 21, 22, 59, tzinfo=UTC),
            condition="Open box",
            seller="redacted-7093101911130925",
            seller_feedback=1281,
            seller_positive_pct=Decimal("100.0"),
            location="US",
            image_url="https://i.ebayimg.com/thumbs/images/g/RbAAAOSwZBZk1X0I/s-l225.jpg",
            category_id="27386",
        ),
        id="auction: the current bid is the price, not the Buy It Now",
    ),
    pytest.param(
        "itemsummaries_tesla-p100_2024-01.json",
        "404453313559",
        Listing(
            item_id="404453313559",
            title="Tesla NVIDIA P4 8GB P40 24GB K80 24GB M40 24GB P100 16GB GPU Card",
            url="https://www.ebay.com/itm/404453313559",
            price=Decimal("73.99"),
            currency="USD",
            buying_format=BuyingFormat.BUY_IT_NOW,
            shipping=Decimal("0.00"),
            condition="Used",
            seller="redacted-7946501093881351",
            seller_feedback=343,
            seller_positive_pct=Decimal("99.7"),
            location="CN",
            image_url="https://i.ebayimg.com/thumbs/images/g/73sAAOSwst5k5MaC/s-l225.jpg",
            category_id="27386",
        ),
        id="variation group: the legacy id, not v1|id|variation",
    ),
    pytest.param(
        "itemsummaries_tesla-v100_2024-01.json",
        "385392136523",
        Listing(
            item_id="385392136523",
            title="Heatsink for SXM2 GPU NVIDIA Tesla P100/V100 16/32GB 699-2G503-0204-20",
            url="https://www.ebay.com/itm/385392136523",
            price=Decimal("70.00"),
            currency="USD",
            buying_format=BuyingFormat.BUY_IT_NOW,
            shipping=None,
            shipping_note="calculated",
            condition="Used",
            seller="redacted-6719005422666265",
            seller_feedback=2,
            seller_positive_pct=Decimal("100.0"),
            location="US",
            image_url="https://i.ebayimg.com/thumbs/images/g/uEwAAOSw9Qxj3cie/s-l225.jpg",
            category_id="27386",
        ),
        id="heatsink with calculated shipping: cost unknown, never zero",
    ),
    pytest.param(
        "search-envelope_rtx-a5000_2023-11.json",
        "296057072805",
        Listing(
            item_id="296057072805",
            title="NVIDIA RTX A5000 24GB GDDR6 Graphics Card",
            url="https://www.ebay.com/itm/296057072805",
            price=Decimal("1500.00"),
            currency="USD",
            buying_format=BuyingFormat.BEST_OFFER,
            shipping=Decimal("0.00"),
            best_offer=True,
            condition="Used",
            seller="scrambled",
            seller_feedback=6,
            seller_positive_pct=Decimal("0.0"),
            location="AE",
            image_url="https://i.ebayimg.com/thumbs/images/g/nIQAAOSwWqNk9uTr/s-l225.jpg",
            category_id="27386",
        ),
        id="best offer with free shipping, tracking query string dropped from the url",
    ),
    pytest.param(
        "itemsummaries_a10_2023-12.json",
        "375105620613",
        Listing(
            item_id="375105620613",
            title="Dell NVIDIA A10 24GB Graphics Accelerator",
            url="https://www.ebay.com/itm/375105620613",
            price=Decimal("2851.09"),
            currency="USD",
            buying_format=BuyingFormat.BEST_OFFER,
            shipping=Decimal("70.00"),
            best_offer=True,
            condition="Used",
            seller="redacted-1602906296923111.8",
            seller_feedback=8427,
            seller_positive_pct=Decimal("100.0"),
            location="GB",
            image_url="https://i.ebayimg.com/thumbs/images/g/pc8AAOSw9R1lgXX6/s-l225.jpg",
            category_id="27386",
        ),
        id="fixed shipping cost",
    ),
    pytest.param(
        "itemsummaries_tesla-v100_2024-01.json",
        "305330200543",
        Listing(
            item_id="305330200543",
            title="NVIDIA Tesla V100 16GB HBM2 PCIe Accelerator GPU Card Passive CUDA",
            url="https://www.ebay.com/itm/305330200543",
            price=Decimal("2599.00"),
            currency="USD",
            buying_format=BuyingFormat.BEST_OFFER,
            shipping=None,
            shipping_note="local pickup only",
            best_offer=True,
            condition="Used",
            seller="redacted-484693536800657.94",
            seller_feedback=25772,
            seller_positive_pct=Decimal("99.9"),
            location="US",
            image_url="https://i.ebayimg.com/thumbs/images/g/FCQAAOSwxDlh2Kyo/s-l225.jpg",
            category_id="27386",
        ),
        id="local pickup only: no shipping cost",
    ),
]


@pytest.mark.parametrize(("name", "legacy_id", "expected"), EXPECTED)
def test_real_item_parses_in_full(name, legacy_id, expected):
    assert parse_item_summary(_item(name, legacy_id), marketplace="EBAY_US") == expected


def test_item_id_falls_back_to_the_rest_id_when_the_legacy_id_is_missing():
    item = dict(_item("itemsummaries_tesla-p100_2024-01.json", "404453313559"))
    del item["legacyItemId"]
    assert parse_item_summary(item, marketplace="EBAY_US").item_id == "404453313559"


def test_marketplace_is_kept_and_the_host_comes_from_the_item():
    item = dict(_item("itemsummaries_tesla-p100_2024-01.json", "404453313559"))
    item["itemWebUrl"] = "https://www.ebay.de/itm/404453313559?hash=x"
    listing = parse_item_summary(item, marketplace="EBAY_DE")
    assert (listing.marketplace, listing.url) == ("EBAY_DE", "https://www.ebay.de/itm/404453313559")


@pytest.mark.parametrize(
    ("payload", "count"),
    [
        ({"total": 0, "limit": 200, "offset": 0}, 0),
        ({"total": 150, "limit": 200, "offset": 200}, 0),
        ([], 0),
    ],
    ids=["no results", "past the last page", "empty list"],
)
def test_pages_without_items_are_empty_when_nothing_was_promised(payload, count):
    assert len(parse_item_summaries(payload, marketplace="EBAY_US")) == count


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"total": 57, "limit": 200, "offset": 0}, "says 57 results"),
        ("not json", "not an object"),
        ([["a list"]], "not an object"),
    ],
    ids=["promised but empty", "not a payload", "not an item"],
)
def test_unreadable_payloads_fail_loudly(payload, message):
    with pytest.raises(ParseError, match=message):
        parse_item_summaries(payload, marketplace="EBAY_US")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"price": None}, "404453313559: no price"),
        ({"price": {"value": "abc", "currency": "USD"}}, "unreadable price"),
        ({"price": {"value": "-1.00", "currency": "USD"}}, "unreadable price"),
        ({"legacyItemId": None, "itemId": "garbage"}, "usable id"),
        ({"title": "  "}, "no title"),
        ({"buyingOptions": ["CLASSIFIED_AD"]}, "no buying option"),
        ({"itemEndDate": "soon"}, "unreadable date"),
        ({"price": {"value": "12.345", "currency": "USD"}}, "12.345 has digits under a cent"),
        (
            {
                "shippingOptions": [
                    {"shippingCostType": "FIXED", "shippingCost": {"value": "4.999"}}
                ]
            },
            "4.999 has digits under a cent",
        ),
    ],
    ids=[
        "no price",
        "bad price",
        "negative price",
        "no id",
        "no title",
        "unknown format",
        "bad date",
        "sub-cent price",
        "sub-cent shipping",
    ],
)
def test_unreadable_items_fail_loudly_naming_the_item(changes, message):
    item = dict(_item("itemsummaries_tesla-p100_2024-01.json", "404453313559"))
    for key, value in changes.items():
        if value is None:
            del item[key]
        else:
            item[key] = value
    with pytest.raises(ParseError, match=message):
        parse_item_summaries([item], marketplace="EBAY_US")
