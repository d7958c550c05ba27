"""A running auction's likely final price, learned from auctions watched to their end.

The model learns ``final / current bid`` in buckets of time left × bids so far (the 10th, 50th
and 90th percentiles: low, mid, high; between two buckets' middles drawn from one to the other,
in steps of a quarter doubling of the time left) and, per time left × how tight the SKU's
market is, how far toward the market median the end moves (a weight between 0 "the bid says
it all" and 1 "the market does": a tight market of identical cards is worth more than a wide
one). A bucket with few watched auctions is shrunk toward the prior with the weight of
``STRENGTH`` examples
(``auction_prior.toml``: the same model learned from 628 real eBay auctions, rebuilt by
``python bench/bench_auction.py --write-prior``). A prediction is never under the current bid,
more time left never lowers it (bidding can only add to a price), and with a market the likely
end never goes above ``MARKET_CEILING`` times that market (the range around it moves with it).

The range is then calibrated (split conformal, in ``CALIBRATION_FOLDS`` folds of the auctions
learned from): per time left × market (its spread, and where the bid stands against it) ×
price band of the bid, both ends move by what it takes for a fifth of the finals *left out of
the fit* to fall outside, so "likely $low–$high" holds the end ``COVERAGE`` of the time, as
measured by ``python -m bench auction``.
"""

from __future__ import annotations

import bisect
import math
import tomllib
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal
from functools import lru_cache
from pathlib import Path
from statistics import quantiles
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from datetime import datetime

    from numpy.typing import NDArray

PRIOR = Path(__file__).with_name("auction_prior.toml")
TIME_EDGES = (0.5, 2.0, 8.0, 24.0, 72.0)  # hours left: <30m, 30m–2h, 2–8h, 8–24h, 1–3d, 3d+
BID_EDGES = (1, 3, 6, 12)  # bids so far: 0, 1–2, 3–5, 6–11, 12+
SPREAD_EDGES = (0.25, 0.6)  # market quartiles apart / median: tight, medium, wide (+ unknown)
STRENGTH = 20  # a prior bucket counts as this many watched snapshots
# No prediction above this many times the SKU's market (never under the current bid): of the
# 343 auctions of one identical item in the 2003 histories (Palm Pilot M515), none ended above
# 1.5x that item's median final price (watches and bundles, unlike identical cards, do).
MARKET_CEILING = 1.5
WEIGHTS = tuple(i / 20 for i in range(21))  # the market weights tried when fitting
COVERAGE = 0.8  # the low–high range holds the final this often
CALIBRATION_FOLDS = 5
# Each time bucket's middle in hours left (geometric; the last, open one: twice its edge).
MIDDLES = tuple(
    math.sqrt(a * b)
    for a, b in zip(
        (TIME_EDGES[0] / 4, *TIME_EDGES), (*TIME_EDGES, 2 * TIME_EDGES[-1]), strict=True
    )
)
# Between the buckets' middles a prediction moves in steps of a quarter doubling of the time
# left (and at the buckets' edges): 1 h 41 m and 2 h 0 m read alike, 24 h and 2 h do not.
STEP_EDGES = tuple(
    sorted(
        {*TIME_EDGES}
        | {2 ** (k / 4) for k in range(-12, 40) if MIDDLES[0] <= 2 ** (k / 4) <= MIDDLES[-1]}
    )
)
# Where the bid stands against the market: far under it, under it, at or over it. An hour
# before the end a bid at 40 % of its market is far less certain than one at 95 % (in the
# 2003 backtest, before calibration by it, the range held 41 % of the first and 91 % of the
# second).
POSITION_EDGES = (0.5, 0.9)
# The calibration columns: spread class (tight, medium, wide, unknown) x position, then one
# for an auction with no market.
NO_MARKET = (len(SPREAD_EDGES) + 2) * (len(POSITION_EDGES) + 1)
# ... each again per price band of the current bid (in the user's currency): under 100,
# 100–1,000, over 1,000. A cheap bid is a less certain start than a dear one: in the 2003
# backtest, calibrated per column alone, ranges held 73–79 % of finals of bids under $100
# and 89–95 % of bids over $1,000.
PRICE_EDGES = (100.0, 1000.0)
BANDS = len(PRICE_EDGES) + 1
COLUMNS = (NO_MARKET + 1) * BANDS
CENT = Decimal("0.01")


@dataclass(frozen=True, slots=True)
class AuctionPrediction:
    """Likely final price (landed unit, user's currency): low ≤ mid ≤ high, none under the bid.

    ``basis`` is "watched" when auctions rigscout watched fill the bucket, "prior" when only the
    prior does; ``examples`` is how many snapshots the bucket was learned from.
    """

    low: Decimal
    mid: Decimal
    high: Decimal
    basis: str
    examples: int = 0


@dataclass(frozen=True, slots=True)
class AuctionSnapshot:
    """One moment of a finished auction: its bid then, and how it ended."""

    current: Decimal
    bids: int
    time_left: timedelta
    final: Decimal
    market: Decimal | None = None  # the SKU's (item's) median final price, when known
    spread: float | None = None  # that market's interquartile range / median
    auction: str = ""  # which auction it is a moment of: calibration keeps them on one side


@dataclass(frozen=True, slots=True)
class Cell:
    """ln(final / current) at the 10th, 50th and 90th percentiles in one bucket."""

    low: float
    mid: float
    high: float
    n: int = 0


@dataclass(frozen=True, slots=True)
class Blend:
    """In one time-left × market-spread bucket: the market's weight, the ln range around it."""

    weight: float
    low: float
    high: float
    n: int = 0


@dataclass(frozen=True, slots=True)
class Widening:
    """In one time-left × market column × price band: how far (ln) the range's low moves down
    and its high up so that it holds ``COVERAGE`` of the finals left out of the fit (negative:
    narrows)."""

    by: float
    n: int = 0


NO_WIDENING = Widening(0.0)


@dataclass(frozen=True, slots=True)
class AuctionModel:
    """``cells[time][bids]``, ``blends[time][spread]`` and ``widenings[time][column]`` (spread
    class × where the bid stands, then ``NO_MARKET``; each × ``BANDS`` price bands, see
    ``calibration_column``); ``basis``: what it learned from."""

    cells: tuple[tuple[Cell, ...], ...]
    blends: tuple[tuple[Blend, ...], ...]
    widenings: tuple[tuple[Widening, ...], ...]
    basis: str = "prior"

    def predict(
        self,
        *,
        current_bid: Decimal,
        bids: int | None,
        time_left: timedelta,
        market: Decimal | None,
        spread: float | None = None,
    ) -> AuctionPrediction:
        """The likely end of an auction at ``current_bid`` with ``bids`` and ``time_left``."""
        if current_bid <= 0:
            floor = max(market or current_bid, current_bid)
            return AuctionPrediction(current_bid, floor, floor, self.basis)
        t, column, logs = self.uncalibrated(current_bid, bids, time_left, market, spread)
        widen = self.widenings[t][column].by
        low = max(logs[0] - widen, 0.0)  # never under the current bid
        mid = max(logs[1], low)
        high = max(logs[2] + widen, mid)
        cell = self.cells[t][bid_bucket(bids or 0)]
        basis = self.basis if cell.n else "prior"
        low_p, mid_p, high_p = (_times(current_bid, x) for x in (low, mid, high))
        return AuctionPrediction(low_p, mid_p, high_p, basis, cell.n)

    def uncalibrated(
        self,
        current_bid: Decimal,
        bids: int | None,
        time_left: timedelta,
        market: Decimal | None,
        spread: float | None,
    ) -> tuple[int, int, tuple[float, float, float]]:
        """The time bucket, the calibration column and ln(low, mid, high / current bid) before
        the widening: what calibration measures."""
        m = _log_ratio(market, current_bid) if market is not None and market > 0 else None
        band = price_band(current_bid)
        return self._uncalibrated(time_left, bid_bucket(bids or 0), spread_bucket(spread), m, band)

    def _uncalibrated(
        self, time_left: timedelta, b: int, s: int, m: float | None, band: int
    ) -> tuple[int, int, tuple[float, float, float]]:
        """``uncalibrated`` from the bid and spread buckets and ln(market / current bid)."""
        t = time_bucket(time_left)
        # More time left never lowers the prediction: each bucket's values are the highest of
        # it and the shorter ones; between two buckets' middles they are drawn from one to
        # the other, linearly in ln hours, at the middle of the time left's step.
        reach: list[tuple[float, float, float]] = []
        for i in range(min(t + 2, len(MIDDLES))):
            raw = self._raw(i, b, m, s)
            reach.append(raw if not reach else _highest(reach[-1], raw))
        low, mid, high = reach[t]
        hours, here = math.log(step_middle(time_left)), math.log(MIDDLES[t])
        other = t + 1 if hours > here else t - 1
        if 0 <= other < len(reach):
            share = min((hours - here) / (math.log(MIDDLES[other]) - here), 1.0)
            low, mid, high = (
                a + share * (c - a) for a, c in zip(reach[t], reach[other], strict=True)
            )
        if m is None:
            return t, calibration_column(NO_MARKET, band), (low, mid, high)
        # A catalog SKU is a commodity: its auctions end near its market. The ceiling caps the
        # likely end; the range around it moves down with it (its uncertainty stays).
        over = mid - max(m + math.log(MARKET_CEILING), 0.0)
        if over > 0:
            low, mid, high = low - over, mid - over, high - over
        position = bisect.bisect_right(POSITION_EDGES, math.exp(-m))  # the bid / the market
        column = s * (len(POSITION_EDGES) + 1) + position
        return t, calibration_column(column, band), (low, mid, high)

    def _raw(self, t: int, b: int, market: float | None, s: int) -> tuple[float, float, float]:
        cell = self.cells[t][b]
        if market is None:
            return cell.low, cell.mid, cell.high
        blend = self.blends[t][s]
        mid = max(cell.mid + blend.weight * (market - cell.mid), 0.0)
        return mid + blend.low, mid, mid + blend.high


def time_bucket(time_left: timedelta) -> int:
    return bisect.bisect_right(TIME_EDGES, time_left.total_seconds() / 3600)


def step_middle(time_left: timedelta) -> float:
    """The middle (in hours, geometric) of the step ``time_left`` is in: a prediction reads
    the time left only through its bucket and this, so it holds for the whole step."""
    i = bisect.bisect_right(STEP_EDGES, time_left.total_seconds() / 3600)
    if i == 0:
        return MIDDLES[0]
    if i == len(STEP_EDGES):
        return max(STEP_EDGES[-1], MIDDLES[-1])
    return math.sqrt(STEP_EDGES[i - 1] * STEP_EDGES[i])


def prediction_until(end_time: datetime, now: datetime) -> datetime:
    """Until when a prediction made at ``now`` holds: the moment the time left drops under
    the next edge of its step (``STEP_EDGES``, which include the buckets'), else the end."""
    hours = (end_time - now).total_seconds() / 3600
    passed = [edge for edge in STEP_EDGES if edge <= hours]
    return end_time - timedelta(hours=max(passed)) if passed else end_time


def _highest(
    a: tuple[float, float, float], b: tuple[float, float, float]
) -> tuple[float, float, float]:
    return max(a[0], b[0]), max(a[1], b[1]), max(a[2], b[2])


def bid_bucket(bids: int) -> int:
    return bisect.bisect_right(BID_EDGES, bids)


def price_band(current_bid: Decimal) -> int:
    """0 under 100, 1 from 100 to 1,000, 2 over 1,000 (the bid in the user's currency)."""
    return bisect.bisect_right(PRICE_EDGES, float(current_bid))


def calibration_column(market_column: int, band: int) -> int:
    """Where a market column (``NO_MARKET`` for none) × price band sits in a widenings row."""
    return market_column * BANDS + band


def spread_bucket(spread: float | None) -> int:
    """0 tight, 1 medium, 2 wide; 3 when the spread is not known."""
    return len(SPREAD_EDGES) + 1 if spread is None else bisect.bisect_right(SPREAD_EDGES, spread)


def fit_auction_model(
    snapshots: Iterable[AuctionSnapshot], *, prior: AuctionModel | None = None, basis: str = ""
) -> AuctionModel:
    """Learn the model; each bucket is shrunk toward ``prior`` (or, without one, its pool).

    >>> from datetime import timedelta
    >>> shot = AuctionSnapshot(Decimal(100), 4, timedelta(hours=1), Decimal(110))
    >>> fit_auction_model([shot]).predict(
    ...     current_bid=Decimal(50), bids=4, time_left=timedelta(hours=1), market=None).mid
    Decimal('55.00')
    """
    shots = [s for s in snapshots if s.current > 0 and s.final > 0]
    if not shots and prior is None:
        raise ValueError("no finished auctions to learn from, and no prior")
    seen = [_seen(s) for s in shots]
    cells = _fit_cells(seen, prior)
    blends = _fit_blends(seen, cells, prior)
    widenings = _fit_widenings(shots, seen, prior)
    return AuctionModel(cells, blends, widenings, basis or ("watched" if prior else "prior"))


@dataclass(frozen=True, slots=True)
class _Seen:
    """A snapshot as fitting reads it, computed once: its buckets, its rise and its market."""

    moment: tuple[str, timedelta] | None  # (auction, time left); None: an auction not named
    time: int
    bids: int
    spread: int
    rise: float  # ln(final / current), never negative
    market: float | None  # ln(market / current)


def _seen(s: AuctionSnapshot) -> _Seen:
    market = _log_ratio(s.market, s.current) if s.market is not None and s.market > 0 else None
    return _Seen(
        (s.auction, s.time_left) if s.auction else None,
        time_bucket(s.time_left),
        bid_bucket(s.bids),
        spread_bucket(s.spread),
        _rise(s),
        market,
    )


@lru_cache(maxsize=1)
def load_prior(path: Path = PRIOR) -> AuctionModel:
    """The prior model from its TOML file (``render_prior`` writes it).

    A damaged file is a ``ValueError`` naming it (rebuild it with the bench's --write-prior).
    """
    try:
        return _model(tomllib.loads(path.read_text("utf-8")))
    except (OSError, tomllib.TOMLDecodeError, KeyError, IndexError, TypeError, ValueError) as exc:
        raise ValueError(f"{path}: not a readable auction prior ({exc!r})") from None


def model_to_json(model: AuctionModel) -> dict[str, Any]:
    """The fitted model as JSON values (floats round-trip exactly), for the store to keep."""
    return {
        "basis": model.basis,
        "cells": [[[c.low, c.mid, c.high, c.n] for c in row] for row in model.cells],
        "blends": [[[b.weight, b.low, b.high, b.n] for b in row] for row in model.blends],
        "widenings": [[[w.by, w.n] for w in row] for row in model.widenings],
    }


def model_from_json(data: dict[str, Any]) -> AuctionModel:
    """``model_to_json`` read back; a malformed value is a ``ValueError``."""
    try:
        cells = tuple(tuple(Cell(*c) for c in row) for row in data["cells"])
        blends = tuple(tuple(Blend(*b) for b in row) for row in data["blends"])
        widenings = tuple(tuple(Widening(*w) for w in row) for row in data["widenings"])
        basis = str(data["basis"])
    except (KeyError, TypeError) as exc:
        raise ValueError(f"not a stored auction model ({exc!r})") from None
    times = len(TIME_EDGES) + 1
    shape = (times, len(BID_EDGES) + 1, len(SPREAD_EDGES) + 2, times, COLUMNS)
    found = (len(cells), len(cells[0]), len(blends[0]), len(widenings), len(widenings[0]))
    if found != shape or len(blends) != times:
        raise ValueError("not a stored auction model (wrong shape)")
    return AuctionModel(cells, blends, widenings, basis)


def _model(data: dict[str, Any]) -> AuctionModel:
    cells = [[Cell(0, 0, 0)] * (len(BID_EDGES) + 1) for _ in range(len(TIME_EDGES) + 1)]
    for c in data["cells"]:
        low, mid, high = (math.log(c[k]) for k in _KEYS)
        cells[c["time"]][c["bids"]] = Cell(low, mid, high, n=c["n"])
    blends = [[Blend(0.5, 0, 0)] * (len(SPREAD_EDGES) + 2) for _ in range(len(TIME_EDGES) + 1)]
    for bl in data["blends"]:
        spread = (math.log(bl["low"]), math.log(bl["high"]))
        blends[bl["time"]][bl["spread"]] = Blend(bl["weight"], *spread, n=bl["n"])
    widenings = [[NO_WIDENING] * COLUMNS for _ in range(len(TIME_EDGES) + 1)]
    for w in data["widenings"]:
        column = calibration_column(w["market"], w["band"])
        widenings[w["time"]][column] = Widening(math.log(w["by"]), n=w["n"])
    return AuctionModel(
        tuple(tuple(row) for row in cells),
        tuple(tuple(row) for row in blends),
        tuple(tuple(row) for row in widenings),
        "prior",
    )


def predict_final(
    *,
    current_bid: Decimal,
    bids: int | None,
    time_left: timedelta,
    market: Decimal | None,
    spread: float | None = None,
) -> AuctionPrediction:
    """The prior's prediction: the default until a model is fitted on watched auctions."""
    return load_prior().predict(
        current_bid=current_bid, bids=bids, time_left=time_left, market=market, spread=spread
    )


_KEYS = ("low", "mid", "high")


def _fit_cells(seen: Sequence[_Seen], prior: AuctionModel | None) -> tuple[tuple[Cell, ...], ...]:
    grid: dict[tuple[int, int], list[float]] = {}
    # A moment of an auction counts once, whatever markets it was also seen against.
    moments = {s.moment: s for s in seen if s.moment is not None}
    for s in [*moments.values(), *(s for s in seen if s.moment is None)]:
        grid.setdefault((s.time, s.bids), []).append(s.rise)
    everything = _cell([y for ys in grid.values() for y in ys], None)
    rows = []
    for t in range(len(TIME_EDGES) + 1):
        pooled = [y for (ti, _), ys in grid.items() if ti == t for y in ys]
        pool = _cell(pooled, everything)
        row = []
        for b in range(len(BID_EDGES) + 1):
            parent = prior.cells[t][b] if prior else pool
            row.append(_cell(grid.get((t, b), []), parent))
        rows.append(tuple(row))
    return tuple(rows)


def _cell(values: list[float], parent: Cell | None) -> Cell:
    """The percentiles of ``values``, shrunk toward ``parent`` by ``STRENGTH`` examples."""
    if not values:
        return Cell(parent.low, parent.mid, parent.high) if parent else Cell(0.0, 0.0, 0.0)
    own = _percentiles(values)
    if parent is None:
        return Cell(*own, n=len(values))
    n = len(values)
    low, mid, high = (
        _shrink(o, p, n) for o, p in zip(own, (parent.low, parent.mid, parent.high), strict=True)
    )
    return Cell(low, mid, high, n=n)


def _fit_blends(
    seen: Sequence[_Seen],
    cells: tuple[tuple[Cell, ...], ...],
    prior: AuctionModel | None,
) -> tuple[tuple[Blend, ...], ...]:
    unknown, every = len(SPREAD_EDGES) + 1, -1
    grid: dict[tuple[int, int], list[tuple[float, float, float]]] = {}
    for s in seen:
        if s.market is None:
            continue
        row = (s.rise, cells[s.time][s.bids].mid, s.market)
        # Every snapshot also teaches its time left's pool, the parent of its columns.
        for column in (s.spread, every):
            grid.setdefault((s.time, column), []).append(row)
    pool = _blend([x for (_, c), xs in grid.items() if c == every for x in xs], None)
    rows = []
    for t in range(len(TIME_EDGES) + 1):
        parent = _blend(grid.get((t, every), []), prior.blends[t][unknown] if prior else pool)
        rows.append(
            tuple(
                _blend(grid.get((t, c), []), prior.blends[t][c] if prior else parent)
                for c in range(unknown + 1)
            )
        )
    return tuple(rows)


def _blend(rows: list[tuple[float, float, float]], parent: Blend | None) -> Blend:
    """The market weight with the least mean absolute % error, and the spread left over."""
    if not rows:
        return parent or Blend(0.5, 0.0, 0.0)
    weight = WEIGHTS[int(np.argmin(_errors(rows)))]
    residuals = [y - max(r + weight * (m - r), 0.0) for y, r, m in rows]
    low, _, high = _percentiles(residuals)
    if parent is None:
        return Blend(weight, low, high, len(rows))
    n = len(rows)
    return Blend(
        _shrink(weight, parent.weight, n),
        _shrink(low, parent.low, n),
        _shrink(high, parent.high, n),
        n,
    )


def _fit_widenings(
    shots: Sequence[AuctionSnapshot], seen: Sequence[_Seen], prior: AuctionModel | None
) -> tuple[tuple[Widening, ...], ...]:
    """Split-conformal calibration of the range: the auctions dealt into
    ``CALIBRATION_FOLDS`` folds (all of an auction's moments in one, so none is predicted by
    a model that saw its end); each fold is predicted by the model fitted on the others. A
    final's score is how far (ln) it fell outside the range, negative inside it; per time left
    × market column both ends move by the scores' conformal quantile, shrunk toward the
    prior's (or the time bucket's pool) by ``STRENGTH`` examples."""
    scores: dict[tuple[int, int], list[float]] = {}
    order = {a: i for i, a in enumerate(dict.fromkeys(s.auction for s in shots))}
    folds = CALIBRATION_FOLDS if len(order) >= 2 * CALIBRATION_FOLDS else 0
    dealt: list[list[int]] = [[] for _ in range(folds)]  # each fold's snapshots
    for i, s in enumerate(shots) if folds else ():
        dealt[order[s.auction] % folds].append(i)
    for k, held in enumerate(dealt):
        train = [seen[i] for j, other in enumerate(dealt) if j != k for i in other]
        cells = _fit_cells(train, prior)
        model = AuctionModel(cells, _fit_blends(train, cells, prior), _no_widenings())
        for i in held:  # the buckets and market as ``uncalibrated`` reads them, read once
            x = seen[i]
            t, column, (low, _, high) = model._uncalibrated(
                shots[i].time_left, x.bids, x.spread, x.market, price_band(shots[i].current)
            )
            scores.setdefault((t, column), []).append(max(low - x.rise, x.rise - high))
    rows = []
    for t in range(len(TIME_EDGES) + 1):
        if prior is not None:
            parents = prior.widenings[t]
        else:
            # A column with few auctions is shrunk toward its market column over every price
            # band, that toward its kind's pool at that time left: the market columns toward
            # each other, no market toward all.
            here = [(c // BANDS, xs) for (ti, c), xs in scores.items() if ti == t]
            market = _widening([x for c, xs in here if c < NO_MARKET for x in xs], None)
            kinds = (market,) * NO_MARKET + (_widening([x for _, xs in here for x in xs], None),)
            columns = [
                _widening([x for c, xs in here if c == m for x in xs], kinds[m])
                for m in range(NO_MARKET + 1)
            ]
            parents = tuple(columns[c // BANDS] for c in range(COLUMNS))
        rows.append(tuple(_widening(scores.get((t, c), []), parents[c]) for c in range(COLUMNS)))
    return tuple(rows)


def _no_widenings() -> tuple[tuple[Widening, ...], ...]:
    return tuple((NO_WIDENING,) * COLUMNS for _ in range(len(TIME_EDGES) + 1))


def _widening(scores: list[float], parent: Widening | None) -> Widening:
    """The conformal quantile of the scores, shrunk toward ``parent``."""
    if not scores:
        return Widening(parent.by) if parent else NO_WIDENING
    n = len(scores)
    # The ceil((n + 1)(1 - a))-th smallest score holds 1 - a of new cases (split conformal).
    rank = min(math.ceil((n + 1) * COVERAGE), n) - 1
    by = sorted(scores)[rank]
    if parent is None:
        return Widening(by, n)
    return Widening(_shrink(by, parent.by, n), n)


def _errors(rows: list[tuple[float, float, float]]) -> NDArray[np.float64]:
    """For each of ``WEIGHTS``, the summed absolute % error over ``rows`` (y, r, m) of the
    prediction r + w (m − r): |predicted − final| / final, both as ln(price / current bid),
    never under the bid; summed in order, as Python's ``sum`` would."""
    y, r, m = np.array(rows, dtype=np.float64).T
    predicted = r[None, :] + np.array(WEIGHTS)[:, None] * (m - r)[None, :]
    ape = np.abs(np.exp(np.maximum(predicted, 0.0) - y[None, :]) - 1)
    return np.cumsum(ape, axis=1)[:, -1]


def _percentiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) == 1:
        return values[0], values[0], values[0]
    cuts = quantiles(values, n=10, method="inclusive")
    return cuts[0], cuts[4], cuts[8]


def _shrink(own: float, parent: float, n: int) -> float:
    return (n * own + STRENGTH * parent) / (n + STRENGTH)


def _log_ratio(price: Decimal, current: Decimal) -> float:
    return math.log(price / current)


def _rise(shot: AuctionSnapshot) -> float:
    """ln(final / current): never negative (a final under a bid seen is a recording slip)."""
    return max(_log_ratio(shot.final, shot.current), 0.0)


def _times(current: Decimal, log_ratio: float) -> Decimal:
    return (current * Decimal(repr(round(math.exp(log_ratio), 6)))).quantize(CENT)
