"""Auctions rigscout watched to their end, turned into what the auction model learns from.

The store loads them (``db/auction_rows.py``): each finished auction's sale and the bids seen
before its end. Here every sighting becomes an ``AuctionSnapshot`` in the terms the ranker
predicts in: landed unit prices in the user's currency, and the SKU's market median as the
ranker would have seen it the day before the sighting. A sale carries a date, not a time, so a
sale dated the sighting's day may have come after it; leaving that day out is also what leaves
the auction's own sale out, so each SKU's market is computed once per day of history, whatever
the number of auctions (no record-by-record search for the own sale).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from ranking.landed import landed_unit_price
from ranking.market.auction import AuctionSnapshot, fit_auction_model, load_prior
from ranking.market.sold import sale_point, sold_market

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from datetime import date, datetime
    from decimal import Decimal

    from core.settings import RankSettings
    from ranking.market.auction import AuctionModel
    from ranking.market.sold import Market, SalePoint
    from ranking.rows import SoldRow

HISTORY_DAYS = 365  # the model learns from auctions that ended in the last year
# ... at most the newest this many: the fit costs time in proportion to the auctions it reads
# (a minute for 58,000 on a store a year old at 1M listings), and recent bidding is what a
# running auction meets; 10,000 fills every cell of the model many times over
WATCHED_LIMIT = 10_000


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


def fit_watched_model(
    auctions: Iterable[WatchedAuction], sales: Sequence[SoldRow], settings: RankSettings
) -> AuctionModel:
    """The auction model learned from watched auctions, shrunk toward the prior where thin."""
    return fit_auction_model(watched_snapshots(auctions, sales, settings), prior=load_prior())


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
    markets = _Markets(sales, settings)
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
            median, spread = (market.median, market.known_spread) if market else (None, None)
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


class _Markets:
    """The SKU's market as of the end of a day, from the sales in the window up to it.

    Each sale is landed once (``sale_point``); a day's market is a slice of them.
    """

    def __init__(self, sales: Sequence[SoldRow], settings: RankSettings) -> None:
        self._settings = settings
        self._points: dict[str, list[SalePoint]] = {}
        self._dates: dict[str, list[date]] = {}
        for sale in sorted(sales, key=lambda s: s.sold_date):
            if sale.own_market and (point := sale_point(sale, settings)) is not None:
                self._points.setdefault(sale.sku, []).append(point)
                self._dates.setdefault(sale.sku, []).append(sale.sold_date)
        # Keyed by the slice of sales, so days with the same sales in the window share one.
        self._cache: dict[tuple[str, int, int], Market | None] = {}

    def before(self, sku: str, day: date) -> Market | None:
        """The market from the sales dated before ``day`` (within the window)."""
        last = day - timedelta(days=1)
        dates = self._dates.get(sku, [])
        start = bisect.bisect_right(dates, last - timedelta(days=self._settings.window_days))
        stop = bisect.bisect_right(dates, last)
        key = (sku, start, stop)
        if key not in self._cache:
            points = self._points.get(sku, [])[start:stop]
            self._cache[key] = sold_market(sku, points, self._settings)
        return self._cache[key]
