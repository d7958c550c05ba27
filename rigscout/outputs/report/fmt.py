"""How the report writes money, shares, dates and times left: small pure functions, used as
Jinja2 filters and by the charts."""

from __future__ import annotations

from datetime import UTC
from decimal import Decimal
from typing import TYPE_CHECKING

from core import fmt

if TYPE_CHECKING:
    from datetime import date, datetime, timedelta


def format_money(amount: Decimal | float | None, currency: str) -> str:
    """``core.fmt.money`` as a template filter: "–" for no amount."""
    if amount is None:
        return "–"
    return fmt.money(Decimal(str(amount)), currency)


def format_money_range(low: Decimal | float, high: Decimal | float | None, currency: str) -> str:
    """``core.fmt.money_range`` as a template filter: one price when the two ends meet."""
    top = Decimal(str(high)) if high is not None else None
    return fmt.money_range(Decimal(str(low)), top, currency)


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
