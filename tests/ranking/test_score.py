"""The deal score: 60 % discount (full marks at 50 % under market), 40 % value percentile."""

from __future__ import annotations

import pytest

from ranking.score import score_deal


@pytest.mark.parametrize(
    ("discount", "percentile", "score"),
    [
        (0.5, 1.0, 100.0),  # half price and the best value: the top score
        (0.8, 1.0, 100.0),  # deeper than 50 % earns no more
        (0.25, 0.5, 50.0),
        (0.0, 0.5, 20.0),  # at market: only value counts
        (None, 0.5, 20.0),  # no baseline: the discount part is 0, never a guess
        (-0.5, 0.0, -60.0),  # double the market price: the floor
        (-2.0, 1.0, -20.0),
    ],
)
def test_score_combines_discount_and_value(discount, percentile, score):
    assert score_deal(discount, percentile) == pytest.approx(score)


def test_a_deeper_discount_scores_higher_at_the_same_value():
    scores = [score_deal(d, 0.5) for d in (-0.1, 0.0, 0.1, 0.3)]
    assert scores == sorted(scores)
    assert len(set(scores)) == 4
