"""The market reference: a robust weighted median of recent sales, and how far to trust it."""

from __future__ import annotations

import math
import random
from datetime import timedelta
from decimal import Decimal

import pytest

from core.settings import RankSettings
from ranking.market.sold import (
    SalePoint,
    _without_outliers,
    sale_weight,
    sales_days,
    sold_market,
    sold_markets,
    sold_median,
    weighted_median,
    with_asking,
)
from tests.support.rows import NOW, sales, sold

V100 = "nvidia-tesla-v100-sxm2-16gb"
P40 = "nvidia-tesla-p40"
RTX3090 = "nvidia-rtx-3090"
SETTINGS = RankSettings()
WEIGHTS = ("1", "0.5", "0.25")  # a sale, a best offer or a presumed sale, both


def market(rows, asking=None, settings=SETTINGS):
    return with_asking(sold_markets(rows, settings, now=NOW), asking or {}, settings)


@pytest.mark.parametrize(
    ("points", "expected"),
    [
        ([("100", "1"), ("200", "1")], "150"),
        ([("100", "1"), ("200", "1"), ("900", "1")], "200"),
        ([("100", "1"), ("200", "0.5"), ("300", "0.5")], "150"),
        ([("100", "0.25"), ("200", "1"), ("300", "1")], "200"),
        ([], None),
    ],
)
def test_weighted_median_is_the_ordinary_median_with_equal_weights(points, expected):
    got = weighted_median((Decimal(p), Decimal(w)) for p, w in points)
    assert got == (None if expected is None else Decimal(expected))


def _weighted_median_by_definition(points: list[tuple[Decimal, Decimal]]) -> Decimal:
    """The mean of the first price (cheapest first) whose running weight reaches half the
    total, and the first whose running weight passes it, walked one point at a time."""
    ordered = sorted(points)
    half = sum(w for _, w in ordered) / 2
    running, low, high = Decimal(0), None, None
    for price, weight in ordered:
        running += weight
        low = price if low is None and running >= half else low
        high = price if high is None and running > half else high
    return (low + (high if high is not None else ordered[-1][0])) / 2


@pytest.mark.parametrize("seed", range(6))
def test_the_weighted_median_is_the_mean_of_the_prices_at_half_the_weight(seed):
    rng = random.Random(seed)
    for _ in range(200):
        points = [
            (Decimal(rng.randrange(1, 60)), Decimal(rng.choice(WEIGHTS)))
            for _ in range(rng.randrange(1, 30))
        ]
        assert weighted_median(points) == _weighted_median_by_definition(points)


@pytest.mark.parametrize(
    ("best_offer", "source", "weight"),
    [(False, "page", "1"), (True, "page", "0.5"), (False, "presumed", "0.5"),
     (True, "presumed", "0.25")],
)  # fmt: skip
def test_upper_bound_and_presumed_sales_weigh_less(best_offer, source, weight):
    assert sale_weight(best_offer_accepted=best_offer, source=source) == Decimal(weight)


def test_the_reference_is_the_median_landed_unit_price_of_sales_in_the_window():
    rows = [
        sold(V100, "180", shipping="10"),
        sold(V100, "195", shipping="6"),
        sold(V100, "201"),
        sold(V100, "230"),
        sold(V100, "250", shipping="15"),
        sold(V100, "999", days_ago=45),  # outside the 30-day window
        sold(V100, "400", quantity=2),  # a lot of 2: 200 each
    ]

    ref = market(rows)[V100]

    assert (ref.median, ref.count, ref.source) == (Decimal("201.00"), 6, "sold")
    assert ref.q1 <= ref.median <= ref.q3


def test_a_few_sales_far_above_the_rest_do_not_lift_the_reference():
    # The guides' RTX 3090: most sell near $700; three "new sealed" sales at $1,000+.
    rows = sales(RTX3090, "660", "680", "690", "700", "705", "720", "730", "745", "760", "780")
    rows += sales(RTX3090, "1020", "1050", "1100")

    ref = market(rows)[RTX3090]

    assert ref.outliers == 3
    assert Decimal(700) <= ref.median <= Decimal(730)
    assert ref.evidence == "strong"


def test_best_offer_sales_count_half_and_are_counted():
    rows = sales(V100, "200", "210", "220") + sales(V100, "260", "270", best_offer_accepted=True)

    ref = market(rows)[V100]

    # unweighted the median would be 220; the two upper bounds count half each
    assert ref.median == Decimal("215.00")
    assert (ref.count, ref.upper_bound_count, ref.presumed_count) == (5, 2, 0)


@pytest.mark.parametrize(
    ("prices", "evidence"),
    [
        (["190", "195", "200", "205", "210", "212", "215", "220"], "strong"),  # 8 close sales
        (["190", "200", "210"], "thin"),  # 3 sales
        (["190", "200", "210", "215", "220", "230", "240"], "thin"),  # 7 sales
        (["100", "110", "120", "200", "210", "220", "330", "340"], "thin"),  # 8, spread too wide
    ],
    ids=["eight-close-sales", "three-sales", "seven-sales", "eight-spread-sales"],
)
def test_the_evidence_tier_follows_the_number_of_sales_and_their_spread(prices, evidence):
    assert market(sales(V100, *prices))[V100].evidence == evidence


def test_too_few_sales_fall_back_to_asking_prices_marked_as_such():
    rows = sales(P40, "150", "160")
    asking = {P40: [Decimal("180"), Decimal("200"), Decimal("220")]}

    ref = market(rows, asking)[P40]

    assert (ref.median, ref.count, ref.source, ref.evidence) == (
        Decimal("200.00"), 3, "asking", "asking",
    )  # fmt: skip
    assert ref.weight < market(sales(P40, "190", "200", "210"))[P40].weight


def test_with_neither_sales_nor_asking_prices_there_is_no_reference():
    assert market(sales(P40, "150", "160"), {P40: [Decimal("180")]}) == {}


def test_foreign_sales_are_converted_and_unknown_currencies_left_out():
    rows = [*sales(P40, "100", "110", "120", currency="EUR"), sold(P40, "5", currency="JPY")]
    settings = RankSettings(fx_rates={"USD": Decimal(1), "EUR": Decimal("1.10")})

    ref = market(rows, settings=settings)[P40]

    assert (ref.median, ref.count) == (Decimal("121.00"), 3)


def test_the_window_is_counted_back_from_now():
    rows = [*sales(P40, "150", "155", "160", days_ago=29), sold(P40, "900", days_ago=31)]

    ref = market(rows)[P40]

    assert (ref.median, ref.count) == (Decimal("155.00"), 3)


def test_the_day_s_own_sales_make_the_next_day_s_market_not_today_s():
    """Today's markets read the window's days before today: an auction that ends today (a
    fast-lane pass closes it as presumed sold) moves no price until tomorrow; the window's
    first day is still in it."""
    rows = [
        *sales(P40, "150", "155", "160", days_ago=1),
        sold(P40, "156", days_ago=30),  # the window's first day
        *sales(P40, "158", "159", days_ago=0),  # sold today
    ]
    today = market(rows)[P40]
    tomorrow = sold_markets(rows, SETTINGS, now=NOW + timedelta(days=1))[P40]

    assert (today.median, today.count) == (Decimal("155.50"), 4)
    assert (tomorrow.median, tomorrow.count) == (Decimal("158.00"), 5)  # 156 left the window
    assert sales_days(NOW.date(), 30).first == (NOW - timedelta(days=30)).date()


@pytest.mark.parametrize("seed", range(6))
def test_a_market_is_the_same_whatever_order_its_sales_come_in(seed):
    """Equal prices at different weights (best offers, presumed sales) in any order make the
    same median, quartiles and outliers: the market must not depend on how rows were read."""
    rng = random.Random(seed)
    weights = [Decimal(1), Decimal(1), Decimal("0.5"), Decimal("0.25")]
    points = [
        SalePoint(Decimal(rng.choice((300, 320, 320, 340, 360, 900))), rng.choice(weights))
        for _ in range(rng.randrange(5, 40))
    ]
    market = sold_market(V100, points, SETTINGS)
    median = sold_median((p.price, p.weight) for p in points)
    for _ in range(5):
        rng.shuffle(points)
        assert sold_market(V100, points, SETTINGS) == market
        assert sold_median((p.price, p.weight) for p in points) == median


def _without_outliers_by_definition(points: list[SalePoint]) -> list[SalePoint]:
    """The outlier rule in Decimal, as the market's docstring states it."""
    if len(points) < 5:
        return points
    logs = [(Decimal(math.log(p.price)), p.weight) for p in points]
    center = weighted_median(logs)
    assert center is not None
    mad = weighted_median((abs(x - center), w) for x, w in logs) or Decimal(0)
    limit = max(3.0 * 1.4826 * float(mad), math.log(1.35))
    return [p for p, (x, _) in zip(points, logs, strict=True) if abs(float(x - center)) <= limit]


@pytest.mark.parametrize("seed", range(4))
def test_the_outliers_left_out_are_those_of_the_rule_in_decimal(seed):
    """The rule runs on floats (a market of thousands of sales is computed in a blink); it
    keeps and drops the same sales as the rule computed in Decimal, ties and halves included."""
    rng = random.Random(seed)
    for _ in range(150):
        count = rng.choice([5, 6, 9, 40, 400])
        spread = rng.choice([0.05, 0.3, 1.0])
        prices = [round(rng.lognormvariate(5.5, spread), rng.choice([0, 2])) for _ in range(count)]
        prices += [rng.choice(prices) * rng.choice([1, 1.35, 3]) for _ in range(count // 5)]
        points = [
            SalePoint(Decimal(str(p)).quantize(Decimal("0.01")), Decimal(rng.choice(WEIGHTS)))
            for p in prices
            if p > 0
        ]
        assert _without_outliers(points) == _without_outliers_by_definition(points)
