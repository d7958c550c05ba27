"""Auctions rigscout watched to their end, turned into what the auction model learns from.

The store loads them (``db/auction_rows.py``): each finished auction's sale and the bids seen
before its end. Here every sighting becomes an ``AuctionSnapshot`` in the terms the ranker
predicts in: landed unit prices in the user's currency, and the SKU's market median as the
ranker would have seen it that day (without the auction's own sale).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from ranking.auction import AuctionSnapshot, fit_auction_model, load_prior
from ranking.landed import landed_unit_price
from ranking.market import score_market

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from datetime import date, datetime
    from decimal import Decimal

    from core.settings import RankSettings
    from ranking.auction import AuctionModel
    from ranking.market import Market
    from ranking.rows import SoldRow

HISTORY_DAYS = 365  # the model learns from auctions that ended in the last year


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
            market = markets.at(final.sku, seen.observed_at, own=final)
            left = auction.end_time - seen.observed_at
            median, spread = (market.median, market.spread) if market else (None, None)
            shots.append(AuctionSnapshot(now, seen.bids or 0, left, end, median, spread))
    return shots


def _landed(
    price: Decimal, shipping: Decimal | None, sale: SoldRow, settings: RankSettings
) -> Decimal | None:
    landed = landed_unit_price(price, shipping, sale.quantity, sale.currency, settings)
    return landed.unit_price if landed is not None else None


class _Markets:
    """The SKU's market as of a day, from the sales in the window before it."""

    def __init__(self, sales: Sequence[SoldRow], settings: RankSettings) -> None:
        self._settings = settings
        self._by_sku: dict[str, list[SoldRow]] = {}
        for sale in sorted(sales, key=lambda s: s.sold_date):
            self._by_sku.setdefault(sale.sku, []).append(sale)
        self._dates = {sku: [s.sold_date for s in rows] for sku, rows in self._by_sku.items()}
        self._cache: dict[tuple[str, date, SoldRow | None], Market | None] = {}

    def at(self, sku: str, moment: datetime, *, own: SoldRow) -> Market | None:
        day = moment.date()
        rows = self._window(sku, day)
        # The auction's own sale is not evidence of its own market: drop one equal sale.
        mine = own if own in rows else None
        key = (sku, day, mine)
        if key not in self._cache:
            if mine is not None:
                rows = list(rows)
                rows.remove(mine)
            self._cache[key] = score_market(rows, {}, self._settings, now=moment).get(sku)
        return self._cache[key]

    def _window(self, sku: str, day: date) -> list[SoldRow]:
        dates = self._dates.get(sku, [])
        start = bisect.bisect_right(dates, day - timedelta(days=self._settings.window_days))
        return self._by_sku.get(sku, [])[start : bisect.bisect_right(dates, day)]
