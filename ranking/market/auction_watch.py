"""Auctions rigscout watched to their end, turned into what the auction model learns from.

The store loads them (``db/auction_rows.py``): each finished auction's sale and the bids seen
before its end. Here every sighting becomes an ``AuctionSnapshot`` in the terms the ranker
predicts in: landed unit prices in the user's currency, and the SKU's market median as the
ranker would have seen it the day before the sighting. A sale carries a date, not a time, so a
sale dated the sighting's day may have come after it; leaving that day out is also what leaves
the auction's own sale out, so each SKU's market is computed once per day of history, whatever
the number of auctions (no record-by-record search for the own sale).

Past days' markets rarely change, yet a refit after every run would compute each of them
again (most of a refit's time on a large store). So each market is known by the content of
its slice of sales (``slice_key``): a fit takes the markets an earlier fit read
(``WatchedFit.markets``, kept by the caller) and computes only slices it has not seen. A slice
whose sales changed in any way has another key, so the model is the same as without them.
"""

from __future__ import annotations

import bisect
import hashlib
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

from ranking.landed import landed_unit_price
from ranking.market.auction import AuctionSnapshot, fit_auction_model, load_prior
from ranking.market.sold import sale_point, sales_days, sold_market

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from datetime import date, datetime

    from core.settings import RankSettings
    from ranking.market.auction import AuctionModel
    from ranking.market.sold import SalePoint
    from ranking.rows import SoldRow

HISTORY_DAYS = 365  # the model learns from auctions that ended in the last year
# ... at most the newest this many: the fit costs time in proportion to the auctions it reads
# (a minute for 58,000 on a store a year old at 1M listings), and recent bidding is what a
# running auction meets; 10,000 fills every cell of the model many times over
WATCHED_LIMIT = 10_000
_HASH_MOD = 1 << 64

# A slice's market as the model reads it: (median, spread where known); None: no market.
SliceMarket = tuple[Decimal, float | None] | None


@dataclass(frozen=True, slots=True)
class BidSeen:
    """One observation of a running auction: its price and bids at that moment."""

    observed_at: datetime
    price: Decimal
    shipping: Decimal | None
    bids: int | None


@dataclass(frozen=True, slots=True)
class WatchedAuction:
    """A finished auction of a catalog item: how it ended and what was seen before."""

    listing_id: int
    end_time: datetime
    final: SoldRow
    seen: tuple[BidSeen, ...]  # oldest first, all before ``end_time``


@dataclass(frozen=True, slots=True)
class WatchedFit:
    """A fitted auction model and the markets of the slices of sales it read, by their key."""

    model: AuctionModel
    markets: Mapping[str, SliceMarket]


def fit_watched_model(
    auctions: Iterable[WatchedAuction],
    sales: Sequence[SoldRow],
    settings: RankSettings,
    *,
    known: Mapping[str, SliceMarket] | None = None,
) -> WatchedFit:
    """The auction model learned from watched auctions, shrunk toward the prior where thin.

    ``known``: slice markets an earlier fit read under the same settings (``WatchedFit.markets``);
    only the slices missing from it are computed. The model is the same with or without it.
    """
    markets = _Markets(sales, settings, known or {})
    model = fit_auction_model(_snapshots(auctions, markets, settings), prior=load_prior())
    return WatchedFit(model, markets.read)


def markets_basis(settings: RankSettings) -> str:
    """Changes with anything a slice's market reads besides its sales: the settings (FX rates,
    window, minimum sales) and the rules that land a sale and make a market (their source), so
    slice markets kept under another basis are computed again."""
    here = Path(__file__)
    try:
        rules = [
            (here.parents[1] / "landed.py").read_bytes(),
            here.with_name("sold.py").read_bytes(),
        ]
    except OSError:  # no source beside the code (a zipped install): the settings alone
        rules = []
    return hashlib.sha256(repr((settings, rules)).encode()).hexdigest()


def slice_markets_to_json(markets: Mapping[str, SliceMarket]) -> dict[str, object]:
    """Slice markets as JSON values: [median text, spread or null], or null (no market)."""
    return {k: None if m is None else [str(m[0]), m[1]] for k, m in markets.items()}


def slice_markets_from_json(data: object) -> dict[str, SliceMarket]:
    """What ``slice_markets_to_json`` wrote; a ``ValueError`` where it is not that."""
    if not isinstance(data, dict):
        raise ValueError("not slice markets")
    markets: dict[str, SliceMarket] = {}
    for key, value in data.items():
        if value is None:
            markets[key] = None
            continue
        match value:
            case [str(median), float() | None as spread]:
                markets[key] = (Decimal(median), spread)
            case _:
                raise ValueError(f"not a slice market: {value!r}")
    return markets


def sales_window_days(
    auctions: Sequence[WatchedAuction], *, now: datetime, window_days: int
) -> int:
    """Days of sales to load: the market window before the oldest sighting (at least the window)."""
    seen = [s.observed_at for a in auctions for s in a.seen]
    if not seen:
        return window_days
    return max(window_days, (now.date() - min(seen).date()).days + window_days + 1)


def watched_snapshots(
    auctions: Iterable[WatchedAuction], sales: Sequence[SoldRow], settings: RankSettings
) -> list[AuctionSnapshot]:
    """One snapshot per sighting; auctions in a currency without an FX rate are left out."""
    return _snapshots(auctions, _Markets(sales, settings, {}), settings)


def _snapshots(
    auctions: Iterable[WatchedAuction], markets: _Markets, settings: RankSettings
) -> list[AuctionSnapshot]:
    shots = []
    for auction in auctions:
        final = auction.final
        # One shipping cost for the bid and the end, so the ratio is the bid's rise alone.
        shipping = final.shipping
        for seen in auction.seen:
            ship = shipping if shipping is not None else seen.shipping
            end = _landed(final.price, ship, final, settings)
            now = _landed(seen.price, ship, final, settings)
            if end is None or now is None or seen.observed_at >= auction.end_time:
                continue
            market = markets.before(final.sku, seen.observed_at.date())
            left = auction.end_time - seen.observed_at
            median, spread = market or (None, None)
            shots.append(
                AuctionSnapshot(
                    now, seen.bids or 0, left, end, median, spread, str(auction.listing_id)
                )
            )
    return shots


def _landed(
    price: Decimal, shipping: Decimal | None, sale: SoldRow, settings: RankSettings
) -> Decimal | None:
    landed = landed_unit_price(price, shipping, sale.quantity, sale.currency, settings)
    return landed.unit_price if landed is not None else None


def slice_key(sku: str, count: int, content: int) -> str:
    """The key of a slice of ``count`` sales of ``sku`` whose point hashes sum to ``content``."""
    return f"{sku}|{count}|{content:016x}"


def _point_hash(point: SalePoint) -> int:
    """A 64-bit hash of what a sale brings to a market, the same in every process."""
    digest = hashlib.blake2b(repr(point).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


class _Markets:
    """The SKU's market as of the end of a day, from the sales in the window up to it.

    Each sale is landed and hashed once (``sale_point``); a day's market is a slice of them,
    known by its SKU, its count and the sum of its sales' hashes (prefix sums: one subtraction
    a slice). Two different slices share a key only by a 64-bit hash collision.
    """

    def __init__(
        self, sales: Sequence[SoldRow], settings: RankSettings, known: Mapping[str, SliceMarket]
    ) -> None:
        self._settings = settings
        self._known = known
        self._points: dict[str, list[SalePoint]] = {}
        self._dates: dict[str, list[date]] = {}
        self._sums: dict[str, list[int]] = {}
        for sale in sorted(sales, key=lambda s: s.sold_date):
            if sale.own_market and (point := sale_point(sale, settings)) is not None:
                self._points.setdefault(sale.sku, []).append(point)
                self._dates.setdefault(sale.sku, []).append(sale.sold_date)
                sums = self._sums.setdefault(sale.sku, [0])
                sums.append((sums[-1] + _point_hash(point)) % _HASH_MOD)
        # Every slice read, by key: days with the same sales in the window share one.
        self.read: dict[str, SliceMarket] = {}

    def before(self, sku: str, day: date) -> SliceMarket:
        """The market from the sales dated before ``day`` (within the window)."""
        within = sales_days(day, self._settings.window_days)
        dates = self._dates.get(sku, [])
        start = bisect.bisect_left(dates, within.first)
        stop = bisect.bisect_left(dates, within.end)
        sums = self._sums.get(sku, [0])
        key = slice_key(sku, stop - start, (sums[stop] - sums[start]) % _HASH_MOD)
        if key not in self.read:
            if key in self._known:
                self.read[key] = self._known[key]
            else:
                points = self._points.get(sku, [])[start:stop]
                market = sold_market(sku, points, self._settings)
                self.read[key] = (market.median, market.known_spread) if market else None
        return self.read[key]
