"""How the report writes money, shares, dates and times left: small pure functions, used as
Jinja2 filters and by the charts."""

from __future__ import annotations

from datetime import UTC
from decimal import Decimal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import date, datetime, timedelta

SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "CAD": "C$", "AUD": "A$"}


def format_money(amount: Decimal | float | None, currency: str) -> str:
    """``Decimal("1234.5"), "USD"`` -> ``"$1,234.50"``; whole amounts over 1,000 drop cents."""
    if amount is None:
        return "–"
    value = Decimal(str(amount))
    text = f"{value:,.0f}" if abs(value) >= 1000 else f"{value:,.2f}"
    symbol = SYMBOLS.get(currency.upper())
    return f"{symbol}{text}" if symbol else f"{text} {currency}"


def format_share(share: float | None, *, signed: bool = False) -> str:
    """``0.231`` -> ``"23 %"``; signed: ``"+23 %"`` / ``"−23 %"``."""
    if share is None:
        return "–"
    pct = round(share * 100)
    if not signed:
        return f"{pct} %"
    sign = "+" if pct > 0 else ("−" if pct < 0 else "±")
    return f"{sign}{abs(pct)} %"


def format_day(day: date | datetime | None) -> str:
    if day is None:
        return "–"
    return f"{day:%Y-%m-%d}"


def format_time(moment: datetime | None) -> str:
    """A UTC time as ``2026-11-25 06:00 UTC``."""
    if moment is None:
        return "–"
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def format_duration(span: timedelta | None) -> str:
    if span is None:
        return "–"
    seconds = int(span.total_seconds())
    minutes, seconds = divmod(seconds, 60)
    return f"{minutes}m {seconds}s" if minutes else f"{seconds}s"
