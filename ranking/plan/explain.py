"""The words of a plan: its warnings, and one sentence on why it beats the next plan."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from core import fmt
from ranking.plan.rules import ORDER_MEASURES
from ranking.sentences import TOPOLOGY

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from ranking.plan.records import Offer, Plan, Rig
    from ranking.plan.rules import PlanRules

# How well GPUs talk to each other, best first (a workstation's consumer PCIe is last).
TOPOLOGY_RANK = {"nvlink": 0, "single-root": 1, "split-root": 2}
MERITS = frozenset({"nvlink", "single-root"})


def plan_warnings(
    rig: Rig, bought: Sequence[Offer], rules: PlanRules, now: datetime | None
) -> tuple[str, ...]:
    """What a buyer must know before buying the rig, host first, then each listing."""
    host = rig.host
    warnings = [*_host_warnings(rig, rules)]
    offers = ([host.offer] if host.offer else []) + list(bought)
    noted: dict[str, list[str]] = {}  # a note shared by several listings is said once
    for offer in offers:
        if offer.price_basis == "predicted":
            warnings.append(_auction(offer, now))
        if offer.freight_estimated:
            warnings.append(
                f"freight estimated for item {offer.item_id}: the listing gives no shipping cost"
            )
        for note in offer.notes:
            noted.setdefault(note, []).append(str(offer.item_id))
    for note, items in noted.items():
        which = f"item {items[0]}" if len(items) == 1 else f"items {', '.join(items)}"
        warnings.append(f"{which}: {note}")
    return tuple(warnings)


def _host_warnings(rig: Rig, rules: PlanRules) -> list[str]:
    host, gpu, cards = rig.host, rig.gpu, rig.cards
    warnings = []
    if host.offer is None:
        warnings.append(
            "your own workstation is not priced: CPU, board, RAM, case and PSU are yours"
        )
        ws = rules.workstation
        if cards > ws.risers_above:
            warnings.append(f"{cards} cards in a desktop need riser cables or an open frame")
    elif rules.fit(gpu.sku).cooling == "active":
        warnings.append(
            "fan-cooled cards in a server: check its GPU power cables and the cards' height "
            "(guide 002: servers are rarely built for consumer GPUs)"
        )
    # An OCP host's power shelf, where its listing lacks one, is a line of the bill of
    # materials, bought with the plan: no warning for it.
    if host.power_supply == "none":
        warnings.append(f"a bare GPU board: {host.notes or 'it needs a chassis and PSUs'}")
    elif host.power_supply != "ocp-12v" and host.psu_watts is None:
        warnings.append(
            f"PSU watts of the {host.name.split(' (')[0]} not in the catalog: check it carries "
            f"{cards} x {gpu.tdp_w or '?'} W"
        )
    if rig.power_limited:
        warnings.append(
            f"power-limit the cards to {rules.power_limit:.0%} of TDP (nvidia-smi -pl): "
            f"{cards} x {gpu.tdp_w} W is more than the {host.psu_watts} W PSU less "
            f"{rules.system_reserve_w} W for the rest of the system"
        )
    return warnings


def _auction(offer: Offer, now: datetime | None) -> str:
    when = ""
    if offer.end_time is not None:
        left = fmt.time_left(offer.end_time, now) if now else offer.end_time.isoformat()
        when = f", ends in {left}" if now else f", ends {left}"
    return f"auction not yet won: item {offer.item_id} priced at its predicted end{when}"


def summary(plan: Plan) -> str:
    """``Gigabyte T181-G20 + 4x NVIDIA Tesla V100 SXM2 16GB``."""
    host = "your workstation" if plan.host.item_id is None else plan.host.name.split(" (")[0]
    return f"{host} + {plan.cards}x {plan.gpu_name}"


def explain_plans(plans: Sequence[Plan], *, more: bool = False) -> list[Plan]:
    """Each plan with its sentence, comparing it with the plan after it, and with the cheapest
    plan further down where that one is cheaper than the next (a list ordered by the profile
    can put a cheaper rig several places lower: said once, by the first plan it concerns);
    ``more``: plans beyond the last one shown exist (the last sentence says how to see them)."""
    explained = []
    said: set[int] = set()
    numbered = list(enumerate(plans, 1))
    for i, plan in enumerate(plans):
        following = plans[i + 1] if i + 1 < len(plans) else None
        explanation = render_explanation(plan, following, more=more)
        cheaper = cheaper_below(numbered[i + 1 :])
        if cheaper is not None and cheaper[0] not in said:
            said.add(cheaper[0])
            explanation += render_cheaper_below(plan, *cheaper)
        explained.append(replace(plan, explanation=explanation))
    return explained


def cheaper_below(below: Sequence[tuple[int, Plan]]) -> tuple[int, Plan] | None:
    """The cheapest of the plans ``below`` (numbered as shown), where it is not the next one
    and costs less than the next one."""
    if len(below) < 2:
        return None
    cheapest = min(below[1:], key=lambda numbered: numbered[1].total)
    return cheapest if cheapest[1].total < below[0][1].total else None


def render_cheaper_below(plan: Plan, place: int, cheapest: Plan) -> str:
    """A sentence on a plan listed at ``place`` that is cheaper than the one after ``plan``."""
    other = f"#{place}, {summary(cheapest)} at {fmt.money(cheapest.total, cheapest.currency)}"
    gap = cheapest.total - plan.total
    if gap > 0:
        return f" The cheapest plan below it is {other}: {fmt.money(gap, plan.currency)} more."
    if gap == 0:
        return f" {other} costs the same but comes after it."
    dearer = fmt.money(-gap, plan.currency)
    return f" {other} costs {dearer} less but comes after it: {_trade(plan, cheapest)}."


def render_explanation(plan: Plan, following: Plan | None, *, more: bool = False) -> str:
    """Why ``plan`` comes before ``following`` (the next plan), in one sentence."""
    what = f"{plan.vram_gb:g} GB of VRAM for {fmt.money(plan.total, plan.currency)}"
    if following is None:
        if more:
            return f"{what}; the last plan shown (raise --limit to see more)."
        return f"{what}; no other rig reaches this target from today's listings."
    other = f"{summary(following)} at {fmt.money(following.total, following.currency)}"
    gap = following.total - plan.total
    edges = _edges(plan, following)
    if gap > 0:
        lead = f"{fmt.money(gap, plan.currency)} less than the next plan, {other}"
    elif gap == 0:
        lead = f"the same price as the next plan, {other}"
    else:
        dearer = fmt.money(-gap, plan.currency)
        lead = f"{dearer} more than the next plan, {other}, but {_trade(plan, following)}"
        edges = [e for e in edges if "FP16" not in e or plan.measure != "fp16_tflops"]
    tail = f", and {' and '.join(edges)}" if edges else ""
    return f"{what}: {lead}{tail}."


def _trade(plan: Plan, other: Plan) -> str:
    """Why a dearer plan comes first: more of the profile's measure for each dollar (weighed
    by topology where the profile counts it: ``Plan.order``)."""
    words = ORDER_MEASURES.get(plan.measure)
    if words is None or plan.order <= 0:
        return "its topology counts for this profile"
    more = _measure(plan) / _measure(other) if _measure(other) else float("inf")
    plain = (_measure(plan) / float(plan.total)) / (_measure(other) / float(other.total))
    weighed = other.order / plan.order
    said = f"{more:.1f}x the {words}"
    if abs(weighed - plain) > 0.01 * plain:
        return f"{said}: {weighed:.1f}x per dollar once its topology counts"
    return f"{said} ({weighed:.1f}x per dollar)"


def _measure(plan: Plan) -> float:
    return float(getattr(plan, plan.measure, 0.0) or 0.0)


def _edges(plan: Plan, other: Plan) -> list[str]:
    """What else ``plan`` has over ``other``."""
    edges = []
    if plan.vram_gb > other.vram_gb:
        edges.append(f"{plan.vram_gb - other.vram_gb:g} GB more VRAM")
    if plan.fp16_tflops > 0 and other.fp16_tflops == 0:
        edges.append("usable FP16")
    elif plan.fp16_tflops > other.fp16_tflops * 10:  # the other's cards crawl at FP16
        edges.append(
            f"usable FP16 ({plan.fp16_tflops:,.0f} TFLOP/s; the {other.gpu_name} runs FP16 at a "
            f"small fraction of its FP32 rate: {other.fp16_tflops:.1f})"
        )
    elif plan.fp16_tflops > other.fp16_tflops * 1.1:
        edges.append(f"{plan.fp16_tflops / other.fp16_tflops:.1f}x the FP16 TFLOP/s")
    mine, theirs = TOPOLOGY_RANK.get(plan.topology, 3), TOPOLOGY_RANK.get(other.topology, 3)
    if mine < theirs and plan.topology in MERITS:  # split root is never a merit
        edges.append(TOPOLOGY.get(plan.topology, plan.topology))
    if plan.auctions < other.auctions:
        edges.append("fewer auctions to win")
    if len(plan.warnings) < len(other.warnings):
        edges.append("fewer warnings")
    return edges[:3]
