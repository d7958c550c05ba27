"""Where a listing ships from, as freight and customs see it: home, a neighbour, or overseas.

The places are data (``core/marketplaces.toml``: each marketplace's ``home`` and ``region``);
``ranking/flags.py`` says "ships from abroad", ``ranking/landed.py`` scales the estimated
freight by it. Pure: a marketplace code and a location string in, a word out.
"""

from __future__ import annotations

import re
from functools import lru_cache

from core.marketplaces import marketplaces
from core.text import match_form

DOMESTIC, REGION, OVERSEAS = "domestic", "region", "overseas"
_US_STATE = re.compile(r",\s*[A-Z]{2}$")


@lru_cache(maxsize=4096)  # a day's listings ship from a few hundred distinct places
def ship_origin(marketplace: str, location: str | None) -> str:
    """ "domestic" (home, or not said), "region" (abroad but near: Canada for eBay US) or
    "overseas" (farther: dearer freight, and customs or import duty may apply)."""
    market = marketplaces().get(marketplace)
    if not location or market is None:
        return DOMESTIC
    home = tuple(name.casefold() for name in market.home)
    if not abroad(marketplace, location, home):
        return DOMESTIC
    lowered = match_form(location).casefold()
    return REGION if any(name.casefold() in lowered for name in market.region) else OVERSEAS


@lru_cache(maxsize=4096)  # a day's listings ship from a few hundred distinct places
def abroad(marketplace: str, location: str, home: tuple[str, ...]) -> bool:
    """The location names none of ``home`` (casefolded); a US "City, ST" is home."""
    location = match_form(location)
    if not location:
        return False
    if marketplace == "EBAY_US" and _US_STATE.search(location):
        return False
    lowered = location.casefold()
    return not any(name in lowered for name in home)
