"""build_search_url: every saved-search setting lands in eBay's own query parameters."""

from __future__ import annotations

from decimal import Decimal
from urllib.parse import parse_qsl, urlsplit

import pytest

from core.errors import ConfigError
from core.models import Mode, SavedSearch
from scraper.urls import build_search_url

P40 = SavedSearch(name="p40", query="tesla p40")
BASE = {"_nkw": "tesla p40", "_sacat": "0", "_ipg": "240"}


def params(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query))


@pytest.mark.parametrize(
    ("search", "mode", "page", "expected"),
    [
        (P40, Mode.ACTIVE, 1, {**BASE, "_sop": "10", "_pgn": "1"}),
        (
            P40,
            Mode.SOLD,
            1,
            {**BASE, "_sop": "13", "_pgn": "1", "LH_Sold": "1", "LH_Complete": "1"},
        ),
        (P40, Mode.ACTIVE, 3, {**BASE, "_sop": "10", "_pgn": "3"}),
        (
            SavedSearch("p40", "tesla p40", buying="buy_it_now"),
            Mode.ACTIVE,
            1,
            {**BASE, "_sop": "10", "_pgn": "1", "LH_BIN": "1"},
        ),
        (
            SavedSearch("p40", "tesla p40", buying="auction"),
            Mode.ACTIVE,
            1,
            {**BASE, "_sop": "10", "_pgn": "1", "LH_Auction": "1"},
        ),
        (
            SavedSearch("p40", "tesla p40", condition="used", location="domestic"),
            Mode.ACTIVE,
            1,
            {**BASE, "_sop": "10", "_pgn": "1", "LH_ItemCondition": "3000", "LH_PrefLoc": "1"},
        ),
        (
            SavedSearch("p40", "tesla p40", condition="new", location="worldwide"),
            Mode.SOLD,
            2,
            {
                **BASE,
                "_sop": "13",
                "_pgn": "2",
                "LH_Sold": "1",
                "LH_Complete": "1",
                "LH_ItemCondition": "1000",
                "LH_PrefLoc": "2",
            },
        ),
        (
            SavedSearch("p40", "tesla p40", condition="for_parts"),
            Mode.ACTIVE,
            1,
            {**BASE, "_sop": "10", "_pgn": "1", "LH_ItemCondition": "7000"},
        ),
        (
            SavedSearch("p40", "tesla p40", min_price=Decimal("100"), max_price=Decimal("2.5E+2")),
            Mode.ACTIVE,
            1,
            {**BASE, "_sop": "10", "_pgn": "1", "_udlo": "100", "_udhi": "250"},
        ),
        (
            SavedSearch("v100", "v100 sxm2 16gb", category_id="27386"),
            Mode.ACTIVE,
            1,
            {"_nkw": "v100 sxm2 16gb", "_sacat": "27386", "_ipg": "240", "_sop": "10", "_pgn": "1"},
        ),
    ],
)
def test_query_parameters(
    search: SavedSearch, mode: Mode, page: int, expected: dict[str, str]
) -> None:
    assert params(build_search_url(search, mode, page)) == expected


@pytest.mark.parametrize(
    ("marketplace", "base_url", "prefix"),
    [
        ("EBAY_US", None, "https://www.ebay.com/sch/i.html?"),
        ("EBAY_GB", None, "https://www.ebay.co.uk/sch/i.html?"),
        ("EBAY_DE", None, "https://www.ebay.de/sch/i.html?"),
        ("EBAY_DE", "http://127.0.0.1:8123", "http://127.0.0.1:8123/sch/i.html?"),
        ("EBAY_US", "http://127.0.0.1:8123/", "http://127.0.0.1:8123/sch/i.html?"),
    ],
)
def test_host_comes_from_the_marketplace_unless_overridden(
    marketplace: str, base_url: str | None, prefix: str
) -> None:
    search = SavedSearch("gpu", "rtx 3090", marketplace=marketplace)
    assert build_search_url(search, Mode.ACTIVE, 1, base_url=base_url).startswith(prefix)


def test_query_text_is_encoded_not_interpreted() -> None:
    search = SavedSearch("odd", 'rtx 3090 -"for parts" & 24gb#1')
    url = build_search_url(search, Mode.ACTIVE, 1)
    assert params(url)["_nkw"] == 'rtx 3090 -"for parts" & 24gb#1'
    assert "#" not in url


@pytest.mark.parametrize(
    ("search", "message"),
    [
        (SavedSearch("p40", "p40", condition="mint"), "condition must be one of"),
        (SavedSearch("p40", "p40", location="mars"), "location must be one of"),
        (SavedSearch("p40", "p40", buying="raffle"), "buying must be one of"),
        (SavedSearch("p40", "p40", marketplace="EBAY_XX"), "unknown marketplace 'EBAY_XX'"),
    ],
)
def test_bad_settings_are_config_errors_naming_the_search(
    search: SavedSearch, message: str
) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        build_search_url(search, Mode.ACTIVE, 1)
    assert "'p40'" in str(caught.value)


def test_pages_start_at_one() -> None:
    with pytest.raises(ValueError, match="start at 1"):
        build_search_url(P40, Mode.ACTIVE, 0)
