"""Price and shipping text as eBay prints it, turned into Decimal amounts with a currency.

Handles ranges ("$10.44 to $15.96", "EUR 17,72 bis EUR 18,66"), currency prefixes and suffixes,
decimal commas and the thin/no-break spaces eBay puts between symbol and number. Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal

from core.errors import ParseError
from scraper.wording import wording

_SPACES = re.compile(r"[\s\u00a0\u2009\u202f\u2007]+")
# The signs eBay prints for a currency; an ISO 4217 code ("USD", "JPY", "IDR") is read as
# itself. Longest first, so "US $" wins over "$". A bare "$" is the marketplace's dollar.
_SYMBOLS: dict[str, str | None] = {
    "US $": "USD",
    "C $": "CAD",
    "CA $": "CAD",
    "AU $": "AUD",
    "A $": "AUD",
    "NZ $": "NZD",
    "HK $": "HKD",
    "MX $": "MXN",
    "R$": "BRL",
    "S/.": "PEN",
    "S/": "PEN",
    "Rp": "IDR",
    "$": None,
    "£": "GBP",
    "€": "EUR",
    "¥": "JPY",
    "￥": "JPY",
    "円": "JPY",
    "zł": "PLN",
    "Kč": "CZK",
    "₹": "INR",
}
_SIGN = "|".join(re.escape(sign) for sign in sorted(_SYMBOLS, key=len, reverse=True))
_NUMBER = re.compile(r"\d{1,3}(?:[.,' ]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?")
_AMOUNT = re.compile(
    rf"(?P<pre>{_SIGN}|[A-Z]{{3}})?\s?(?P<num>\d[\d.,' ]*\d|\d)\s?(?P<post>{_SIGN}|[A-Z]{{3}})?"
)


@dataclass(frozen=True, slots=True)
class Price:
    """A listing price; ``high`` is set only when eBay shows a range (variations)."""

    low: Decimal
    high: Decimal | None
    currency: str


@dataclass(frozen=True, slots=True)
class Shipping:
    """Shipping cost: ``amount`` 0 for free, None when unknown, with eBay's wording in ``note``."""

    amount: Decimal | None
    note: str | None


def clean_text(text: str) -> str:
    """Collapse every kind of whitespace (nbsp, thin space, newlines) to single spaces."""
    return _SPACES.sub(" ", text).strip()


def parse_price(text: str, *, dollar: str = "USD") -> Price:
    """Read "US $1,234.56", "£4.49 to £8.49" or "1.234,56 €"; a bare "$" means ``dollar``.

    Raises ParseError for anything that is not a price: never a silent zero.
    """
    cleaned = clean_text(text)
    parts = wording().range.split(cleaned, maxsplit=1)
    low_amount, low_cur = _parse_amount(parts[0], dollar, text)
    if len(parts) == 1:
        return Price(low_amount, None, low_cur)
    high_amount, high_cur = _parse_amount(parts[1], dollar, text)
    if high_cur != low_cur or high_amount < low_amount:
        raise ParseError(f"inconsistent price range {text!r}")
    return Price(low_amount, high_amount, low_cur)


def _parse_amount(part: str, dollar: str, original: str) -> tuple[Decimal, str]:
    match = _AMOUNT.fullmatch(part.strip())
    if match is None:
        raise ParseError(f"not a price: {original!r}")
    symbol = match["pre"] or match["post"]
    if symbol is None:
        raise ParseError(f"price without a currency: {original!r}")
    return _to_decimal(match["num"], original), _currency(symbol, dollar)


def _currency(symbol: str, dollar: str) -> str:
    if symbol in _SYMBOLS:
        return _SYMBOLS[symbol] or dollar
    return symbol  # an ISO 4217 code


def _to_decimal(number: str, original: str) -> Decimal:
    """'1,234.56', '1.234,56', '17,72', '1 234,56' -> Decimal; the last separator followed
    by one or two digits is the decimal point, every other separator groups thousands."""
    if _NUMBER.fullmatch(number) is None:
        raise ParseError(f"not a number in price {original!r}")
    decimal_sep = re.search(r"[.,](\d{1,2})$", number)
    if decimal_sep:
        whole, frac = number[: decimal_sep.start()], decimal_sep.group(1)
    else:
        whole, frac = number, ""
    digits = re.sub(r"[.,' ]", "", whole)
    return Decimal(f"{digits}.{frac}" if frac else digits).quantize(Decimal("0.01"))


_SHIPPING_AMOUNT = re.compile(
    rf"(?:{_SIGN}|\b[A-Z]{{3}})\s?\d(?:[\d.,]*\d)?|\d(?:[\d.,]*\d)?\s?(?:{_SIGN}|[A-Z]{{3}}\b)"
)


def parse_shipping(text: str, currency: str, *, dollar: str = "USD") -> Shipping:
    """Read "Free delivery", "+$12.50 shipping", "+ £5.49 postage", "+EUR 5,99 Versand";
    freight, local pickup and "not specified" give an unknown amount with a note."""
    cleaned = clean_text(text)
    words = wording()
    for pattern, note in words.unknown:
        if pattern.search(cleaned):
            return Shipping(None, note)
    amount_text = _SHIPPING_AMOUNT.search(cleaned)
    if amount_text is None:
        if words.free.search(cleaned):
            return Shipping(Decimal("0.00"), None)
        raise ParseError(f"unreadable shipping text {text!r}")
    price = parse_price(amount_text.group(0), dollar=dollar)
    if price.currency != currency:
        raise ParseError(f"shipping {text!r} is not in the price currency {currency}")
    return Shipping(price.low, "estimate" if words.estimate.search(cleaned) else None)
