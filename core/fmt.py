"""How rigscout writes money and time for a person, in one place: the terminal table, the
sentences, the alerts, the report and its charts all call these.

Money: cents under 1,000 in the currency (``$101.27``, ``C$45.50``), whole units from 1,000
(``$1,128``), the symbol where one is unambiguous and the ISO code after the amount otherwise
(``1,299.00 SEK``). Amounts stay ``Decimal`` until they are written here.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import datetime

SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "CAD": "C$", "AUD": "A$"}
WHOLE_FROM = Decimal(1000)  # amounts at or above this are written without cents
CENT = Decimal("0.01")


def with_currency(amount_text: str, currency: str) -> str:
    """``"1,234"``, ``"USD"`` -> ``"$1,234"``; ``"SEK"`` -> ``"1,234 SEK"``."""
    symbol = SYMBOLS.get(currency.upper())
    if symbol is None:
        return f"{amount_text} {currency.upper()}"
    if amount_text.startswith(("-", "−")):
        return f"−{symbol}{amount_text[1:]}"
    return f"{symbol}{amount_text}"


def money(amount: Decimal, currency: str) -> str:
    """``Decimal("101.266")`` -> ``"$101.27"``; ``Decimal("1128.4")`` -> ``"$1,128"``."""
    places = Decimal(1) if abs(amount) >= WHOLE_FROM else CENT
    return with_currency(f"{amount.quantize(places, rounding=ROUND_HALF_UP):,}", currency)


def money_range(low: Decimal, high: Decimal | None, currency: str) -> str:
    """``"$125.00–$140.00"``, or one price when the two meet."""
    if high is None or money(high, currency) == money(low, currency):
        return money(low, currency)
    return f"{money(low, currency)}–{money(high, currency)}"


def unit_money(amount: float, currency: str) -> str:
    """A small ratio of money to something (per GB/s, per GB): two significant figures,
    ``$4.4``, ``$0.15``, ``$12``."""
    places = 0 if amount >= 10 else 1 if amount >= 1 else 2 if amount >= 0.1 else 3
    return with_currency(f"{amount:,.{places}f}", currency)


def time_left(end: datetime | None, now: datetime) -> str:
    """``"2d 5h"``, ``"3h 12m"``, ``"ended"``; empty when there is no end time."""
    if end is None:
        return ""
    seconds = int((end - now).total_seconds())
    if seconds <= 0:
        return "ended"
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    return f"{days}d {hours}h" if days else f"{hours}h {rest // 60}m"
