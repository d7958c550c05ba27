"""The deal score: how far under the market a listing is, how sure that market is, and its value.

score = 100 * (0.6 * evidence * clamp(discount / 0.5, -1, 1) + 0.4 * value_percentile) - penalty

A listing 50 % (or more) under a strong market reference earns the whole discount part; the
evidence weight (``ranking.market.EVIDENCE_WEIGHT``: strong 1, thin 0.5, asking 0.25, none 0)
shrinks it when the reference is weak. ``value_percentile`` is the share (0..1] of the ranked
listings of the same category whose profile capability per landed dollar is no better.
``penalty`` is the sum of the listing's warning flags (``ranking/titles/flags.toml``). Before
penalties scores run from -60 to 100.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

DISCOUNT_WEIGHT = 0.6
VALUE_WEIGHT = 0.4
FULL_DISCOUNT = 0.5  # a discount this deep earns the whole discount part


def score_deal(
    discount: float | None,
    value_percentile: float | None,
    *,
    evidence: float = 1.0,
    penalty: float = 0.0,
) -> float:
    """The deal score from a discount (0.31 = 31 % under market) and a value percentile (0..1)."""
    part = 0.0 if discount is None else max(-1.0, min(1.0, discount / FULL_DISCOUNT))
    return float(combine(part, value_percentile or 0.0, evidence, penalty))


def combine(part: Any, percentile: Any, evidence: Any, penalty: Any) -> Any:
    """The score from the discount's part (-1..1), the percentile, the evidence and penalty:
    for one listing (floats) or for every listing at once (numpy arrays, the shortlist's)."""
    return 100 * (DISCOUNT_WEIGHT * evidence * part + VALUE_WEIGHT * percentile) - penalty


def clip_discount(discount: NDArray[np.float64]) -> NDArray[np.float64]:
    """``score_deal``'s discount part for an array of discounts (NaN stays NaN)."""
    return (discount / FULL_DISCOUNT).clip(-1.0, 1.0)
