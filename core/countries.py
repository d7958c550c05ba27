"""Which country a listing's location names, whatever language or form eBay gives it in.

A search page says "from Shenzhen, China", "aus Österreich" or "Estados Unidos"; the Browse
API gives an ISO code ("US"); a US seller's location is "City, ST". All of them map to one ISO
3166-1 code through ``countries.toml``, so the origin rule (``ranking/titles/origin.py``) and the
marketplaces' ``home`` and ``region`` speak of countries, not of spellings. Pure: text in, a
code (or None) out.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache, lru_cache
from importlib.resources import files

from core.text import match_form

# the two-letter abbreviations of US states and territories, as eBay US shows "City, ST"
_US_STATES = frozenset({
    "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "DC", "FL", "GA", "HI", "ID", "IL", "IN", "IA",
    "KS", "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO", "MT", "NE", "NV", "NH", "NJ", "NM",
    "NY", "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA",
    "WV", "WI", "WY", "PR", "GU", "VI",
})  # fmt: skip
_NOT_NAME = re.compile(r"[^a-z0-9]+")


@cache
def country_names() -> dict[str, tuple[str, ...]]:
    """Every known country's ISO code with the names eBay shows for it."""
    raw = tomllib.loads(files("core").joinpath("countries.toml").read_text("utf-8"))
    return {code: tuple(names) for code, names in raw.items()}


@cache
def _by_key() -> dict[str, str]:
    """Each name as a lookup key (folded, punctuation as single spaces) -> its code."""
    keys: dict[str, str] = {}
    for code, names in country_names().items():
        for name in names:
            keys.setdefault(_key(name), code)
    return keys


def _key(text: str) -> str:
    return " ".join(_NOT_NAME.split(match_form(text).casefold())).strip()


@lru_cache(maxsize=4096)  # a day's listings ship from a few hundred distinct places
def country_of(location: str | None) -> str | None:
    """The ISO code of the country ``location`` names, or None when it names none we know.

    >>> [country_of(p) for p in ("US", "Shenzhen, China", "Wien, Österreich", "Austin, TX")]
    ['US', 'CN', 'AT', 'US']
    """
    text = match_form(location or "")
    if not text:
        return None
    codes = country_names()
    if len(text) == 2 and text.isalpha() and text.isupper():
        return text if text in codes else ("GB" if text == "UK" else None)
    parts = [p.strip() for p in text.split(",") if p.strip()]
    by_key = _by_key()
    for part in reversed(parts):
        found = by_key.get(_key(part))
        if found:
            return found
    if len(parts) > 1 and parts[-1].upper() in _US_STATES and parts[-1].isupper():
        return "US"  # "San Jose, CA": a US state, not Canada
    padded = f" {_key(text)} "
    hits = [(len(key), code) for key, code in by_key.items() if f" {key} " in padded]
    return max(hits)[1] if hits else None
