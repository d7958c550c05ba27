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
        (", ,", None),
        ("", None),
    ],
)
def test_a_location_names_one_country_in_any_language(location: str, country: str | None) -> None:
    assert country_of(location) == country


@pytest.mark.parametrize(
    ("location", "home", "country"),
    [
        # a state, province or region named without its country
        ("Brooklyn, New York", (), "US"),
        ("Sacramento, California", (), "US"),
        ("Toronto, Ontario", (), "CA"),
        ("Montréal, Québec", (), "CA"),
        ("Calgary, AB", (), "CA"),
        ("München, Bayern", (), "DE"),
        ("Graz, Steiermark", (), "AT"),
        ("Sevilla, Andalucía", (), "ES"),
        ("Lyon, Auvergne-Rhône-Alpes", (), "FR"),
        ("Brisbane, QLD", (), "AU"),
        ("Napoli, Campania", (), "IT"),
        ("Torino, TO", (), "IT"),  # only Italy has TO
        # a code two countries have is the marketplace's own country's
        ("Milano, MI", ("IT",), "IT"),
        ("Detroit, MI", ("US",), "US"),
        ("Cagliari, CA", ("IT",), "IT"),
        ("Perth, WA", ("AU",), "AU"),
        ("Seattle, WA", ("US",), "US"),
        # a named country still wins over any region word
        ("Victoria, Seychelles", (), None),
        ("Washington, United Kingdom", (), "GB"),
    ],
)
def test_a_region_without_its_country_is_read_as_its_country(
    location: str, home: tuple[str, ...], country: str | None
) -> None:
    assert country_of(location, home) == country


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
        ("EBAY_US", "Brooklyn, New York", DOMESTIC),  # a state, not an unknown place
        ("EBAY_US", "Vancouver, BC", REGION),
        ("EBAY_IT", "Milano, MI", DOMESTIC),  # the province of Milan, not Michigan
        ("EBAY_IT", "Detroit, Michigan", OVERSEAS),
        ("EBAY_DE", "Linz, Oberösterreich", REGION),
    ],
)
def test_the_origin_rule_reads_the_country(
    marketplace: str, location: str | None, origin: str
) -> None:
    assert ship_origin(marketplace, location) == origin
