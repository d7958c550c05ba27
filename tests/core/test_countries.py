"""Every way eBay names where a listing ships from maps to one country, and the origin rule
(domestic, same region, overseas) reads that country — for search pages and Browse alike."""

from __future__ import annotations

import pytest

from core.countries import country_names, country_of
from core.marketplaces import marketplaces
from ranking.titles.origin import DOMESTIC, OVERSEAS, REGION, ship_origin


@pytest.mark.parametrize(
    ("location", "country"),
    [
        ("US", "US"),  # the Browse API's itemLocation.country
        ("GB", "GB"),
        ("United States", "US"),
        ("Los Angeles, California, United States", "US"),
        ("Austin, TX", "US"),
        ("San Jose, CA", "US"),  # a US state, not Canada
        ("CA", "CA"),  # alone, the ISO code is Canada
        ("Estados Unidos", "US"),
        ("Vereinigte Staaten", "US"),
        ("Österreich", "AT"),
        ("Wien, Österreich", "AT"),
        ("Deutschland", "DE"),
        ("Shenzhen, China", "CN"),
        ("Chine", "CN"),
        ("Cina", "CN"),
        ("Taiwan, Province of China", "TW"),
        ("Hong Kong", "HK"),
        ("Glasgow, Scotland", "GB"),
        ("España", "ES"),
        ("Somewhere else", None),
        ("", None),
    ],
)
def test_a_location_names_one_country_in_any_language(location: str, country: str | None) -> None:
    assert country_of(location) == country


def test_every_marketplace_home_and_region_is_a_known_country() -> None:
    known = set(country_names())
    for market in marketplaces().values():
        assert set(market.home) <= known, market.code
        assert set(market.region) <= known, market.code


@pytest.mark.parametrize(
    ("marketplace", "location", "origin"),
    [
        ("EBAY_US", "US", DOMESTIC),  # 42 of 65 Browse listings were "overseas" on 93ee1e1
        ("EBAY_US", "Estados Unidos", DOMESTIC),
        ("EBAY_US", "Toronto, Canada", REGION),
        ("EBAY_US", "CN", OVERSEAS),
        ("EBAY_DE", "Österreich", REGION),
        ("EBAY_DE", "DE", DOMESTIC),
        ("EBAY_DE", "Berlin, Deutschland", DOMESTIC),
        ("EBAY_ES", "España", DOMESTIC),
        ("EBAY_IT", "Italia", DOMESTIC),
        ("EBAY_US", None, DOMESTIC),  # not said: no freight or duty is invented
    ],
)
def test_the_origin_rule_reads_the_country(
    marketplace: str, location: str | None, origin: str
) -> None:
    assert ship_origin(marketplace, location) == origin
