"""The auction prior as ``ranking.market.auction.load_prior`` reads it, written from a fitted model.

Used by ``bench/bench_auction.py`` to regenerate ``ranking/market/auction_prior.toml`` from watched
auctions, and by the tests; the product only reads the prior.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ranking.market.auction import BANDS

if TYPE_CHECKING:
    from ranking.market.auction import AuctionModel

_KEYS = ("low", "mid", "high")


def render_prior(model: AuctionModel, *, header: str) -> str:
    """The model as the TOML ``load_prior`` reads: ratios final/current, not logarithms."""
    lines = [*(f"# {h}" if h else "#" for h in header.splitlines()), ""]
    for t, row in enumerate(model.cells):
        for b, c in enumerate(row):
            lines += ["[[cells]]", f"time = {t}", f"bids = {b}", f"n = {c.n}"]
            lines += [
                f"{k} = {math.exp(v):.4f}"
                for k, v in zip(_KEYS, (c.low, c.mid, c.high), strict=True)
            ]
            lines.append("")
    for t, blends in enumerate(model.blends):
        for b, bl in enumerate(blends):
            lines += ["[[blends]]", f"time = {t}", f"spread = {b}", f"n = {bl.n}"]
            lines += [f"weight = {bl.weight:.2f}", f"low = {math.exp(bl.low):.4f}"]
            lines += [f"high = {math.exp(bl.high):.4f}", ""]
    for t, widenings in enumerate(model.widenings):
        for column, w in enumerate(widenings):
            market, band = divmod(column, BANDS)
            lines += ["[[widenings]]", f"time = {t}", f"market = {market}", f"band = {band}"]
            lines += [f"n = {w.n}", f"by = {math.exp(w.by):.4f}", ""]
    return "\n".join(lines)
