"""Market baseline per SKU: the weighted median of landed unit prices of recent sales.

A best-offer-accepted sale only shows the asking price (an upper bound of what was paid) and a
presumed sale is a watched listing that ended: each weighs ``0.5`` (both: ``0.25``). With fewer
than ``RankSettings.min_sales`` sales in ``window_days`` the baseline is the median asking price
of active fixed-price listings (``source == "active"``). The figures are computed in SQL
(``db/rank_queries.py``); ``weighted_median`` is the same rule in Python.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from db.rank_queries import BaselineRow, MarketQuery, load_baselines
from ranking.landed import fx_rate

if TYPE_CHECKING:
    from collections.abc import Iterable
    from datetime import datetime

    from sqlalchemy.orm import Session

    from rigscout.config import RankSettings

UPPER_BOUND_WEIGHT = Decimal("0.5")
PRESUMED_WEIGHT = Decimal("0.5")


def sale_weight(*, best_offer_accepted: bool, source: str) -> Decimal:
    """How much one sale counts toward the median."""
    weight = Decimal(1)
    if best_offer_accepted:
        weight *= UPPER_BOUND_WEIGHT
    if source == "presumed":
        weight *= PRESUMED_WEIGHT
    return weight


def weighted_median(points: Iterable[tuple[Decimal, Decimal]]) -> Decimal | None:
    """Mean of the lower and upper weighted medians of (price, weight) points; None when empty.

    With equal weights this is the ordinary median: [100, 200] gives 150.
    """
    ordered = sorted(points)
    total = sum((w for _, w in ordered), Decimal(0))
    if not ordered or total <= 0:
        return None
    running = Decimal(0)
    cumulative = []
    for price, weight in ordered:
        running += weight
        cumulative.append((running, price))
    lower = next(p for c, p in cumulative if c >= total / 2)
    upper = next(p for c, p in cumulative if c > total / 2)
    return (lower + upper) / 2


def market_query(settings: RankSettings, now: datetime) -> MarketQuery:
    """The baseline parameters from the settings; currencies without a usable rate are left out."""
    rates = {settings.currency.upper(): Decimal(1)}
    for currency in settings.fx_rates:
        rate = fx_rate(currency, settings)
        if rate is not None:
            rates[currency.upper()] = rate
    return MarketQuery(
        now=now,
        fx_rates=rates,
        window_days=settings.window_days,
        min_sales=settings.min_sales,
        upper_bound_weight=UPPER_BOUND_WEIGHT,
        presumed_weight=PRESUMED_WEIGHT,
    )


def load_market(session: Session, settings: RankSettings, now: datetime) -> dict[str, BaselineRow]:
    """Every SKU's baseline as of ``now``, computed in the database."""
    return load_baselines(session, market_query(settings, now))
