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


@cache
def _regions() -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
    """``regions.toml`` as lookups: each region code -> the countries that have it (in file
    order), and each region name as a key -> its country."""
    raw = tomllib.loads(files("core").joinpath("regions.toml").read_text("utf-8"))
    codes: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    for country, table in raw.items():
        for code in table.get("codes", ()):
            codes.setdefault(code, []).append(country)
        for name in table.get("names", ()):
            names.setdefault(_key(name), country)
    return {code: tuple(owners) for code, owners in codes.items()}, names


@lru_cache(maxsize=4096)  # a day's listings ship from a few hundred distinct places
def country_of(location: str | None, home: tuple[str, ...] = ()) -> str | None:
    """The ISO code of the country ``location`` names, or None when it names none we know.

    ``home`` is the marketplace's own countries: a region code two countries share ("Milano,
    MI" on eBay Italy, "Detroit, MI" on eBay US) is read as theirs.

    >>> [country_of(p) for p in ("US", "Shenzhen, China", "Wien, Österreich", "Austin, TX")]
    ['US', 'CN', 'AT', 'US']
    >>> country_of("Milano, MI", home=("IT",)), country_of("Brooklyn, New York")
    ('IT', 'US')
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
    region = _region_of(parts, home) if parts else None
    if region:
        return region
    padded = f" {_key(text)} "
    hits = [(len(key), code) for key, code in by_key.items() if f" {key} " in padded]
    return max(hits)[1] if hits else None


def _region_of(parts: list[str], home: tuple[str, ...]) -> str | None:
    """The country of the state, province or region a location ends with: "Toronto, ON",
    "Brooklyn, New York", "München, Bayern". Only its last part: in "Victoria, Seychelles" the
    region name is a city's; and a code only after a city (alone, "CA" is Canada's ISO code)."""
    region_codes, region_names = _regions()
    last = parts[-1]
    found = region_names.get(_key(last))
    if found:
        return found
    owners = region_codes.get(last) if len(parts) > 1 and last.isupper() else None
    return next((code for code in owners if code in home), owners[0]) if owners else None
