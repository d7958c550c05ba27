"""A running auction's likely final price, learned from auctions watched to their end.

The model learns ``final / current bid`` in buckets of time left × bids so far (the 10th, 50th
and 90th percentiles: low, mid, high) and, per time left × how tight the SKU's market is, how far
toward the market median the end moves (a weight between 0 "the bid says it all" and 1 "the
market does": a tight market of identical cards is worth more than a wide one). A bucket
with few watched auctions is shrunk toward the prior with the weight of ``STRENGTH`` examples
(``auction_prior.toml``: the same model learned from 628 real eBay auctions, rebuilt by
``python bench/bench_auction.py --write-prior``). A prediction is never under the current bid,
more time left never lowers it (bidding can only add to a price), and with a market it never
goes above ``MARKET_CEILING`` times that market.
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
class AuctionModel:
    """``cells[time][bids]`` and ``blends[time][spread]``; ``basis``: what it learned from."""

    cells: tuple[tuple[Cell, ...], ...]
    blends: tuple[tuple[Blend, ...], ...]
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
        t, b = time_bucket(time_left), bid_bucket(bids or 0)
        m = math.log(market / current_bid) if market is not None and market > 0 else None
        # More time left never lowers the prediction: take the highest of the shorter buckets.
        raw = [self._raw(i, b, m, spread_bucket(spread)) for i in range(t + 1)]
        low, mid, high = (max(max(r[k] for r in raw), 0.0) for k in range(3))
        if m is not None:  # a catalog SKU is a commodity: its auctions end near its market
            ceiling = max(m + math.log(MARKET_CEILING), 0.0)
            low, mid, high = (min(x, ceiling) for x in (low, mid, high))
        mid, high = max(mid, low), max(high, mid, low)
        cell = self.cells[t][b]
        basis = self.basis if cell.n else "prior"
        low_p, mid_p, high_p = (_times(current_bid, x) for x in (low, mid, high))
        return AuctionPrediction(low_p, mid_p, high_p, basis, cell.n)

    def _raw(self, t: int, b: int, market: float | None, s: int) -> tuple[float, float, float]:
        cell = self.cells[t][b]
        if market is None:
            return cell.low, cell.mid, cell.high
        blend = self.blends[t][s]
        mid = max(cell.mid + blend.weight * (market - cell.mid), 0.0)
        return mid + blend.low, mid, mid + blend.high


def time_bucket(time_left: timedelta) -> int:
    return bisect.bisect_right(TIME_EDGES, time_left.total_seconds() / 3600)


def bucket_until(end_time: datetime, now: datetime) -> datetime:
    """Until when a prediction made at ``now`` holds: the moment the time left drops under
    the next edge of ``time_bucket`` (a prediction reads only the bucket), else the end."""
    hours = (end_time - now).total_seconds() / 3600
    passed = [edge for edge in TIME_EDGES if edge <= hours]
    return end_time - timedelta(hours=max(passed)) if passed else end_time


def bid_bucket(bids: int) -> int:
    return bisect.bisect_right(BID_EDGES, bids)


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
    cells = _fit_cells(shots, prior)
    blends = _fit_blends(shots, cells, prior)
    return AuctionModel(cells, blends, basis or ("watched" if prior else "prior"))


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
    }


def model_from_json(data: dict[str, Any]) -> AuctionModel:
    """``model_to_json`` read back; a malformed value is a ``ValueError``."""
    try:
        cells = tuple(tuple(Cell(*c) for c in row) for row in data["cells"])
        blends = tuple(tuple(Blend(*b) for b in row) for row in data["blends"])
        basis = str(data["basis"])
    except (KeyError, TypeError) as exc:
        raise ValueError(f"not a stored auction model ({exc!r})") from None
    shape = (len(TIME_EDGES) + 1, len(BID_EDGES) + 1, len(SPREAD_EDGES) + 2)
    if (len(cells), len(cells[0]), len(blends[0])) != shape or len(blends) != shape[0]:
        raise ValueError("not a stored auction model (wrong shape)")
    return AuctionModel(cells, blends, basis)


def _model(data: dict[str, Any]) -> AuctionModel:
    cells = [[Cell(0, 0, 0)] * (len(BID_EDGES) + 1) for _ in range(len(TIME_EDGES) + 1)]
    for c in data["cells"]:
        low, mid, high = (math.log(c[k]) for k in _KEYS)
        cells[c["time"]][c["bids"]] = Cell(low, mid, high, n=c["n"])
    blends = [[Blend(0.5, 0, 0)] * (len(SPREAD_EDGES) + 2) for _ in range(len(TIME_EDGES) + 1)]
    for bl in data["blends"]:
        spread = (math.log(bl["low"]), math.log(bl["high"]))
        blends[bl["time"]][bl["spread"]] = Blend(bl["weight"], *spread, n=bl["n"])
    return AuctionModel(
        tuple(tuple(row) for row in cells), tuple(tuple(row) for row in blends), "prior"
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


def _fit_cells(
    shots: Sequence[AuctionSnapshot], prior: AuctionModel | None
) -> tuple[tuple[Cell, ...], ...]:
    grid: dict[tuple[int, int], list[float]] = {}
    for s in shots:
        key = (time_bucket(s.time_left), bid_bucket(s.bids))
        grid.setdefault(key, []).append(_rise(s))
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
    shots: Sequence[AuctionSnapshot],
    cells: tuple[tuple[Cell, ...], ...],
    prior: AuctionModel | None,
) -> tuple[tuple[Blend, ...], ...]:
    unknown = len(SPREAD_EDGES) + 1
    grid: dict[tuple[int, int], list[tuple[float, float, float]]] = {}
    for s in shots:
        if s.market is None or s.market <= 0:
            continue
        t = time_bucket(s.time_left)
        row = (_rise(s), cells[t][bid_bucket(s.bids)].mid, _log_ratio(s.market, s.current))
        # Every snapshot also teaches the column used when a market's spread is unknown.
        for column in {spread_bucket(s.spread), unknown}:
            grid.setdefault((t, column), []).append(row)
    pool = _blend([x for (_, c), xs in grid.items() if c == unknown for x in xs], None)
    rows = []
    for t in range(len(TIME_EDGES) + 1):
        parent = _blend(grid.get((t, unknown), []), prior.blends[t][unknown] if prior else pool)
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
