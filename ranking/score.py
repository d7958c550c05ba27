"""The deal score: how far under the market a listing is, and how good its value is in its profile.

score = 100 * (0.6 * clamp(discount / 0.5, -1, 1) + 0.4 * value_percentile)

A listing 50 % (or more) under its market baseline earns the whole discount part; one over the
baseline loses points; without a baseline the discount part is 0. ``value_percentile`` is the
cumulative share (0..1] of comparable listings (same category, same buy-now/auction side) whose
profile capability per landed dollar is no better. Scores run from -60 to 100.
"""

from __future__ import annotations

DISCOUNT_WEIGHT = 0.6
VALUE_WEIGHT = 0.4
FULL_DISCOUNT = 0.5  # a discount this deep earns the whole discount part


def score_deal(discount: float | None, value_percentile: float | None) -> float:
    """The deal score from a discount (0.31 = 31 % under market) and a value percentile (0..1)."""
    part = 0.0 if discount is None else max(-1.0, min(1.0, discount / FULL_DISCOUNT))
    return 100 * (DISCOUNT_WEIGHT * part + VALUE_WEIGHT * (value_percentile or 0.0))
