"""render_reason: one plain sentence with the numbers a buyer checks, and how far to trust them."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest

from ranking.market.sold import Market
from ranking.sentences import ReasonFacts, render_reason

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
# 48 sales, quartiles $183 and $219 around $201: spread (219 - 183) / 201 = 18 %, ±9 %.
SOLD = Market(
    sku="v100-sxm2-16gb",
    median=Decimal("201"),
    q1=Decimal("183"),
    q3=Decimal("219"),
    count=48,
    evidence="strong",
    source="sold",
)
ASKING = Market(
    sku="v100-sxm2-16gb",
    median=Decimal("201"),
    q1=Decimal("190"),
    q3=Decimal("230"),
    count=7,
    evidence="asking",
    source="asking",
)
V100 = ReasonFacts(
    sku_name="V100 SXM2 16GB",
    landed=Decimal("139"),
    currency="USD",
    discount=0.31,
    baseline=Decimal("201"),
    market=SOLD,
    metric="compute",
    metric_basis="FP16 tensor",
    price_per_metric=1.1,
    value_rank=1,
    group_size=212,
    needs_host="SXM2",
)


def test_the_sentence_reads_like_the_buyers_guides():
    assert render_reason(V100) == (
        "V100 SXM2 16GB at $139.00 landed, 31% under the 30-day sold median of $201.00 "
        "(48 sales in 30 days, spread ±9%: strong evidence); "
        "$1.1 per FP16 tensor TFLOP/s, best of 212 listings; needs an SXM2 server"
    )


@pytest.mark.parametrize(
    ("changes", "expected_part"),
    [
        ({"discount": -0.12}, "12% over the 30-day sold median of $201.00"),
        ({"discount": 0.001}, "at the 30-day sold median"),
        ({"shipping_known": False}, "$139.00 before shipping (shipping unknown)"),
        ({"quantity": 4}, "$139.00 landed each (lot of 4)"),
        ({"value_rank": 3}, "$1.1 per FP16 tensor TFLOP/s, #3 of 212 listings"),
        ({"metric": "bandwidth", "price_per_metric": 0.154}, "$0.15 per GB/s"),
        ({"metric": "vram", "price_per_metric": 8.69}, "$8.7 per GB VRAM"),
        ({"metric_basis": "FP32"}, "per FP32 TFLOP/s"),
        ({"metric_basis": None}, "per FP16 TFLOP/s"),
        ({"needs_host": None}, "best of 212 listings"),
        ({"currency": "EUR"}, "at €139.00 landed"),
        ({"currency": "CHF"}, "at 139.00 CHF landed"),
        ({"converted_from": "EUR", "fx_rate": Decimal("1.08"), "fx_date": date(2026, 11, 1)},
         "$139.00 landed, converted from EUR at 1.08 of 2026-11-01, 31% under"),
        ({"not_a_deal": "for parts", "metric": None},
         "strong evidence); needs an SXM2 server; for parts: not ranked as a deal"),
    ],
)  # fmt: skip
def test_each_fact_changes_the_sentence(changes, expected_part):
    assert expected_part in render_reason(replace(V100, **changes))


@pytest.mark.parametrize(
    ("market", "expected_part"),
    [
        (replace(SOLD, count=5, evidence="thin"),
         "(5 sales in 30 days, spread ±9%: thin evidence)"),
        (replace(SOLD, q1=Decimal("120"), q3=Decimal("260"), evidence="thin"),
         "(48 sales in 30 days, spread ±35%: thin evidence)"),
        (replace(SOLD, count=1, evidence="thin"), "(1 sale in 30 days,"),
        (replace(SOLD, upper_bound_count=5, presumed_count=2),
         "(48 sales in 30 days, 5 best-offer upper bounds, 2 presumed, spread ±9%: "
         "strong evidence)"),
        (replace(SOLD, upper_bound_count=1), "(48 sales in 30 days, 1 best-offer upper bound, "),
        (replace(SOLD, outliers=3), "spread ±9%, 3 outliers left out: strong evidence)"),
        (replace(SOLD, outliers=1), "spread ±9%, 1 outlier left out: strong evidence)"),
        (replace(SOLD, window_days=14),
         "the 14-day sold median of $201.00 (48 sales in 14 days,"),
        (ASKING, "31% under the median asking price of $201.00 "
         "(7 asking prices, too few sales: weak evidence)"),
        (replace(ASKING, count=1), "(1 asking price, too few sales: weak evidence)"),
    ],
)  # fmt: skip
def test_the_sentence_says_how_strong_the_market_evidence_is(market, expected_part):
    sentence = render_reason(replace(V100, market=market))

    assert expected_part in sentence


def test_asking_prices_never_read_as_a_sold_median():
    sentence = render_reason(replace(V100, market=ASKING))

    assert "sold median" not in sentence
    assert "sales in" not in sentence
    assert "strong evidence" not in sentence


@pytest.mark.parametrize(
    "changes",
    [
        {"market": None},
        {"baseline": None, "discount": None},
        {"discount": None},
    ],
)
def test_without_a_market_price_no_discount_is_claimed(changes):
    sentence = render_reason(replace(V100, **changes))

    assert sentence.startswith(
        "V100 SXM2 16GB at $139.00 landed, no market price yet (no discount counted); "
    )
    assert "under" not in sentence
    assert "evidence" not in sentence


def test_a_running_auction_reads_as_its_current_bid_and_its_likely_end():
    facts = replace(
        V100,
        sku_name="V100",
        landed=Decimal("132"),
        auction=True,
        current_bid=Decimal("108"),
        predicted_low=Decimal("125"),
        predicted_high=Decimal("140"),
        end_time=NOW + timedelta(days=5, hours=11),
        now=NOW,
        discount=0.34,
    )

    assert render_reason(facts).startswith(
        "V100 auction: current bid $108.00, 5d 11h left, likely to end near $125.00–$140.00 "
        "(landed; ranked at $132.00), 34% under the 30-day sold median of $201.00 "
        "(48 sales in 30 days, spread ±9%: strong evidence)"
    )


@pytest.mark.parametrize(
    ("changes", "expected_part"),
    [
        ({"predicted_low": Decimal("130"), "predicted_high": Decimal("130.004")},
         "likely to end near $130.00 (landed; ranked at $132.00)"),
        ({"end_time": NOW + timedelta(hours=5, minutes=30)}, "current bid $108.00, 5h 30m left,"),
        ({"end_time": None}, "current bid $108.00, likely to end near"),
        ({"end_time": NOW - timedelta(minutes=5)}, "current bid $108.00, ended, likely to end near"),
        ({"quantity": 2}, "current bid $108.00 each (lot of 2), 5d 11h left"),
        ({"predicted_low": None, "predicted_high": None},
         "V100 auction: current bid $108.00, 5d 11h left (landed), 34% under"),
        ({"current_bid": None, "predicted_low": None, "predicted_high": None},
         "V100 auction: current bid $132.00, 5d 11h left (landed)"),
        ({"freight_estimated": True},
         "likely to end near $125.00–$140.00 (landed with estimated freight; ranked at $132.00)"),
    ],
)  # fmt: skip
def test_each_auction_fact_changes_the_sentence(changes, expected_part):
    auction = replace(
        V100,
        sku_name="V100",
        landed=Decimal("132"),
        auction=True,
        current_bid=Decimal("108"),
        predicted_low=Decimal("125"),
        predicted_high=Decimal("140"),
        end_time=NOW + timedelta(days=5, hours=11),
        now=NOW,
        discount=0.34,
    )

    assert expected_part in render_reason(replace(auction, **changes))


def test_estimated_freight_is_named_and_wins_over_unknown_shipping():
    estimated = render_reason(replace(V100, freight_estimated=True))
    both = render_reason(replace(V100, freight_estimated=True, shipping_known=False))

    assert estimated.startswith(
        "V100 SXM2 16GB at $139.00 landed with estimated freight, 31% under"
    )
    assert both.startswith("V100 SXM2 16GB at $139.00 landed with estimated freight, 31% under")
    assert "shipping unknown" not in both


def test_a_dual_gpu_board_says_its_vram_is_not_pooled():
    k80 = ReasonFacts(
        sku_name="Tesla K80 24GB",
        landed=Decimal("45.5"),
        currency="USD",
        discount=0.2,
        baseline=Decimal("57"),
        market=replace(SOLD, sku="k80", median=Decimal("57"), q1=Decimal("52"), q3=Decimal("62")),
        metric="vram",
        price_per_metric=3.79,
        value_rank=2,
        group_size=30,
        devices=2,
    )

    assert render_reason(k80) == (
        "Tesla K80 24GB at $45.50 landed, 20% under the 30-day sold median of $57.00 "
        "(48 sales in 30 days, spread ±9%: strong evidence); $3.8 per GB VRAM, #2 of 30 listings; "
        "2 GPUs on one board: each is its own device, VRAM is not pooled"
    )
    assert "one board" not in render_reason(replace(k80, devices=1))


def _server(**changes: object) -> ReasonFacts:
    facts = ReasonFacts(
        sku_name="Supermicro SYS-4028GR-TRT",
        landed=Decimal("1800"),
        currency="USD",
        discount=0.1,
        baseline=Decimal("2000"),
        market=replace(
            SOLD, sku="sys-4028gr-trt", median=Decimal("600"), q1=Decimal("560"),
            q3=Decimal("656"), count=3, evidence="thin",
        ),
        parts_value=Decimal("2000"),
        metric="slots",
        price_per_metric=75.0,
        value_rank=2,
        group_size=9,
    )  # fmt: skip
    return replace(facts, **changes)


def test_a_server_is_compared_with_its_parts():
    assert render_reason(_server()) == (
        "Supermicro SYS-4028GR-TRT at $1,800 landed, 10% under $2,000 for the same parts at "
        "market (3 sales in 30 days, spread ±8%: thin evidence); $75 per GPU slot, "
        "#2 of 9 listings"
    )


@pytest.mark.parametrize(
    ("topology", "expected_part"),
    [
        ("split-root",
         "; split (dual-root) PCIe: GPUs on different CPUs talk through the CPU link"),
        ("single-root", "; single-root PCIe: every GPU talks peer-to-peer"),
        ("nvlink", "; NVLink between its GPUs"),
    ],
)  # fmt: skip
def test_a_server_names_how_its_gpus_talk(topology, expected_part):
    sentence = render_reason(_server(topology=topology))

    assert sentence.endswith(f"#2 of 9 listings{expected_part}")


@pytest.mark.parametrize("topology", [None, "unknown-layout"])
def test_an_unknown_topology_adds_nothing(topology):
    assert render_reason(_server(topology=topology)).endswith("$75 per GPU slot, #2 of 9 listings")


def test_risk_flags_are_listed_after_the_caveats_before_the_parts_note():
    flags = ("title says 'read description'", "seller has 3 feedback")

    sentence = render_reason(replace(V100, flags=flags))
    parts = render_reason(replace(V100, flags=flags, not_a_deal="for parts"))

    assert sentence.endswith(
        "best of 212 listings; needs an SXM2 server; "
        "title says 'read description'; seller has 3 feedback"
    )
    assert parts.endswith(
        "needs an SXM2 server; title says 'read description'; seller has 3 feedback; "
        "for parts: not ranked as a deal"
    )


def test_every_caveat_comes_in_a_fixed_order():
    sentence = render_reason(
        _server(
            devices=2,
            needs_host="SXM2",
            topology="nvlink",
            flags=("check before buying: 40% under market",),
            not_a_deal="accessory",
        )
    )

    assert sentence.split("; ")[1:] == [
        "$75 per GPU slot, #2 of 9 listings",
        "2 GPUs on one board: each is its own device, VRAM is not pooled",
        "needs an SXM2 server",
        "NVLink between its GPUs",
        "check before buying: 40% under market",
        "accessory: not ranked as a deal",
    ]
