"""What eBay's result pages say, in every language of ``wording.toml``, as the patterns the
page reader matches: one union per fact, so a page is read whatever language eBay chose to
show it in. Pure data in, compiled patterns out, built once."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from typing import Any


@dataclass(frozen=True, slots=True)
class Wording:
    badges: re.Pattern[str]  # before a title
    screen_reader: re.Pattern[str]  # after a title
    shipping_row: re.Pattern[str]
    free: re.Pattern[str]
    unknown: tuple[tuple[re.Pattern[str], str], ...]  # shipping with no amount, and why
    estimate: re.Pattern[str]
    range: re.Pattern[str]  # between the two ends of a price range
    bids: re.Pattern[str]
    best_offer: re.Pattern[str]
    offer_accepted: re.Pattern[str]
    auction: re.Pattern[str]
    left: tuple[re.Pattern[str], ...]  # an auction's time left (group "span")
    units: dict[str, int]  # time-left unit (lower case) -> seconds
    unit: re.Pattern[str]  # one number and its unit within a span
    sold: re.Pattern[str]  # a sold or ended caption (group "when")
    months: dict[str, int]  # month abbreviation (lower case) -> 1..12
    positive: re.Pattern[str]  # a seller's percentage and feedback count
    feedback_scales: dict[str, int]  # a rounded count's suffix (lower case) -> its multiple
    located: re.Pattern[str]  # where an item ships from (group "place")


def _alts(words: list[str]) -> str:
    """Longest first, so "or Best Offer" wins over a shorter word it contains."""
    return "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))


@cache
def wording() -> Wording:
    """The patterns of every language in ``scraper/wording.toml``."""
    raw: dict[str, dict[str, Any]] = tomllib.loads(
        files("scraper").joinpath("wording.toml").read_text("utf-8")
    )

    def every(key: str) -> str:
        return _alts([w for language in raw.values() for w in language[key]])

    units = {k.lower(): int(v) for language in raw.values() for k, v in language["units"].items()}
    unit_alts = _alts(list(units))
    span = rf"(?P<span>(?:\d+\s*(?:{unit_alts})\.?\s*)+)"
    months = {
        spelling.lower(): number
        for language in raw.values()
        for number, names in enumerate(language["months"], start=1)
        for spelling in names.split("|")
    }
    scales = {
        k.lower(): int(v)
        for language in raw.values()
        for k, v in language["feedback_scales"].items()
    }
    i = re.IGNORECASE
    return Wording(
        badges=re.compile(rf"^(?:{every('badges')})\s*", i),
        screen_reader=re.compile(rf"\s*(?:{every('screen_reader')})\s*$", i),
        shipping_row=re.compile(every("shipping"), i),
        free=re.compile(rf"\b(?:{every('free')})\b", i),
        unknown=(
            (re.compile(every("not_specified"), i), "not specified"),
            (re.compile(every("freight"), i), "freight"),
            (re.compile(every("pickup"), i), "local pickup"),
        ),
        estimate=re.compile(rf"(?:^|\W)(?:{every('estimate')})", i),
        range=re.compile(rf"\s+(?:{every('range')}|-|–)\s+", i),
        bids=re.compile(rf"^(\d[\d,.]*)\s+(?:{every('bids')})\b", i),
        best_offer=re.compile(rf"(?:^|\b)(?:{every('best_offer')})\b", i),
        offer_accepted=re.compile(every("offer_accepted"), i),
        auction=re.compile(rf"^(?:{every('auction')})$", i),
        left=(
            re.compile(rf"{span}(?:{every('left_suffix')})$", i),
            re.compile(rf"(?:^|\W\s)(?:{every('left_prefix')})\s+{span}", i),
        ),
        units=units,
        unit=re.compile(rf"(\d+)\s*({unit_alts})", i),
        sold=re.compile(rf"^(?:{every('sold')}|{every('ended')})\b:?\s*(?P<when>.+)$", i),
        months=months,
        positive=re.compile(
            r"^(?P<name>\S+)\s+(?P<pct>\d{1,3}(?:[.,]\d)?)\s?%\s?"
            rf"(?:[^\d()%]{{0,40}}?)(?:{every('positive')})"
            rf"(?:[^\d()%]{{0,24}}?\((?P<fb>\d[\d.,]*\s?(?:{_alts(list(scales))})?)\))?",
            i,
        ),
        located=re.compile(rf"^(?:{every('located')})\s+(?P<place>.+)$", i),
        feedback_scales=scales,
    )
