"""The rig planner, checked by hand against the buyer's guides (../shared/guides)."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from decimal import Decimal

import pytest

from bench.plan_exhaustive import plan_rigs_exhaustive
from core.errors import ConfigError
from core.models import Category, Included, ServerConfig
from ranking.catalog import load_catalog
from ranking.plan.records import Offer, Plan, PlanPart, Target
from ranking.plan.rules import load_plan_rules
from ranking.plan.search import dominates, plan_rigs, select_plans

SKUS = {s.sku: s for s in load_catalog()}
RULES = load_plan_rules()
T181 = "gigabyte-t181-g20"
V100_SXM2 = "nvidia-tesla-v100-sxm2-16gb"
RTX3090 = "nvidia-rtx-3090"
_ids = iter(range(1, 1_000_000))
# A server listing that comes with all it needs to run (CPUs, RAM, GPU heatsinks, the T181's
# power shelf): its plans cost what the host and GPUs cost. tests/ranking/plan/test_bom.py
# checks what a plan adds for a host that does not.
READY = ServerConfig(heatsinks="yes", cpus=2, cpu_model="Gold 6138", ram_gb=192, power_shelf=True)


def offer(sku: str, price: str, units: int = 1, **kw: object) -> Offer:
    """A listing of ``units`` at ``price`` landed each (a server: ``READY`` unless told)."""
    n = next(_ids)
    if SKUS[sku].category is Category.SERVER:
        kw.setdefault("config", READY)
    return Offer(
        listing_id=n,
        item_id=str(100000 + n),
        url=f"https://www.ebay.com/itm/{100000 + n}",
        title=str(kw.pop("title", sku)),
        sku=sku,
        units=units,
        unit_price=Decimal(price),
        **kw,  # type: ignore[arg-type]
    )


def plans_for(offers: list[Offer], **target: object) -> list:
    return plan_rigs(offers, SKUS, RULES, Target(**target))  # type: ignore[arg-type]


def gpus_of(plan) -> list[str]:
    return [g.sku for g in plan.gpus]


def test_64gb_for_1500_a_t181_with_four_v100_sxm2_beats_3090s_in_a_workstation():
    # Guide 000: a T181-G20 and four V100 SXM2 16GB make a 64 GB node; 3090s cost far more.
    offers = [offer(T181, "900"), *[offer(V100_SXM2, "150") for _ in range(5)]]
    offers += [offer(RTX3090, "700") for _ in range(4)]
    plans = plans_for(offers, vram_gb=64, budget=Decimal(1500))
    assert len(plans) == 1  # three 3090s (72 GB) cost $2,100: over the budget
    best = plans[0]
    assert (best.host.sku, best.gpu_sku, best.cards) == (T181, V100_SXM2, 4)
    assert best.total == Decimal("1500.00")
    assert best.vram_gb == 64
    assert best.topology == "nvlink"
    assert best.bom == ()  # it came with its power shelf, CPUs, RAM and heatsinks


def test_when_the_server_is_expensive_three_3090s_in_your_workstation_win():
    offers = [offer(T181, "3000"), *[offer(V100_SXM2, "150") for _ in range(4)]]
    offers += [offer(RTX3090, "700") for _ in range(4)]
    first, second = plans_for(offers, vram_gb=64)
    assert (first.host.sku, first.gpu_sku, first.cards) == ("workstation", RTX3090, 3)
    assert first.total == Decimal("2100.00")  # 3 x $700: 72 GB, your own PC costs nothing
    assert first.host.item_id is None
    assert (second.host.sku, second.total) == (T181, Decimal("3600.00"))
    assert first.explanation.startswith("72 GB of VRAM for $2,100: $1,500 less than the next plan")


def test_four_3090s_fit_a_1600_w_workstation_only_power_limited():
    # Guide 003: 4 x 3090 power-limited by 20 % draw 1120 W and fit a 1600 W PSU.
    offers = [offer(RTX3090, "700") for _ in range(4)]
    (plan,) = plans_for(offers, vram_gb=96)
    assert plan.cards == 4
    assert any(w.startswith("power-limit the cards to 80% of TDP") for w in plan.warnings)
    assert "4 cards in a desktop need riser cables or an open frame" in plan.warnings


def test_four_4090s_are_too_much_for_a_1600_w_workstation_even_power_limited():
    offers = [offer("nvidia-rtx-4090", "1800") for _ in range(4)]
    assert plans_for(offers, vram_gb=96) == []
    assert plans_for(offers, vram_gb=96, workstation=_ws(psu_watts=2400))[0].cards == 4


def _ws(**changes: object):

    return replace(RULES.workstation, **changes)


def test_sxm2_modules_are_never_offered_for_a_pcie_host():
    offers = [offer("asus-esc4000-g3", "300"), *[offer(V100_SXM2, "100") for _ in range(4)]]
    assert plans_for(offers, vram_gb=32) == []  # no SXM2 host: neither the ESC4000 nor your PC
    offers.append(offer(T181, "800"))
    plans = plans_for(offers, vram_gb=32)
    assert [(p.host.sku, p.gpu_sku) for p in plans] == [(T181, V100_SXM2)]


def test_an_eight_slot_host_is_never_given_nine_cards():
    host = "supermicro-sys-4028gr-trt2"
    offers = [offer(host, "1000"), *[offer("nvidia-tesla-p40", "200") for _ in range(12)]]
    assert plans_for(offers, vram_gb=200) == []  # 9 x 24 GB would need a ninth slot
    (plan,) = plans_for(offers, vram_gb=192)
    assert plan.cards == 8 and plan.total == Decimal("2600.00")


def test_passive_server_cards_stay_out_of_a_workstation_and_3_slot_cards_out_of_servers():
    # Guide 002: passive Tesla cards need server airflow; a 3090 is three slots wide.
    offers = [offer("nvidia-tesla-p40", "200") for _ in range(3)]
    assert plans_for(offers, vram_gb=48) == []
    offers = [offer("asus-esc4000-g3", "300"), *[offer(RTX3090, "700") for _ in range(2)]]
    assert [p.host.sku for p in plans_for(offers, vram_gb=48)] == ["workstation"]


def test_lots_count_per_unit_and_listings_of_one_sku_combine():
    lot = offer(V100_SXM2, "120", units=3, title="Lot of 3 V100 SXM2")
    single = offer(V100_SXM2, "130")
    dear = offer(V100_SXM2, "140")
    (plan,) = plans_for([offer(T181, "700"), lot, single, dear], vram_gb=64)
    assert [(g.units, g.price) for g in plan.gpus] == [
        (1, Decimal("130.00")),
        (3, Decimal("360.00")),
    ]
    assert plan.total == Decimal("1190.00")


def test_a_server_sold_with_gpus_counts_them():
    with_p40 = offer("asus-esc4000-g3", "1586", includes=(Included("nvidia-tesla-p40", 4),))
    plans = plans_for([with_p40], vram_gb=96)
    assert [(p.host.sku, p.gpu_sku, p.cards, p.gpus) for p in plans] == [
        ("asus-esc4000-g3", "nvidia-tesla-p40", 4, ())
    ]
    assert plans[0].host.included == 4


def test_auctions_are_planned_at_their_predicted_end_and_can_be_capped():
    auction = offer(T181, "600", price_basis="predicted")
    fixed = offer(T181, "800")
    modules = [offer(V100_SXM2, "100") for _ in range(4)]
    (plan,) = plans_for([auction, fixed, *modules], vram_gb=64)
    assert plan.total == Decimal("1000.00")
    assert any(w.startswith("auction not yet won") for w in plan.warnings)
    (plan,) = plans_for([auction, fixed, *modules], vram_gb=64, max_auctions=0)
    assert plan.total == Decimal("1200.00") and plan.auctions == 0


def test_training_prefers_nvlink_over_a_cheaper_split_root_server():
    pcie = "nvidia-tesla-v100-pcie-16gb"
    offers = [offer(T181, "900"), offer("supermicro-sys-4028gr-trt", "400")]
    offers += [offer(V100_SXM2, "100") for _ in range(4)]
    offers += [offer(pcie, "200") for _ in range(4)]
    inference = plans_for(offers, vram_gb=64)
    training = plans_for(offers, vram_gb=64, profile="training")
    assert inference[0].host.sku == "supermicro-sys-4028gr-trt"  # $1,200 < $1,300
    assert training[0].host.sku == T181  # $1,300 / 1.0 NVLink < $1,200 / 0.6 split root
    assert "but 1.1x the FP16 TFLOP/s: 1.7x per dollar once its topology counts" in (
        training[0].explanation
    )


def test_training_never_plans_fp32_only_cards_and_fp16_targets_are_met():
    offers = [
        offer("asus-esc4000-g3", "300"),
        *[offer("nvidia-tesla-p40", "200") for _ in range(4)],
    ]
    assert plans_for(offers, vram_gb=48, profile="training") == []
    assert plans_for(offers, vram_gb=48, fp16_tflops=10) == []
    assert plans_for(offers, vram_gb=48)[0].cards == 2


def test_each_listing_s_warning_flags_are_the_plan_s_warnings_under_its_item():
    no_heatsink = ("sold without heatsinks: budget them",)  # the ranker's flag (flags.toml)
    modules = [offer(V100_SXM2, "100", notes=no_heatsink) for _ in range(4)]
    host = offer(T181, "700", notes=no_heatsink)
    (plan,) = plans_for([host, *modules], vram_gb=64)
    heatsinks = [w for w in plan.warnings if w.endswith(": sold without heatsinks: budget them")]
    (line,) = heatsinks  # one line names every listing the note applies to, the host first
    assert line.startswith(f"items {host.item_id}, ")
    assert all(str(m.item_id) in line for m in modules)


def test_bad_targets_are_clear_errors():
    with pytest.raises(ConfigError, match="VRAM target must be positive"):
        plans_for([], vram_gb=0)
    with pytest.raises(ConfigError, match="unknown ranking profile"):
        plans_for([offer(RTX3090, "700")], vram_gb=24, profile="gaming")


@pytest.mark.parametrize("seed", range(12))
def test_the_planner_finds_what_an_exhaustive_search_finds(seed: int):
    rng = random.Random(seed)
    hosts = [T181, "asus-esc4000-g3", "supermicro-sys-4028gr-trt2", "dell-poweredge-c4140"]
    gpus = [V100_SXM2, "nvidia-tesla-v100-sxm2-32gb", RTX3090, "nvidia-tesla-p100-pcie-16gb"]
    configs = [READY, ServerConfig(heatsinks="no"), ServerConfig(cpus=2, ram_gb=64)]
    offers = [
        offer(rng.choice(hosts), str(rng.randint(300, 2000)), config=rng.choice(configs))
        for _ in range(4)
    ]
    offers += [
        offer(
            rng.choice(gpus),
            str(rng.randint(80, 800)),
            units=rng.choice([1, 1, 1, 2, 4]),
            price_basis=rng.choice(["fixed", "fixed", "predicted"]),
            heatsink=rng.choice(["yes", "no", "unknown"]),
        )
        for _ in range(11)
    ]
    target = Target(
        vram_gb=rng.choice([32, 64, 96]),
        max_auctions=rng.choice([None, 0, 1]),
        budget=rng.choice([None, Decimal(2500)]),
        limit=10,
    )
    fast = plan_rigs(offers, SKUS, RULES, target)
    slow = plan_rigs_exhaustive(offers, SKUS, RULES, target)
    assert [(p.host.sku, p.gpu_sku, p.total) for p in fast] == [
        (p.host.sku, p.gpu_sku, p.total) for p in slow
    ]


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ({"gpus": 0}, "gpus must be at least 1, not 0"),
        ({"max_auctions": -1}, "max-auctions must be at least 0, not -1"),
        ({"limit": 0}, "limit must be at least 1, not 0"),
        ({"budget": Decimal(0)}, "the budget must be positive"),
        ({"form_factor": "oam"}, "form factor must be one of any, pcie, sxm2, sxm4"),
    ],
)
def test_out_of_range_options_are_clear_errors(target, message):
    with pytest.raises(ConfigError, match=message):
        plans_for([], vram_gb=64, **target)


def test_an_exact_card_count_is_honoured():
    offers = [offer(T181, "700"), *[offer("nvidia-tesla-v100-sxm2-32gb", "400") for _ in range(4)]]
    (plan,) = plans_for(offers, vram_gb=64, gpus=4)
    assert plan.cards == 4 and plan.vram_gb == 128


def test_consumer_cards_in_a_server_carry_a_warning():
    offers = [
        offer("supermicro-sys-4028gr-trt2", "900"),
        *[offer("nvidia-rtx-3060-12gb", "200") for _ in range(6)],
    ]
    assert plans_for(offers, vram_gb=72) == []  # llm-inference: 16 GB a card at least
    plans = plans_for(offers, vram_gb=72, profile="capacity")
    server = next(p for p in plans if p.host.sku != "workstation")
    assert any(w.startswith("fan-cooled cards in a server") for w in server.warnings)


def test_a_workstation_without_slots_is_a_clear_error():
    with pytest.raises(ConfigError, match="workstation's slots"):
        plans_for([], vram_gb=24, workstation=_ws(gpu_slots=0))


def test_the_last_plan_tells_you_to_raise_the_limit_only_when_there_are_more():
    offers = [offer(T181, "3000"), *[offer(V100_SXM2, "150") for _ in range(4)]]
    offers += [offer(RTX3090, "700") for _ in range(4)]
    *_, last_of_all = plans_for(offers, vram_gb=64)
    assert "raise --limit" not in last_of_all.explanation
    assert last_of_all.explanation.endswith(
        "no other rig reaches this target from today's listings."
    )
    (only,) = plans_for(offers, vram_gb=64, limit=1)
    assert only.explanation.endswith("the last plan shown (raise --limit to see more).")


def _plan_of(total: str, vram: float, fp16: float, bandwidth: float, name: str, gpu: str) -> Plan:
    part = PlanPart(role="host", sku=name, name=name, units=1, price=Decimal(total))
    return Plan(
        total=Decimal(total),
        currency="USD",
        host=part,
        gpu_sku=gpu,
        gpu_name=gpu,
        cards=4,
        gpus=(),
        vram_gb=vram,
        fp16_tflops=fp16,
        bandwidth_gbs=bandwidth,
        per_vram_gb=None,
        per_fp16_tflops=None,
        topology="nvlink",
        auctions=0,
        order=float(total) / bandwidth,  # llm-inference: money per GB/s
    )


def test_a_plan_beaten_on_price_and_every_measure_is_never_shown_without_its_better():
    """The best host per GPU model comes first, so a $1,800 V100 PCIe plan was shown while a
    $1,238 SXM2 node with more FP16 and the same bandwidth (a second host for its GPU) was
    left out: the better plan takes its place."""
    first_sxm2 = _plan_of("1000", 64, 500, 3000, "t181", "v100-sxm2")
    node = _plan_of("1238", 64, 500, 3600, "sxm2-node", "v100-sxm2")
    pcie = _plan_of("1800", 64, 448, 3600, "c4140", "v100-pcie")
    assert dominates(node, pcie) and not dominates(pcie, node)
    assert not dominates(first_sxm2, pcie)  # cheaper but less bandwidth: both have a case
    plans = [first_sxm2, node, pcie]
    assert [p.host.sku for p in select_plans(plans, 2)] == ["t181", "sxm2-node"]
    # room for all three: the dominated plan is shown, beside the plan that beats it
    assert [p.host.sku for p in select_plans(plans, 3)] == ["t181", "sxm2-node", "c4140"]
    assert [p.host.sku for p in select_plans(plans, 3, sort="price")] == [
        "t181", "sxm2-node", "c4140",
    ]  # fmt: skip
    cheap = _plan_of("700", 64, 70, 2900, "esc4000", "p100")
    assert [p.host.sku for p in select_plans([*plans, cheap], 2, sort="price")] == [
        "esc4000", "t181",
    ]  # fmt: skip


def test_a_plan_over_p40s_says_their_fp16_is_crippled_not_a_ratio():
    """P40s run FP16 at 1/64 of FP32: a plan against them has real FP16, not "830x" it."""
    host = offer("asus-esc4000-g3", "300")
    offers = [host, *[offer("nvidia-tesla-p40", "150") for _ in range(4)]]
    offers += [offer("nvidia-tesla-p100-pcie-16gb", "200") for _ in range(4)]
    plans = plans_for(offers, vram_gb=64, limit=5)
    p100 = next(p for p in plans if p.gpu_sku == "nvidia-tesla-p100-pcie-16gb")
    assert "usable FP16" in p100.explanation
    assert "runs FP16 at a small fraction of its FP32 rate" in p100.explanation
    assert not re.search(r"\d{2,}x the FP16", p100.explanation)


NEW_ACCOUNT = ("seller_low_feedback", "new_account_pattern")


@pytest.mark.parametrize(
    ("trusted_price", "chosen", "note"),
    [
        ("1050", "trusted", "chosen over the same machine $150.00 cheaper from a riskier seller"),
        ("1300", "risky", "the same machine from a 12,104-feedback seller: +$400.00"),
    ],
    ids=["within the margin", "beyond it"],
)
def test_a_new_accounts_server_heads_no_plan_while_a_trusted_one_is_close(
    trusted_price: str, chosen: str, note: str
):
    """A 2-feedback new account's server headed every plan while a 12,104-feedback seller
    offered the same machine for a little more: within plan.toml's [trust] margin (a fifth)
    the trusted one is bought; beyond it the plan keeps the cheap one and says what the safer
    one costs."""
    risky = offer(T181, "900", flags=NEW_ACCOUNT, seller_feedback=2)
    trusted = offer(T181, trusted_price, seller_feedback=12104)
    gpus = [offer(V100_SXM2, "150") for _ in range(4)]
    (best, *_) = plans_for([risky, trusted, *gpus], vram_gb=64)
    host = {"risky": risky, "trusted": trusted}[chosen]
    assert best.host.item_id == host.item_id
    assert any(note in w for w in best.warnings)


@pytest.mark.parametrize(
    ("risky_price", "bought_risky", "note"),
    [
        ("150", 0, None),  # $150 x 1.2 = $180: the trusted $170 cards are bought
        ("100", 2, "the same GPU from a 5,210-feedback seller: +$70.00"),
    ],
    ids=["within the margin", "beyond it"],
)
def test_gpus_from_a_new_account_are_bought_only_when_far_cheaper(
    risky_price: str, bought_risky: int, note: str | None
):
    """`plan --vram 64` bought two V100s from a 2-feedback new account while trusted sellers
    offered the same module for a little more: GPU listings follow the hosts' [trust] rule,
    and a risky card still bought says what the safer one costs."""
    host = offer(T181, "900", seller_feedback=12104)
    risky = [offer(V100_SXM2, risky_price, flags=NEW_ACCOUNT, seller_feedback=2) for _ in range(2)]
    trusted = [offer(V100_SXM2, "170", seller_feedback=5210) for _ in range(4)]
    (best, *_) = plans_for([host, *risky, *trusted], vram_gb=64)
    risky_ids = {o.item_id for o in risky}
    bought = [p for p in best.parts if p.role == "gpu"]
    assert sum(p.units for p in bought if p.item_id in risky_ids) == bought_risky
    assert best.total == Decimal(900) + sum(p.price for p in bought)  # the real prices
    if note is not None:
        assert any(note in w for w in best.warnings)
    else:
        assert not any("feedback seller" in w for w in best.warnings)
