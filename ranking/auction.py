"""Interim auction predictor (replaced by the learned model on the ``auction`` branch)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import timedelta
    from decimal import Decimal


@dataclass(frozen=True, slots=True)
class AuctionPrediction:
    low: Decimal
    mid: Decimal
    high: Decimal
    basis: str
    examples: int = 0


def predict_final(
    *, current_bid: Decimal, bids: int | None, time_left: timedelta, market: Decimal | None
) -> AuctionPrediction:
    """Market when known (never under the current bid), else the current bid."""
    target = max(market, current_bid) if market is not None else current_bid
    return AuctionPrediction(current_bid, target, max(target, current_bid), "interim")
