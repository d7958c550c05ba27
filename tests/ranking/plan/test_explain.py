"""A plan's sentence: why it comes before the next plan, and where a cheaper rig is listed."""

from __future__ import annotations

from decimal import Decimal

from ranking.plan.explain import explain_plans
from ranking.plan.records import Plan, PlanPart


def _plan(total: str, bandwidth: float, name: str) -> Plan:
    part = PlanPart(role="host", sku=name, name=name, units=1, price=Decimal(total), item_id="1")
    return Plan(
        total=Decimal(total),
        currency="USD",
        host=part,
        gpu_sku="gpu",
        gpu_name="GPU",
        cards=4,
        gpus=(),
        vram_gb=64,
        fp16_tflops=100,
        bandwidth_gbs=bandwidth,
        per_vram_gb=None,
        per_fp16_tflops=None,
        topology="nvlink",
        auctions=0,
        measure="bandwidth_gbs",
        order=float(total) / bandwidth,  # llm-inference: money per GB/s, best first
    )


def test_a_cheaper_rig_listed_further_down_is_named_once_with_why_it_comes_later():
    """Ordered by the profile, the $900 rig comes fourth: "less than the next plan" alone
    would let a buyer think $2,000 is the next-cheapest way to 64 GB."""
    plans = [
        _plan("1000", 3600, "fast"),
        _plan("2000", 6000, "faster"),
        _plan("3000", 5000, "dear"),
        _plan("900", 900, "slow"),
    ]
    first, second, third, last = (p.explanation for p in explain_plans(plans))
    assert first.startswith("64 GB of VRAM for $1,000: $1,000 less than the next plan, faster")
    assert first.endswith(
        "#4, slow + 4x GPU at $900.00 costs $100.00 less but comes after it: "
        "4.0x the memory bandwidth (3.6x per dollar)."
    )
    assert "#4" not in second  # said once, by the first plan it concerns
    assert "#4" not in third  # the next plan itself: the main sentence names it
    assert "cheapest" not in last


def test_the_cheapest_plan_says_how_much_more_the_next_cheapest_costs():
    plans = [_plan("500", 3600, "cheap"), _plan("2000", 6000, "faster"), _plan("900", 900, "slow")]
    first = explain_plans(plans)[0].explanation
    assert first.endswith(
        "The cheapest plan below it is #3, slow + 4x GPU at $900.00: $400.00 more."
    )


def test_a_list_by_price_never_points_further_down():
    plans = sorted(
        [_plan("500", 3600, "cheap"), _plan("2000", 6000, "faster"), _plan("900", 900, "slow")],
        key=lambda p: p.total,
    )
    assert not any("#" in p.explanation for p in explain_plans(plans))
