"""Terapeak sold-listing CSVs become sold Listings; a file we cannot read says what it expected."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from core.errors import ParseError
from core.models import BuyingFormat, Listing
from scraper.terapeak import parse_terapeak_csv
from tests.conftest import load_fixture


def test_the_handmade_export_parses_in_full():
    listings = parse_terapeak_csv(load_fixture("terapeak", "sold_tesla-v100_handmade.csv"))
    assert listings == [
        Listing(
            item_id="100000000001",
            title="NVIDIA Tesla V100 SXM2 16GB GPU Accelerator 699-2G503-0203-200",
            url="https://www.ebay.com/itm/100000000001",
            price=Decimal("189.00"),
            currency="USD",
            buying_format=BuyingFormat.BUY_IT_NOW,
            shipping=Decimal("0.00"),
            sold_date=date(2026, 11, 18),
        ),
        Listing(
            item_id="100000000002",
            title="Lot of 4 NVIDIA Tesla V100 SXM2 32GB, tested",
            url="https://www.ebay.com/itm/100000000002",
            price=Decimal("1234.50"),
            currency="USD",
            buying_format=BuyingFormat.AUCTION,
            shipping=Decimal("45.00"),
            bids=17,
            sold_date=date(2026, 11, 12),
        ),
        Listing(
            item_id="100000000003",
            title="Heatsink for SXM2 GPU NVIDIA Tesla P100/V100 16/32GB",
            url="https://www.ebay.com/itm/100000000003",
            price=Decimal("39.99"),
            currency="USD",
            buying_format=BuyingFormat.BUY_IT_NOW,
            shipping=None,
            shipping_note="not specified",
            sold_date=date(2026, 10, 30),
        ),
        Listing(
            item_id="100000000004",
            title="NVIDIA Tesla V100 32GB PCIe GPU (For parts or not working)",
            url="https://www.ebay.com/itm/100000000004",
            price=Decimal("420.00"),
            currency="USD",
            buying_format=BuyingFormat.BUY_IT_NOW,
            shipping=Decimal("24.95"),
            sold_date=date(2026, 9, 2),
        ),
    ]


@pytest.mark.parametrize(
    ("csv_text", "marketplace", "expected"),
    [
        (
            "Title,Item number,Sold price,Shipping,Sold date,Bids\n"
            "Tesla P40 24GB,100000000010,250.00,12.5,2026-11-01,4\n",
            "EBAY_US",
            (Decimal("250.00"), "USD", Decimal("12.50"), date(2026, 11, 1), BuyingFormat.AUCTION),
        ),
        (
            "listing ,  LISTING URL ,avg sold price,avg shipping,date last sold\n"
            "RTX 3090 FE,https://www.ebay.co.uk/itm/RTX-3090/100000000011?x=1,£612.00,Free,11/02/2026\n",
            "EBAY_GB",
            (Decimal("612.00"), "GBP", Decimal("0.00"), date(2026, 11, 2), BuyingFormat.BUY_IT_NOW),
        ),
        (
            "Listing,Item ID,Avg sold price,Avg shipping,Date last sold,Format\n"
            'Tesla V100,100000000012,"EUR 1.099,00","EUR 19,90",3 Nov 2026,Best Offer\n',
            "EBAY_DE",
            (
                Decimal("1099.00"),
                "EUR",
                Decimal("19.90"),
                date(2026, 11, 3),
                BuyingFormat.BEST_OFFER,
            ),
        ),
    ],
    ids=["other spellings, plain numbers", "url only, pounds", "euros with decimal commas"],
)
def test_accepted_column_spellings_and_money_formats(csv_text, marketplace, expected):
    (listing,) = parse_terapeak_csv(csv_text, marketplace=marketplace)
    got = (
        listing.price,
        listing.currency,
        listing.shipping,
        listing.sold_date,
        listing.buying_format,
    )
    assert got == expected
    assert listing.marketplace == marketplace
    assert listing.url.endswith(f"/itm/{listing.item_id}")


@pytest.mark.parametrize(
    ("header", "missing"),
    [
        ("Listing,Item ID,Avg sold price", "sold_date"),
        ("Item ID,Avg sold price,Date last sold", "title"),
        ("Listing,Avg sold price,Date last sold", "item_id or url"),
        ("", "title, price, sold_date"),
    ],
    ids=["no date", "no title", "no id", "empty file"],
)
def test_a_file_without_the_needed_columns_says_which_it_expected(header, missing):
    with pytest.raises(ParseError, match=f"missing {missing}") as caught:
        parse_terapeak_csv(header + "\n")
    assert "expected columns: title: listing" in str(caught.value)


HEADER = "Listing,Item ID,Avg sold price,Avg shipping,Date last sold\n"


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ('Tesla P40,100000000020,--,Free,"Nov 1, 2026"', "line 3: no price"),
        ("Tesla P40,100000000020,$250.00,Free,yesterday", "line 3: unreadable sold date"),
        ('Tesla P40,n/a,$250.00,Free,"Nov 1, 2026"', "line 3: no item id"),
        ('Tesla P40,100000000020,call me,Free,"Nov 1, 2026"', "line 3: not a price"),
        ('Tesla P40,100000000020,$250.00,by pigeon,"Nov 1, 2026"', "line 3: unreadable shipping"),
    ],
    ids=["no price", "bad date", "no id", "not money", "bad shipping"],
)
def test_a_bad_row_fails_loudly_with_its_line_number(row, message):
    good = 'Tesla P40,100000000021,$240.00,Free,"Nov 1, 2026"\n'
    with pytest.raises(ParseError, match=message):
        parse_terapeak_csv(HEADER + good + row + "\n")
