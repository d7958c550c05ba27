"""What changed: price moves per SKU over 7 and 30 days, new lows, today's best prices.

Pure functions over the loaded records. A move compares the sold median of the last ``days``
with that of the ``days`` before, each by the market's own rule (``ranking.market``: best
offers weigh less, far-off prices are left out), and needs ``min_sales`` sales kept on each
side, so one odd sale does not make a headline.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, timedelta
from typing import TYPE_CHECKING

from ranking.market import sold_median

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from datetime import date, datetime
    from decimal import Decimal

    from core.models import Deal
    from rigscout.outputs.report.records import AskingDay, SoldPoint

HORIZONS = (7, 30)
MOVES_SHOWN = 10
UNTRUSTED = "check_before_buying"  # ranking/titles/flags.toml


@dataclass(frozen=True, slots=True)
class Move:
    sku: str
    days: int
    before: Decimal  # sold median (the market's rule), the ``days`` before the last ``days``
    after: Decimal  # sold median, the last ``days``
    sales_before: int
    sales_after: int

    @property
    def change(self) -> float:
        """0.12 = 12 % dearer, -0.1 = 10 % cheaper."""
        return float(self.after / self.before - 1) if self.before > 0 else 0.0


@dataclass(frozen=True, slots=True)
class NewLow:
    """Today's best fixed price of a SKU is under every price seen in the history before."""

    sku: str
    deal: Deal
    previous_low: Decimal
    previous_day: date


def score_moves(
    sold: Sequence[SoldPoint],
    *,
    now: datetime,
    days: int,
    min_sales: int = 3,
    limit: int = MOVES_SHOWN,
) -> tuple[Move, ...]:
    """The biggest moves (either way) of the sold median per SKU over ``days``: each side's
    median is the market's own (``ranking.market.sold_median``: weighted, outliers left out)."""
    today = now.astimezone(UTC).date()
    start, middle = today - timedelta(days=2 * days), today - timedelta(days=days)
    before: dict[str, list[tuple[Decimal, Decimal]]] = {}
    after: dict[str, list[tuple[Decimal, Decimal]]] = {}
    for sku, day, price, weight in sold:
        if start < day <= today:
            side = before if day <= middle else after
            sales = side.get(sku)
            if sales is None:
                side[sku] = [(price, weight)]
            else:
                sales.append((price, weight))
    moves = []
    for sku, old in before.items():
        then, now_ = sold_median(old), sold_median(after.get(sku, []))
        if then and now_ and then[1] >= min_sales and now_[1] >= min_sales and then[0] > 0:
            moves.append(Move(sku, days, then[0], now_[0], then[1], now_[1]))
    moves.sort(key=lambda m: (-abs(m.change), m.sku))
    return tuple(moves[:limit])


def score_best_prices(deals: Iterable[Deal]) -> dict[str, Deal]:
    """Each SKU's cheapest fixed-price deal today.

    A running auction's price is a prediction, and a price the ranker says to check before
    buying (far under the market: mislabelled, parts, scam) is no price to chart or to call
    a new low.
    """
    best: dict[str, Deal] = {}
    for deal in deals:
        if deal.price_basis != "fixed" or any(f.code == UNTRUSTED for f in deal.flags):
            continue
        was = best.get(deal.sku)
        if was is None or deal.landed_unit_price < was.landed_unit_price:
            best[deal.sku] = deal
    return best


def score_new_lows(
    best: Mapping[str, Deal],
    sold: Sequence[SoldPoint],
    asking: Sequence[AskingDay],
    *,
    now: datetime,
) -> tuple[NewLow, ...]:
    """SKUs whose best price today is under every sold and asking price before today."""
    today = now.astimezone(UTC).date()
    lows: dict[str, tuple[Decimal, date]] = {}
    history = [(p.sku, p.price, p.day) for p in sold]
    history += [(a.sku, a.low, a.day) for a in asking]
    for sku, price, day in history:
        if day < today and (sku not in lows or price < lows[sku][0]):
            lows[sku] = (price, day)
    found = [
        NewLow(sku, deal, *lows[sku])
        for sku, deal in best.items()
        if sku in lows and deal.landed_unit_price < lows[sku][0]
    ]
    found.sort(key=lambda n: (float(n.deal.landed_unit_price / n.previous_low), n.sku))
    return tuple(found)
