"""The rig planner by brute force: every host listing with every set of GPU listings.

Exponential in the number of listings; it exists to check ``ranking.plan.plan_rigs`` (tests
and ``bench/bench_plan.py``) on small cases. It shares the fit rule and the plan building,
not the search: no knapsack, no pruning of listings or hosts.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING

from ranking.plan.explain import explain_plans
from ranking.plan.fit import check_rig
from ranking.plan.records import PartPrices
from ranking.plan.search import (
    PlanKey,
    build_plan,
    check_target,
    fitting_gpus,
    plan_key,
    rig_cost,
    select_plans,
    split_offers,
)
from ranking.titles.server_config import load_parts

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from datetime import datetime
    from decimal import Decimal

    from ranking.catalog import Sku
    from ranking.plan.records import Offer, Plan, Rig, Target
    from ranking.plan.rules import PlanRules


def plan_rigs_exhaustive(
    offers: Iterable[Offer],
    skus: Mapping[str, Sku],
    rules: PlanRules,
    target: Target,
    *,
    currency: str = "USD",
    now: datetime | None = None,
    parts: PartPrices | None = None,
) -> list[Plan]:
    """What ``plan_rigs`` returns, found by trying every combination."""
    check_target(target)
    parts = parts or PartPrices(load_parts())
    hosts, by_gpu = split_offers(offers, skus, rules, target)
    best: dict[PlanKey, tuple[Decimal, int, Rig, tuple[Offer, ...]]] = {}
    for host, gpu_sku in fitting_gpus(hosts, by_gpu.keys(), skus, rules, target):
        listings = by_gpu.get(gpu_sku, [])
        for size in range(len(listings) + 1):
            for chosen in combinations(listings, size):
                added = sum(o.units for o in chosen)
                auctions = sum(1 for o in (host.offer, *chosen) if o is not None and o.auction)
                if target.max_auctions is not None and auctions > target.max_auctions:
                    continue
                rig = check_rig(host, skus[gpu_sku], added, target, rules)
                if rig is None:
                    continue
                cost = rig_cost(host, chosen, parts)
                if target.budget is not None and cost > target.budget:
                    continue
                key = plan_key(host, gpu_sku)
                if key not in best or cost < best[key][0]:
                    best[key] = (cost, auctions, rig, chosen)
    plans = [
        build_plan(rig, chosen, rules, target, currency=currency, now=now, parts=parts)
        for _, _, rig, chosen in best.values()
    ]
    return explain_plans(select_plans(plans, target.limit, sort=target.sort))
