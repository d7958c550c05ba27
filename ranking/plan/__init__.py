"""The rig planner: the cheapest complete rigs (a host plus GPUs that fit it, plus what they
need to run) for a VRAM or compute target, and their words. ``records`` is the bottom of the
wing; ``search`` is the planner itself.

The floors above use the wing through these names alone.
"""

from ranking.plan.bom import module_heatsink, plan_kind
from ranking.plan.explain import summary
from ranking.plan.records import (
    Offer,
    PartOffer,
    PartPrices,
    Plan,
    PlanPart,
    Target,
    cheapest_lots,
)
from ranking.plan.render import (
    render_bom_line,
    render_part_label,
    render_plan_figures,
    render_plan_json,
    render_plans_text,
)
from ranking.plan.rules import PlanRules, load_plan_rules, trust_weight
from ranking.plan.search import plan_rigs, planner_view

__all__ = [
    "Offer",
    "PartOffer",
    "PartPrices",
    "Plan",
    "PlanPart",
    "PlanRules",
    "Target",
    "cheapest_lots",
    "load_plan_rules",
    "module_heatsink",
    "plan_kind",
    "plan_rigs",
    "planner_view",
    "render_bom_line",
    "render_part_label",
    "render_plan_figures",
    "render_plan_json",
    "render_plans_text",
    "summary",
    "trust_weight",
]
