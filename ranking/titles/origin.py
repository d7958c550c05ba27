"""Where a listing ships from, as freight and customs see it: home, a neighbour, or overseas.

The places are data: ``core/countries.toml`` maps every way eBay names a country (an ISO code
from the Browse API, "Germany", "Deutschland", "Estados Unidos", "City, ST") to one code, and
``core/marketplaces.toml`` gives each marketplace's ``home`` and ``region`` as codes.
``ranking/titles/flags.py`` says "ships from abroad", ``ranking/landed.py`` scales the estimated
freight by it. Pure: a marketplace code and a location string in, a word out.
"""

from __future__ import annotations

from functools import lru_cache

from core.countries import country_of
from core.marketplaces import marketplaces

DOMESTIC, REGION, OVERSEAS = "domestic", "region", "overseas"


@lru_cache(maxsize=4096)  # a day's listings ship from a few hundred distinct places
def ship_origin(marketplace: str, location: str | None) -> str:
    """ "domestic" (home, or not said), "region" (abroad but near: Canada for eBay US) or
    "overseas" (farther, or a place no country of ours is named in: dearer freight, and
    customs or import duty may apply)."""
    market = marketplaces().get(marketplace)
    if not location or not location.strip() or market is None:
        return DOMESTIC
    country = country_of(location, market.home)
    if country in market.home:
        return DOMESTIC
    return REGION if country in market.region else OVERSEAS
