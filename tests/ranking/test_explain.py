"""render_reason: one plain sentence with the numbers a buyer checks."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest

from ranking.explain import ReasonFacts, render_money, render_reason, render_time_left

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
V100 = ReasonFacts(
    sku_name="V100 SXM2 16GB",
    landed=Decimal("139"),
    currency="USD",
    discount=0.31,
    baseline=Decimal("201"),
    baseline_count=48,
    baseline_source="sold",
    metric="compute",
    metric_basis="FP16",
    price_per_metric=4.4,
    value_rank=1,
    group_size=212,
    needs_host="SXM2",
)


def test_the_sentence_reads_like_the_buyers_guides():
    assert render_reason(V100) == (
        "V100 SXM2 16GB at $139 landed, 31% under the 30-day sold median of $201 (48 sales); "
        "$4.4 per FP16 TFLOP/s, best of 212 listings; needs an SXM2 server"
    )


@pytest.mark.parametrize(
    ("changes", "expected_part"),
    [
        ({"discount": -0.12}, "12% over the 30-day sold median of $201"),
        ({"discount": 0.001}, "at the 30-day sold median"),
        ({"baseline": None, "discount": None}, "$139 landed, no market price yet;"),
        ({"shipping_known": False}, "$139 before shipping (shipping unknown)"),
        ({"quantity": 4}, "$139 landed each (lot of 4)"),
        ({"upper_bound_count": 5, "presumed_count": 2},
         "(48 sales, 5 best-offer upper bounds, 2 presumed)"),
        ({"baseline_source": "active", "baseline_count": 7},
         "under the median asking price of $201 (7 active listings; too few sales)"),
        ({"value_rank": 3}, "$4.4 per FP16 TFLOP/s, #3 of 212 listings"),
        ({"metric": "bandwidth", "price_per_metric": 0.154}, "$0.15 per GB/s"),
        ({"metric": "vram", "price_per_metric": 8.69}, "$8.7 per GB VRAM"),
        ({"metric_basis": "FP32"}, "per FP32 TFLOP/s"),
        ({"needs_host": None}, "best of 212 listings"),
        ({"window_days": 14}, "the 14-day sold median"),
        ({"currency": "EUR"}, "at €139 landed"),
        ({"currency": "CHF"}, "at 139 CHF landed"),
        ({"converted_from": "EUR", "fx_rate": Decimal("1.08"), "fx_date": date(2026, 11, 1)},
         "$139 landed, converted from EUR at 1.08 of 2026-11-01, 31% under"),
        ({"auction": True, "end_time": NOW + timedelta(hours=5, minutes=30), "now": NOW},
         "V100 SXM2 16GB auction at $139 current bid landed, ends in 5h 30m, 31% under"),
        ({"not_a_deal": "for parts", "metric": None}, "(48 sales); needs an SXM2 server; "
         "for parts: not ranked as a deal"),
    ],
)  # fmt: skip
def test_each_fact_changes_the_sentence(changes, expected_part):
    assert expected_part in render_reason(replace(V100, **changes))


def test_a_server_is_compared_with_its_parts():
    facts = ReasonFacts(
        sku_name="Supermicro SYS-4028GR-TRT",
        landed=Decimal("1800"),
        currency="USD",
        discount=0.1,
        baseline=Decimal("2000"),
        baseline_count=3,
        baseline_source="sold",
        parts_value=Decimal("2000"),
        metric="slots",
        price_per_metric=75.0,
        value_rank=2,
        group_size=9,
    )
    assert render_reason(facts) == (
        "Supermicro SYS-4028GR-TRT at $1,800 landed, 10% under $2,000 for the same parts at "
        "market (3 sales); $75 per GPU slot, #2 of 9 listings"
    )


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        ("139.40", "$139"),
        ("1299.5", "$1,300"),
        ("45.5", "$45.50"),
        ("90", "$90"),
        ("0.99", "$0.99"),
    ],
)
def test_money_is_shown_the_way_listings_show_it(amount, shown):
    assert render_money(Decimal(amount), "USD") == shown


@pytest.mark.parametrize(
    ("delta", "shown"),
    [(timedelta(days=2, hours=4, minutes=59), "2d 4h"), (timedelta(minutes=42), "0h 42m"),
     (timedelta(seconds=-5), "ended")],
)  # fmt: skip
def test_time_left(delta, shown):
    assert render_time_left(NOW + delta, NOW) == shown
