"""Market reference per SKU: a robust weighted median of recent landed prices, and its evidence.

Sales in the last ``window_days`` come first. A best-offer-accepted sale only shows the asking
price (an upper bound of what was paid) and a presumed sale is a watched listing that ended:
each weighs 0.5 (both: 0.25). Prices far from the rest (more than three scaled median absolute
deviations of log price, and at least 35 % off the median) are left out and counted, so a few
$1,000 sales among $700 ones do not lift the reference.

The strength of the reference is its evidence tier:

- ``strong``: at least ``strong_sales`` sales (default 8) with an interquartile spread no wider
  than half the median;
- ``thin``: at least ``min_sales`` sales (default 3), or more sales spread too widely;
- ``pooled``: a server's chassis from its family's sales (``ranking/market/servers.py``);
- ``asking``: too few sales, but at least ``min_sales`` active fixed-price asking prices;
- ``none``: neither: no reference, no discount.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, replace
from datetime import date, timedelta
from decimal import Decimal
from itertools import accumulate
from operator import itemgetter
from typing import TYPE_CHECKING

from ranking.landed import landed_unit_price

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from datetime import datetime

    from core.settings import RankSettings
    from ranking.rows import SoldRow

UPPER_BOUND_WEIGHT = Decimal("0.5")
PRESUMED_WEIGHT = Decimal("0.5")
OUTLIER_MADS = 3.0
OUTLIER_MIN_RATIO = 1.35  # never drop a price within 35 % of the median
_FEWEST_JUDGED = 5  # fewer sales than this are too few to call one of them far off
MAX_STRONG_SPREAD = 0.5  # interquartile range over median
# Fewer sold prices than this tell a median but not how widely prices spread: the auction
# model then reads the market as one whose spread is unknown, with a wider range.
SPREAD_MIN_SALES = 8
_HALF, _QUARTER, _THREE_QUARTERS = Decimal("0.5"), Decimal("0.25"), Decimal("0.75")
# Points are ordered by price alone: the weights of equal prices add up to the same running
# weight whatever their order, so each quantile is the same price (and one comparison of
# Decimals per pair, not two).
_price = itemgetter(0)
EVIDENCE_WEIGHT = {"strong": 1.0, "thin": 0.5, "pooled": 0.35, "asking": 0.25, "none": 0.0}


@dataclass(frozen=True, slots=True)
class SalesDays:
    """The days of sales a market made on a day reads: ``first`` up to the day before ``end``
    (``sales_days``)."""

    first: date
    end: date  # the day the market is made: its own sales are not read

    def __contains__(self, day: object) -> bool:
        return isinstance(day, date) and self.first <= day < self.end


def sales_days(today: date, days: int) -> SalesDays:
    """The ``days`` days before ``today``, whose sales make today's markets.

    A day's sales wait for the next day, as the auction model's do
    (``rigscout.jobs.deals.current_auction_model``): the references stand all day, so every
    ranking and alert of the day judges a price against the same market, and an auction that
    ends during the day (a fast-lane pass closes it as presumed sold) moves no market, and no
    price with it, until tomorrow. A sold page's sales of the days before count at once.
    """
    return SalesDays(today - timedelta(days=days), today)


@dataclass(frozen=True, slots=True)
class Market:
    """One SKU's reference price (landed unit price in the user's currency) and its strength."""

    sku: str
    median: Decimal
    q1: Decimal
    q3: Decimal
    count: int  # prices used
    evidence: str  # "strong", "thin" or "asking"
    source: str  # "sold" or "asking"
    window_days: int = 30
    outliers: int = 0  # prices left out as far from the rest
    upper_bound_count: int = 0  # best-offer sales among ``count``
    presumed_count: int = 0  # presumed sales among ``count``
    # an asking market's prices (all of them, outliers too), so a listing's own can be taken
    # out of its own reference (``without_own``)
    asks: tuple[Decimal, ...] = ()

    @property
    def spread(self) -> float:
        """Interquartile range as a share of the median (0.2 = quartiles 20 % apart)."""
        return float((self.q3 - self.q1) / self.median) if self.median > 0 else 0.0

    @property
    def known_spread(self) -> float | None:
        """The spread, when enough sales show it (``SPREAD_MIN_SALES``); None for a thin or
        asking market."""
        if self.source != "sold" or self.count < SPREAD_MIN_SALES:
            return None
        return self.spread

    @property
    def weight(self) -> float:
        """How much a discount against this reference counts in the score (0..1)."""
        return EVIDENCE_WEIGHT[self.evidence]


@dataclass(frozen=True, slots=True)
class SalePoint:
    """One price as market evidence: landed unit price, weight and what kind of sale it was."""

    price: Decimal
    weight: Decimal
    upper_bound: bool = False
    presumed: bool = False


def sale_weight(*, best_offer_accepted: bool, source: str) -> Decimal:
    """How much one sale counts toward the median."""
    weight = Decimal(1)
    if best_offer_accepted:
        weight *= UPPER_BOUND_WEIGHT
    if source == "presumed":
        weight *= PRESUMED_WEIGHT
    return weight


def sold_median(sales: Iterable[tuple[Decimal, Decimal]]) -> tuple[Decimal, int] | None:
    """The market's rule on any set of (landed price, weight) sales: the weighted median after
    prices far from the rest are dropped, and how many sales it kept; None when none is left.
    The report's price moves use it, so a move compares medians the ranking would compute."""
    kept = list(sales)
    if len(kept) >= _FEWEST_JUDGED:
        logs = [(math.log(price), float(weight)) for price, weight in kept]
        center, limit = _log_bounds(logs)
        kept = [sale for sale, (x, _) in zip(kept, logs, strict=True) if abs(x - center) <= limit]
    median = weighted_median(kept)
    return None if median is None else (median.quantize(Decimal("0.01")), len(kept))


def weighted_median(points: Iterable[tuple[Decimal, Decimal]]) -> Decimal | None:
    """Mean of the lower and upper weighted medians of (price, weight) points; None when empty.

    With equal weights this is the ordinary median: [100, 200] gives 150.
    """
    ordered = sorted(points, key=_price)
    return _median_of(ordered, _running(ordered))


def _running(ordered: Sequence[tuple[Decimal, Decimal]]) -> list[Decimal]:
    """The running total of the points' weights (never falling: weights are not negative)."""
    return list(accumulate([w for _, w in ordered]))


def _median_of(
    ordered: Sequence[tuple[Decimal, Decimal]], running: Sequence[Decimal]
) -> Decimal | None:
    """``weighted_median`` of points already in order, with their running weights."""
    if not ordered or running[-1] <= 0:
        return None
    return (
        _quantile(ordered, running, _HALF, strict=False)
        + _quantile(ordered, running, _HALF, strict=True)
    ) / 2


def sold_markets(
    sales: Iterable[SoldRow], settings: RankSettings, *, now: datetime
) -> dict[str, Market]:
    """The SKUs' markets made by their sales in the window as of ``now`` (those with too few
    are left out; sales in a currency without an FX rate too). ``with_asking`` adds the asking
    markets of the others."""
    within = sales_days(now.date(), settings.window_days)
    sold: dict[str, list[SalePoint]] = {}
    for sale in sales:
        if not sale.own_market:
            continue
        if sale.sold_date in within and (point := sale_point(sale, settings)) is not None:
            sold.setdefault(sale.sku, []).append(point)
    markets: dict[str, Market] = {}
    for sku, points in sold.items():
        market = sold_market(sku, points, settings)
        if market is not None:
            markets[sku] = market
    return markets


def with_asking(
    sold: Mapping[str, Market], asking: Mapping[str, Sequence[Decimal]], settings: RankSettings
) -> dict[str, Market]:
    """``sold`` (``sold_markets``), and an asking market for each SKU without a sold one.

    ``asking`` holds each SKU's landed unit prices of active fixed-price listings (user's
    currency)."""
    markets = dict(sold)
    for sku, prices in asking.items():
        if sku not in markets:
            market = _market(sku, [SalePoint(p, Decimal(1)) for p in prices], "asking", settings)
            if market is not None:
                markets[sku] = market
    return markets


def without_own(market: Market, price: Decimal, settings: RankSettings) -> Market | None:
    """An asking market as a listing asking ``price`` sees it: its own price taken out (None:
    too few others to make one). A sold market is returned as it is."""
    if market.source != "asking" or price not in market.asks:
        return market
    others = list(market.asks)
    others.remove(price)
    return _market(market.sku, [SalePoint(p, Decimal(1)) for p in others], "asking", settings)


def sale_point(sale: SoldRow, settings: RankSettings) -> SalePoint | None:
    """A sale as market evidence: its landed unit price and weight (None: unusable)."""
    if sale.price <= 0 or sale.quantity <= 0:
        return None
    landed = landed_unit_price(sale.price, sale.shipping, sale.quantity, sale.currency, settings)
    if landed is None:
        return None
    return SalePoint(
        landed.unit_price,
        sale_weight(best_offer_accepted=sale.best_offer_accepted, source=sale.source),
        upper_bound=sale.best_offer_accepted,
        presumed=sale.source == "presumed",
    )


def sold_market(sku: str, points: list[SalePoint], settings: RankSettings) -> Market | None:
    """The market one SKU's sales in the window make (None: too few)."""
    return _market(sku, points, "sold", settings)


def _market(
    sku: str, points: list[SalePoint], source: str, settings: RankSettings
) -> Market | None:
    kept = _without_outliers(points)
    if len(kept) < settings.min_sales:
        return None
    ordered = sorted([(p.price, p.weight) for p in kept], key=_price)
    running = _running(ordered)
    median = _median_of(ordered, running)
    if median is None or median <= 0:
        return None
    q1 = _quantile(ordered, running, _QUARTER, strict=False)
    q3 = _quantile(ordered, running, _THREE_QUARTERS, strict=False)
    market = Market(
        sku=sku,
        median=median.quantize(Decimal("0.01")),
        q1=q1,
        q3=q3,
        count=len(kept),
        evidence="asking",
        source=source,
        window_days=settings.window_days,
        outliers=len(points) - len(kept),
        upper_bound_count=sum(p.upper_bound for p in kept),
        presumed_count=sum(p.presumed for p in kept),
    )
    if source == "asking":
        return replace(market, asks=tuple(sorted(p.price for p in points)))
    strong = len(kept) >= settings.strong_sales and market.spread <= MAX_STRONG_SPREAD
    return replace(market, evidence="strong" if strong else "thin")


def _without_outliers(points: list[SalePoint]) -> list[SalePoint]:
    """Drop prices far from the rest on a log scale (robust: median and MAD, not mean and SD).

    On floats: the logs are floats already, and the weights (1, a half, a quarter:
    ``sale_weight``) and their sums are exact in binary, so the medians are those of the
    Decimals but for the last bit of a midpoint; prices are kept or dropped, never changed."""
    if len(points) < _FEWEST_JUDGED:
        return points
    logs = [(math.log(p.price), float(p.weight)) for p in points]
    center, limit = _log_bounds(logs)
    return [p for p, (x, _) in zip(points, logs, strict=True) if abs(x - center) <= limit]


def _log_bounds(logs: list[tuple[float, float]]) -> tuple[float, float]:
    """The center of (log price, weight) points and how far from it a price is kept."""
    center = _float_median(logs)
    mad = _float_median([(abs(x - center), w) for x, w in logs])
    return center, max(OUTLIER_MADS * 1.4826 * mad, math.log(OUTLIER_MIN_RATIO))


def _float_median(points: list[tuple[float, float]]) -> float:
    """``weighted_median`` of float (value, weight) points with a positive total weight."""
    ordered = sorted(points, key=_price)
    running = list(accumulate([w for _, w in ordered]))
    half, last = running[-1] / 2, len(ordered) - 1
    low = ordered[min(bisect_left(running, half), last)][0]
    high = ordered[min(bisect_right(running, half), last)][0]
    return (low + high) / 2


def _quantile(
    ordered: Sequence[tuple[Decimal, Decimal]],
    running: Sequence[Decimal],
    q: Decimal,
    *,
    strict: bool,
) -> Decimal:
    """The first price whose running weight reaches (``strict``: passes) ``q`` of the total."""
    target = running[-1] * q
    at = bisect_right(running, target) if strict else bisect_left(running, target)
    return ordered[min(at, len(ordered) - 1)][0]
