"""The report's "Best rigs": each saved ``[[plan]]`` target's best complete rig, or the defaults.

Without ``[[plan]]`` tables the report plans ``DEFAULT_TARGETS`` for the ``[rank]`` profile:
the cheapest 64 GB rig (guide 000's complete node: 4 x 16 GB on NVLink) and the cheapest
96 GB rig (guide 001's quad-GPU node, two 70B model instances at once). The planner's plan
becomes a ``ReportRig`` here, its numbers worded by ``ranking/plan/render.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ranking.plan import (
    Target,
    load_plan_rules,
    plan_rigs,
    planner_view,
    render_bom_line,
    render_part_label,
    render_plan_figures,
    summary,
)
from rigscout.jobs.plan_alerts import saved_plan_target
from rigscout.jobs.plans import offers_from_deals
from rigscout.outputs.report.load import RARE_MAX_ACTIVE

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import datetime
    from decimal import Decimal

    from sqlalchemy.orm import Session

    from core.models import Deal
    from ranking.catalog import Sku
    from ranking.plan import Offer, PartPrices, Plan, PlanRules
    from ranking.records import PlannerView
    from rigscout.config.load import Settings

DEFAULT_TARGETS = (64.0, 96.0)  # GB of VRAM, when rigscout.toml has no [[plan]]
COMPARED = 2  # plan two rigs per target, so the best one's sentence says why it beats the next


@dataclass(frozen=True, slots=True)
class ReportRig:
    """One target's best rig as the report shows it (a ``records.RigPlan``)."""

    target: str  # "v100-node: 64 GB, budget $1,500" or "cheapest 64 GB rig"
    name: str  # "Gigabyte T181-G20 + 4x NVIDIA Tesla V100 SXM2 16GB"
    total_price: Decimal
    currency: str
    figures: str  # "64 GB VRAM · 500 FP16 TFLOP/s · … · $23.44/GB · NVLink"
    summary: str  # the planner's sentence
    warnings: tuple[str, ...]
    links: tuple[tuple[str, str], ...]  # (part as a buyer reads it, listing URL)


def report_targets(settings: Settings) -> list[tuple[str, Target]]:
    """(label, target) for each ``[[plan]]``, else the cheapest rig of each default size."""
    if settings.plans:
        return [
            (_saved_label(saved.name, saved.vram_gb), saved_plan_target(saved, settings.rank))
            for saved in settings.plans
        ]
    return [
        (
            f"cheapest {gb:g} GB rig",
            Target(vram_gb=gb, profile=settings.rank.profile, sort="price"),
        )
        for gb in DEFAULT_TARGETS
    ]


def _saved_label(name: str, vram_gb: float) -> str:
    return f"{name}: {vram_gb:g} GB"


def report_planner(settings: Settings, skus: Mapping[str, Sku], parts: PartPrices) -> PlannerView:
    """What the report's rankings keep for the planner (``RankFilters.planner``), for every
    target's workstation, and every listing of rare hardware (shown with its ranked price)."""
    targets = report_targets(settings)
    workstations = [t.workstation for _, t in targets if t.workstation is not None]
    view = planner_view(skus, load_plan_rules(), parts, workstations)
    return replace(view, rare=RARE_MAX_ACTIVE)


def load_report_rigs(
    session: Session,
    settings: Settings,
    skus: Mapping[str, Sku],
    deals: Mapping[str, Sequence[Deal]],
    *,
    now: datetime,
    parts: PartPrices,
) -> tuple[ReportRig, ...]:
    """Each target's best rig (targets with none are left out).

    ``deals``: the listings a plan can buy by profile, as the report loaded them
    (``ReportData.plan_deals``); only the servers' included GPUs are read here.
    ``parts``: the bill of materials' prices (``load_bom_prices``).
    """
    rules = load_plan_rules()
    offers = {profile: offers_from_deals(session, ds) for profile, ds in deals.items()}
    rigs = []
    for label, target in report_targets(settings):
        plans = _plan(offers.get(target.profile, []), skus, rules, target, settings, now, parts)
        if plans:
            rigs.append(render_report_rig(label, plans[0], now))
    return tuple(rigs)


def _plan(
    offers: Sequence[Offer],
    skus: Mapping[str, Sku],
    rules: PlanRules,
    target: Target,
    settings: Settings,
    now: datetime,
    parts: PartPrices,
) -> list[Plan]:
    target = replace(target, limit=max(target.limit, COMPARED))
    return plan_rigs(
        offers, skus, rules, target, currency=settings.rank.currency, now=now, parts=parts
    )


def render_report_rig(target: str, plan: Plan, now: datetime) -> ReportRig:
    """The plan in the report's words: the same figures and part labels as ``rigscout plan``."""
    return ReportRig(
        target=target,
        name=summary(plan),
        total_price=plan.total,
        currency=plan.currency,
        figures=render_plan_figures(plan),
        summary=plan.explanation,
        warnings=plan.warnings,
        links=(
            *(
                (f"{part.role}: {render_part_label(part, plan.currency, now)}", part.url or "")
                for part in plan.parts
            ),
            *(
                (f"needs: {render_bom_line(line, plan.currency)}", line.url or "")
                for line in plan.bom
            ),
        ),
    )
