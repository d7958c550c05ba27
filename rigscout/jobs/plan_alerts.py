"""The daily run's saved plans: plan each ``[[plan]]`` and queue an alert for a cheaper rig."""

from __future__ import annotations

from typing import TYPE_CHECKING

from alerts.plan_outbox import save_pending_plan_alert
from core.errors import ConfigError
from ranking.landed import fx_rate
from ranking.plan import Target
from rigscout.jobs.plans import build_plans

if TYPE_CHECKING:
    from datetime import datetime

    from sqlalchemy.orm import Session

    from core.settings import RankSettings
    from rigscout.config.load import Settings
    from rigscout.config.plans import SavedPlan


def saved_plan_target(saved: SavedPlan, rank: RankSettings) -> Target:
    """The planner's target for a saved plan, its budget in the user's currency."""
    budget = saved.budget
    if budget is not None and saved.currency:
        rate = fx_rate(saved.currency, rank)
        if rate is None:
            raise ConfigError(f"[[plan]] {saved.name!r}: no [rank.fx] rate for {saved.currency}")
        budget = budget * rate
    return Target(
        vram_gb=saved.vram_gb,
        profile=saved.profile or rank.profile,
        budget=budget,
        fp16_tflops=saved.fp16_tflops,
        gpus=saved.gpus,
        form_factor=saved.form_factor,
        max_auctions=saved.max_auctions,
        limit=1,
    )


def save_plan_alerts(
    session: Session, settings: Settings, *, now: datetime, run_id: int | None = None
) -> int:
    """Queue each saved plan's best rig where it beats the last one sent; rows added."""
    added = 0
    for saved in settings.plans:
        plans = build_plans(session, settings, saved_plan_target(saved, settings.rank), now)
        if plans:
            added += save_pending_plan_alert(
                session, saved.name, saved.channels, plans[0], now=now, run_id=run_id
            )
    return added
