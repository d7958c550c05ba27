"""Real eBay bid histories: the price a buyer saw at each moment, rebuilt from the proxy bids.

A bidder gives eBay a maximum (a proxy bid); the price shown is the second-highest maximum plus
one bid increment, capped at the highest maximum and never under the opening bid (eBay's
second-price rule). ``parse_bid_histories`` reads the "Modeling Online Auctions" data set
(``../shared/ebay-samples/datasets/auction_bid_histories_2003.csv``, see its SOURCES.md);
``visible_price`` and ``snapshots_of`` turn one history into what a watcher would have seen.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal, InvalidOperation

from ranking.market.auction import AuctionSnapshot

# eBay US bid increments: (price from, increment), highest bracket first.
INCREMENTS = (
    (Decimal(5000), Decimal(100)),
    (Decimal(2500), Decimal(50)),
    (Decimal(1000), Decimal(25)),
    (Decimal(500), Decimal(10)),
    (Decimal(250), Decimal(5)),
    (Decimal(100), Decimal("2.50")),
    (Decimal(25), Decimal(1)),
    (Decimal(5), Decimal("0.50")),
    (Decimal(1), Decimal("0.25")),
    (Decimal(0), Decimal("0.05")),
)
COLUMNS = ("auctionid", "bid", "bidtime", "bidder", "openbid", "price", "item", "auction_type")
DAY = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class ProxyBid:
    """One bidder's maximum, placed ``at`` after the auction opened."""

    amount: Decimal
    at: timedelta
    bidder: str


@dataclass(frozen=True, slots=True)
class BidHistory:
    """One finished auction: its bids in time order and the price it ended at."""

    auction_id: str
    item: str
    opening: Decimal
    final: Decimal
    duration: timedelta
    bids: tuple[ProxyBid, ...]


def bid_increment(price: Decimal) -> Decimal:
    """eBay's step above ``price``: ``bid_increment(Decimal(120))`` is ``Decimal('2.50')``."""
    return next(step for start, step in INCREMENTS if price >= start)


def visible_price(history: BidHistory, elapsed: timedelta) -> tuple[Decimal, int]:
    """The price shown and the number of bids placed ``elapsed`` after the auction opened."""
    best: dict[str, Decimal] = {}
    count = 0
    for bid in history.bids:
        if bid.at > elapsed:
            break
        count += 1
        best[bid.bidder] = max(bid.amount, best.get(bid.bidder, bid.amount))
    maxima = sorted(best.values(), reverse=True)
    if len(maxima) < 2:
        return history.opening, count
    top, second = maxima[0], max(maxima[1], history.opening)
    return max(history.opening, min(top, second + bid_increment(second))), count


def snapshots_of(
    history: BidHistory,
    hours_before_end: tuple[float, ...],
    market: Decimal | None,
    spread: float | None = None,
) -> list[AuctionSnapshot]:
    """What a watcher saw at each of those moments (only those inside the auction)."""
    shots = []
    for hours in hours_before_end:
        left = timedelta(hours=hours)
        if left >= history.duration:
            continue
        price, bids = visible_price(history, history.duration - left)
        shots.append(
            AuctionSnapshot(price, bids, left, history.final, market, spread, history.auction_id)
        )
    return shots


def parse_bid_histories(text: str) -> list[BidHistory]:
    """The auctions of the CSV, in file order; a malformed row is a ``ValueError`` naming it."""
    reader = csv.DictReader(io.StringIO(text))
    missing = set(COLUMNS) - set(reader.fieldnames or ())
    if missing:
        raise ValueError(f"bid histories: missing columns {', '.join(sorted(missing))}")
    rows: dict[str, list[dict[str, str]]] = {}
    for row in reader:
        rows.setdefault(row["auctionid"], []).append(row)
    return [_history(auction_id, group) for auction_id, group in rows.items()]


def _history(auction_id: str, rows: list[dict[str, str]]) -> BidHistory:
    first = rows[0]
    try:
        days = int(first["auction_type"].split()[0])
        bids = [
            # A bid without a bidder name is its own anonymous bidder.
            ProxyBid(Decimal(r["bid"]), float(r["bidtime"]) * DAY, r["bidder"] or f"?{i}")
            for i, r in enumerate(rows)
        ]
        opening, final = Decimal(first["openbid"]), Decimal(first["price"])
    except (ValueError, IndexError, InvalidOperation) as exc:
        raise ValueError(f"bid histories: auction {auction_id}: {exc}") from None
    bids.sort(key=lambda b: b.at)
    return BidHistory(auction_id, first["item"], opening, final, days * DAY, tuple(bids))
