"""The European Central Bank's daily euro reference rates: fetched and read.

``parse_ecb_rates`` is pure (the XML text in, a dated table out); ``rates_in`` re-bases the
euro table on the buyer's currency, in the ``[rank.fx]`` sense: units of that currency per
unit of each other one. ``fetch_ecb_rates`` is the one network call (``rigscout fx update``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import ROUND_HALF_EVEN, Context, Decimal, InvalidOperation
from typing import TYPE_CHECKING
from xml.etree import ElementTree

import httpx

from core.deadline import fetch_within, text_of
from core.errors import FetchError, ParseError

if TYPE_CHECKING:
    from collections.abc import Mapping

ECB_DAILY = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"
MAX_BYTES = 1_000_000  # the real file is about 1.5 kB
SECONDS = 30.0  # for the whole exchange
DIGITS = Context(prec=6, rounding=ROUND_HALF_EVEN)  # significant digits of a written rate
ISO_CODE = re.compile(r"[A-Z]{3}")
# Per euro, the rates the ECB quotes run from about 0.3 (KWD) to 28,000 (VND): far outside
# these, the file is not what it says.
SANE_PER_EURO = (Decimal("0.001"), Decimal("1000000"))
MAX_AGE = timedelta(days=10)  # the ECB publishes every working day; holidays skip a few
MAX_MOVE = Decimal(2)  # a rate more than halved or doubled since the last file is refused


@dataclass(frozen=True, slots=True)
class EcbRates:
    """Units of each currency per euro, as of ``day``."""

    day: date
    per_euro: Mapping[str, Decimal]


def parse_ecb_rates(text: str) -> EcbRates:
    """The ECB's ``eurofxref-daily.xml``; anything else is a ``ParseError`` saying why."""
    if len(text) > MAX_BYTES:
        raise ParseError(f"not the ECB's daily rates: {len(text):,} bytes")
    try:
        root = ElementTree.fromstring(text)  # noqa: S314  (size-capped; no entities expanded)
    except ElementTree.ParseError as exc:
        raise ParseError(f"not the ECB's daily rates: {exc}") from None
    days = [c for c in root.iter() if c.tag.endswith("Cube") and c.get("time")]
    if len(days) != 1:
        raise ParseError("not the ECB's daily rates: expected one dated <Cube time=…>")
    try:
        day = date.fromisoformat(str(days[0].get("time")))
        per_euro = {
            str(c.get("currency")).upper(): Decimal(str(c.get("rate")))
            for c in days[0]
            if c.get("currency")
        }
    except (ValueError, InvalidOperation) as exc:
        raise ParseError(f"not the ECB's daily rates: {exc}") from None
    if not per_euro or any(not r.is_finite() or r <= 0 for r in per_euro.values()):
        raise ParseError("not the ECB's daily rates: no positive rates")
    odd = sorted(code for code in per_euro if not ISO_CODE.fullmatch(code))
    if odd:
        raise ParseError(f"not the ECB's daily rates: {odd[0]!r} is not a currency code")
    low, high = SANE_PER_EURO
    wild = sorted(code for code, rate in per_euro.items() if not low <= rate <= high)
    if wild:
        raise ParseError(f"not the ECB's daily rates: {wild[0]} at {per_euro[wild[0]]} per euro")
    return EcbRates(day, {"EUR": Decimal(1), **per_euro})


def check_rates(
    rates: EcbRates, *, today: date, previous: Mapping[str, Decimal] | None = None
) -> None:
    """A ``ParseError`` for rates not to be written: dated in the future or more than
    ``MAX_AGE`` ago, or a currency more than halved or doubled against ``previous`` (the
    rates last written, in the same currency)."""
    if rates.day > today + timedelta(days=1):
        raise ParseError(f"the ECB's rates are dated {rates.day}, after today ({today})")
    if rates.day < today - MAX_AGE:
        age = (today - rates.day).days
        raise ParseError(f"the ECB's rates are dated {rates.day}, {age} days old: not today's")
    if previous:
        mine = rates_in(rates, _base(previous))
        moved = sorted(
            code
            for code, rate in mine.items()
            if (before := previous.get(code)) and not before / MAX_MOVE <= rate <= before * MAX_MOVE
        )
        if moved:
            code = moved[0]
            raise ParseError(
                f"{code} moved from {previous[code]} to {mine[code]} since the last rates: "
                "more than halved or doubled; the file is left as it was"
            )


def _base(table: Mapping[str, Decimal]) -> str:
    return next((code for code, rate in table.items() if rate == 1), "EUR")


def rates_in(rates: EcbRates, currency: str) -> dict[str, Decimal]:
    """Units of ``currency`` per unit of each currency the ECB quotes (``currency`` is 1)."""
    mine = rates.per_euro.get(currency.upper())
    if mine is None:
        quoted = ", ".join(sorted(rates.per_euro))
        raise ParseError(f"the ECB does not quote {currency.upper()} (it quotes {quoted})")
    table = {code: DIGITS.divide(mine, per_euro) for code, per_euro in rates.per_euro.items()}
    table[currency.upper()] = Decimal(1)
    return dict(sorted(table.items()))


def fetch_ecb_rates(client: httpx.Client, url: str = ECB_DAILY) -> EcbRates:
    """Download and read the daily rates; a ``FetchError`` when they cannot be had (within
    ``SECONDS`` for the whole exchange, ``MAX_BYTES`` at most, redirects on the same site)."""
    try:
        response = fetch_within(client, "GET", url, seconds=SECONDS, max_bytes=MAX_BYTES)
    except httpx.HTTPError as exc:
        raise FetchError(f"cannot fetch the ECB's rates from {url}: {type(exc).__name__}") from None
    if response.status_code != 200:
        raise FetchError(f"cannot fetch the ECB's rates from {url}: HTTP {response.status_code}")
    return parse_ecb_rates(text_of(response))
