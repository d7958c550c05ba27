"""The planner's view of a ranking: only the listings a plan can buy, and the same plans.

``ranking.kept.shortlist.plannable`` keeps, from every priced listing's columns, those a rig plan
(or the report's best price of the day) can pick. The plans made from them must be the plans
made from every listing, whatever the target: these tests plan both ways on thousands of
random listings and compare.
"""

from __future__ import annotations

import random
from dataclasses import replace
from decimal import Decimal

import numpy as np
import pytest

from core.models import Category, Included, ServerConfig
from ranking.catalog import load_catalog
from ranking.kept.shortlist import PricedColumns, may_match, plannable
from ranking.plan.bom import plan_kind
from ranking.plan.records import Offer, PartOffer, PartPrices, Target
from ranking.plan.rules import Workstation, load_plan_rules
from ranking.plan.search import plan_rigs, planner_view
from ranking.records import FigureBound
from ranking.titles.server_config import load_parts

SKUS = {s.sku: s for s in load_catalog()}
RULES = load_plan_rules()
GPUS = [s for s in SKUS.values() if s.category is Category.GPU]
HOSTS = [s for s in SKUS.values() if s.category is not Category.GPU and s.gpu_slots]
# Barebones and complete machines alike in their heatsinks: which is cheaper to run depends on
# the bill of materials the planner adds.
CONFIGS = (
    None,
    ServerConfig(heatsinks="no"),
    ServerConfig(heatsinks="no", cpus=2),
    ServerConfig(heatsinks="no", ram_gb=128),
    ServerConfig(heatsinks="no", cpus=2, ram_gb=192, power_shelf=True),
    ServerConfig(heatsinks="yes"),
    ServerConfig(heatsinks="yes", cpus=2, ram_gb=192, power_shelf=True),
    ServerConfig(heatsinks="unknown", cpus=2, ram_gb=64),
)
HEATSINK = PartOffer(
    1, "1", "https://www.ebay.com/itm/1", "4x SXM2 heatsink", "sxm2-heatsink", 4, Decimal(45)
)
PARTS = PartPrices(load_parts(), {"sxm2-heatsink": [HEATSINK]})
TARGETS = (
    Target(vram_gb=64, limit=12),
    Target(vram_gb=128, profile="training", max_auctions=1, limit=12),
    Target(vram_gb=96, budget=Decimal(3000), form_factor="pcie"),
    Target(vram_gb=48, max_auctions=0, workstation=Workstation(gpu_slots=7), limit=12),
    Target(vram_gb=32, boards=True, gpus=2, limit=12),
    Target(vram_gb=256, profile="capacity", limit=12),
)


RISKY = ("seller_low_feedback", "new_account_pattern")


def random_offers(rng: random.Random, n: int) -> list[Offer]:
    """``n`` listings of a few SKUs each (so every group has far more than a plan can take):
    prices within 25 % of each other, lots of 1-16, two in five auctions, modules with and
    without heatsinks, servers in every configuration, some with their GPUs, a third of them
    from a new account."""
    gpus = rng.sample(GPUS, 8)
    hosts = rng.sample(HOSTS, 6)
    offers = []
    for i in range(n):
        if rng.random() < 0.25:
            sku = rng.choice(hosts)
            includes: tuple[Included, ...] = ()
            price = 400 + 80 * (sku.gpu_slots or 0)
            fitting = [g for g in gpus if g.form_factor == sku.gpu_form_factor]
            if fitting and rng.random() < 0.3:
                includes = (Included(rng.choice(fitting).sku, rng.choice([2, sku.gpu_slots])),)
                price += 150 * includes[0].quantity
            units, config, heatsink = 1, rng.choice(CONFIGS), "unknown"
            # a third from a new account (plan.toml [trust]): a plan may buy a dearer listing
            flags: tuple[str, ...] = RISKY if rng.random() < 0.33 else ()
        else:
            sku = rng.choice(gpus)
            includes, config = (), None
            price = 25 * (sku.vram_gb or 8) + 40
            units = rng.choice([1, 1, 1, 1, 1, 1, 2, 4, 8, 16])
            heatsink = rng.choice(["yes", "no", "unknown"])
            flags = ()
        offers.append(
            Offer(
                listing_id=i + 10,
                item_id=str(10**11 + i),
                url=f"https://www.ebay.com/itm/{10**11 + i}",
                title=sku.name,
                sku=sku.sku,
                units=units,
                unit_price=Decimal(round(price * rng.uniform(0.8, 1.25), 2)).quantize(
                    Decimal("0.01")
                ),
                price_basis="predicted" if rng.random() < 0.4 else "fixed",
                includes=includes,
                config=config,
                heatsink=heatsink,
                flags=flags,
            )
        )
    return offers


def columns_of(offers: list[Offer]) -> PricedColumns:
    """The columns a kept ranking reads, for these listings."""
    codes = tuple(dict.fromkeys(o.sku for o in offers))
    n = len(offers)
    zeros = np.zeros(n)
    return PricedColumns(
        listing_id=np.array([o.listing_id for o in offers], dtype=np.int64),
        sku=np.array([codes.index(o.sku) for o in offers], dtype=np.int32),
        skus=codes,
        landed=np.array([float(o.unit_price) for o in offers]),
        chassis=zeros,
        discount=zeros,
        evidence=zeros,
        penalty=zeros,
        checked=np.zeros(n, dtype=bool),
        software=np.zeros(n, dtype=bool),
        excluded=np.zeros(n, dtype=bool),
        auction=np.array([o.auction for o in offers]),
        risky=np.array([bool(set(o.flags) & RULES.seller_risk) for o in offers]),
        units=np.array([o.units for o in offers], dtype=np.int64),
        kind=np.array(
            [plan_kind(SKUS[o.sku], o.heatsink, o.includes, o.config) for o in offers],
            dtype=np.int64,
        ),
    )


def gpu(listing_id: int, sku: str, price: int, units: int = 1, **kw: object) -> Offer:
    n = str(listing_id)
    return Offer(
        listing_id, n, f"https://www.ebay.com/itm/{n}", sku, sku, units, Decimal(price), **kw
    )  # type: ignore[arg-type]


def kept_for(offers: list[Offer], target: Target | None = None) -> list[Offer]:
    workstations = [target.workstation] if target and target.workstation else []
    view = planner_view(SKUS, RULES, PARTS, workstations)
    keep = plannable(columns_of(offers), SKUS, np.ones(len(offers), dtype=bool), view)
    return [o for o, k in zip(offers, keep, strict=True) if k]


def plans(offers: list[Offer], target: Target) -> list[tuple[object, ...]]:
    found = plan_rigs(offers, SKUS, RULES, target, parts=PARTS)
    return [(p.host, p.gpus, p.bom, p.total, p.warnings, p.explanation) for p in found]


@pytest.mark.parametrize("seed", range(4))
def test_the_listings_a_plan_can_buy_give_the_plans_every_listing_gives(seed: int):
    offers = random_offers(random.Random(seed), 4_000)
    for target in TARGETS:
        kept = kept_for(offers, target)
        assert plans(kept, target) == plans(offers, target), target
        assert plans(offers, target), "a target with no plan proves nothing"
    assert len(kept_for(offers)) < len(offers) / 2, "the view must leave most listings out"


def test_a_module_with_its_heatsink_is_kept_though_twelve_bare_ones_are_cheaper():
    v100 = "nvidia-tesla-v100-sxm2-16gb"
    bare = [gpu(i, v100, 200, heatsink="no") for i in range(1, 13)]
    with_heatsink = [gpu(20, v100, 240, heatsink="yes"), gpu(21, v100, 250, heatsink="yes")]
    config = ServerConfig(heatsinks="no", cpus=2, ram_gb=64, power_shelf=True)
    host = Offer(30, "30", "u30", "T181", "gigabyte-t181-g20", 1, Decimal(900), config=config)
    offers = [*bare, *with_heatsink, host]

    kept = kept_for(offers)
    # A bare module costs $200 + a $45 heatsink in this host: $240 with one beats it, $250 never.
    assert {o.listing_id for o in kept} == {*range(1, 13), 20, 30}
    target = Target(vram_gb=64)
    assert 20 in {p.listing_id for p in plan_rigs(kept, SKUS, RULES, target, parts=PARTS)[0].gpus}
    assert plans(kept, target) == plans(offers, target)


def test_a_lot_too_large_for_any_host_is_still_the_sku_s_best_price_of_the_day():
    lot = gpu(1, "nvidia-tesla-p40", 120, units=32)  # no host takes 32 cards
    single = gpu(2, "nvidia-tesla-p40", 150)
    assert {o.listing_id for o in kept_for([lot, single])} == {1, 2}


READY = ServerConfig(heatsinks="yes", cpus=2, ram_gb=192)
P40 = "nvidia-tesla-p40"
HOST = Offer(99, "99", "u99", "4028GR", "supermicro-sys-4028gr-trt2", 1, Decimal(900), config=READY)


def test_a_host_with_eight_slots_can_have_the_eighth_cheapest_card():
    cards = [gpu(i, P40, 100 + 20 * i) for i in range(10)]  # $100, $120 ... $280
    offers = [*cards, HOST]
    target = Target(vram_gb=192)  # eight P40s

    kept = kept_for(offers)
    assert {o.listing_id for o in kept} >= set(range(8))
    (best, *_) = plan_rigs(kept, SKUS, RULES, target, parts=PARTS)
    assert sorted(p.listing_id for p in best.gpus) == list(range(8))
    assert plans(kept, target) == plans(offers, target)


def test_fixed_prices_are_kept_for_a_plan_without_auctions_however_many_auctions_are_cheaper():
    auctions = [gpu(i, P40, 100, price_basis="predicted") for i in range(12)]
    fixed = [gpu(i, P40, 200 + i) for i in range(20, 28)]
    offers = [*auctions, *fixed, HOST]
    target = Target(vram_gb=192, max_auctions=0)

    kept = kept_for(offers)
    assert {o.listing_id for o in fixed} <= {o.listing_id for o in kept}
    assert plans(kept, target) == plans(offers, target) != []


def test_servers_that_differ_in_what_they_need_to_run_are_each_kept():
    """Guide 000's T181: a barebone needs CPUs, RAM, the 12 V power shelf and module heatsinks
    bought. A dearer listing that includes some of them can be the cheaper rig, so the
    cheapest of each kind is kept, and a dearer one of the same kind is not."""
    t181 = "gigabyte-t181-g20"
    kinds = [
        ServerConfig(heatsinks="no"),
        ServerConfig(heatsinks="no", cpus=2),
        ServerConfig(heatsinks="no", ram_gb=128),
        ServerConfig(heatsinks="no", power_shelf=True),
        ServerConfig(heatsinks="yes"),
    ]
    cheapest = [gpu(i, t181, 800 + 40 * i, config=c) for i, c in enumerate(kinds)]
    dearer = [gpu(10 + i, t181, 1_000 + 40 * i, config=c) for i, c in enumerate(kinds)]
    modules = [gpu(20 + i, "nvidia-tesla-v100-sxm2-16gb", 210, heatsink="no") for i in range(4)]
    offers = [*cheapest, *dearer, *modules]

    kept = {o.listing_id for o in kept_for(offers)}
    assert kept == {*range(len(kinds)), *range(20, 24)}
    target = Target(vram_gb=64)
    assert plans(kept_for(offers), target) == plans(offers, target)


V100, P40 = "nvidia-tesla-v100-sxm2-16gb", "nvidia-tesla-p40"


def may(columns: PricedColumns, *alternatives: tuple[FigureBound, ...]) -> list[int]:
    """The listing ids a ranking from kept rows prices for rules bounded by ``alternatives``."""
    everything = np.ones(len(columns), dtype=bool)
    score = np.array([float(i) for i in columns.listing_id])  # a listing's score: its id
    hit = may_match(columns, SKUS, score, everything, alternatives)
    return columns.listing_id[hit].tolist()


def test_the_alert_rules_candidates_are_what_their_bounds_let_through_loosened_by_rounding():
    offers = [gpu(1, V100, 240), gpu(2, V100, 251), gpu(3, P40, 150), gpu(4, V100, 250)]
    columns = replace(
        columns_of(offers),
        landed=np.array([240.0, 251.0, 150.0, 250.004]),  # a float a hair over $250.00
        discount=np.array([0.3, 0.3, 0.5, np.nan]),  # no market: no discount
    )
    cheap_v100 = (
        FigureBound("sku", "in", frozenset({V100})),
        FigureBound("landed_unit_price", "le", Decimal(250)),
    )
    under = (FigureBound("discount", "ge", 0.3),)
    gpus = (FigureBound("category", "in", frozenset({Category.GPU})),)
    scored = (FigureBound("score", "ge", 3),)

    assert may(columns, cheap_v100) == [1, 4]
    assert may(columns, under) == [1, 2, 3]
    assert may(columns, cheap_v100, under) == [1, 2, 3, 4]
    assert may(columns, gpus) == [1, 2, 3, 4]
    assert may(columns, scored) == [3, 4]
    assert may(columns, (FigureBound("sku", "in", frozenset()),)) == []  # another profile's rule


def test_a_risky_sellers_candidate_brings_the_listings_its_alert_compares_it_with():
    risky = {"flags": RISKY[:1]}
    offers = [
        gpu(1, V100, 200, **risky),
        gpu(2, V100, 260),  # the same card from a trusted seller: the alert names it
        gpu(
            3, V100, 210, price_basis="predicted"
        ),  # an auction: not what a fixed price is compared with
        gpu(4, P40, 150),
    ]
    cheap = (FigureBound("landed_unit_price", "le", Decimal(250)),)

    assert may(columns_of(offers), cheap) == [1, 2, 3, 4]
    assert may(columns_of(offers), (*cheap, FigureBound("sku", "in", frozenset({V100})))) == [
        1,
        2,
        3,
    ]
    assert may(
        columns_of([o for o in offers if o.listing_id != 1]),
        (FigureBound("landed_unit_price", "le", Decimal(205)),),
    ) == [4]
