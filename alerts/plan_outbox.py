"""Saved-plan alerts in the outbox: once per plan and channel, again only for a cheaper rig.

A row's ``rule`` is ``plan:<name>`` and its ``landed_unit_price`` the rig's total; it points at
the rig's host listing (or its first GPU listing for your own workstation). The payload is an
ordinary deal snapshot, so the email and Discord channels send it like any deal.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP
from typing import TYPE_CHECKING

from alerts.format import RIG
from alerts.outbox import CENT
from core import fmt
from core.deal_json import deal_to_json
from core.models import BuyingFormat, Category, Deal
from db.models import AlertRow
from db.outbox import OPEN, PENDING, PLAN, SENT, load_latest_plan_alert
from ranking.plan import render_bom_line, render_plan_figures, summary

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from sqlalchemy.orm import Session

    from ranking.plan import Plan, PlanPart


def save_pending_plan_alert(
    session: Session,
    name: str,
    channels: Sequence[str],
    plan: Plan,
    *,
    now: datetime,
    run_id: int | None = None,
) -> int:
    """Enqueue ``plan`` (the best rig for the saved plan ``name``) on each channel where it is
    cheaper than the rig last sent; refresh an unsent row instead. Returns rows added."""
    rule = name[:100]
    total = plan.total.quantize(CENT, ROUND_HALF_UP)
    anchor = next((p.listing_id for p in plan.parts if p.listing_id is not None), None)
    if anchor is None:
        return 0
    added = 0
    for channel in channels:
        row = load_latest_plan_alert(session, rule, channel, OPEN)
        if row is None:
            last = load_latest_plan_alert(session, rule, channel, (SENT,))
            if (
                last is not None
                and last.currency == plan.currency
                and total >= last.landed_unit_price
            ):
                continue
            row = AlertRow(
                channel=channel, status=PENDING, attempts=0, rule=rule, kind=PLAN, created_at=now
            )
            session.add(row)
            added += 1
        row.listing_id = anchor
        row.landed_unit_price = total
        row.currency = plan.currency
        row.run_id = run_id
        row.payload = deal_to_json(render_plan_deal(name, plan, now, anchor))
    session.flush()
    return added


def render_plan_deal(name: str, plan: Plan, now: datetime, listing_id: int) -> Deal:
    """The plan as the deal the channels render: its parts, links and warnings in the text."""
    anchor = next(p for p in plan.parts if p.listing_id == listing_id)
    return Deal(
        listing_id=listing_id,
        item_id=anchor.item_id or "",
        marketplace=anchor.marketplace,
        title=f"Rig plan {name!r}: {summary(plan)}, {plan.vram_gb:g} GB VRAM",
        url=anchor.url or "",
        sku=plan.host.sku,
        sku_name=summary(plan),
        category=Category.SERVER,
        quantity=1,
        buying_format=BuyingFormat.BUY_IT_NOW,
        landed_unit_price=plan.total,
        currency=plan.currency,
        shipping_known=not any(p.freight_estimated for p in plan.parts),
        score=0.0,
        reason=render_plan_message(plan),
        freight_estimated=any(p.freight_estimated for p in plan.parts),
        price_basis=RIG,
    )


def _part_words(part: PlanPart, currency: str) -> str:
    what = f"{part.units}x {part.name}" if part.role == "gpu" else part.name
    link = f" ({part.url})" if part.url else ""
    return f"{part.role} {what}: {fmt.money(part.price, currency)}{link}"


def render_plan_message(plan: Plan) -> str:
    """The rig as a message reads: its figures, each part with its price, what to check."""
    parts = "; ".join(_part_words(part, plan.currency) for part in plan.parts)
    text = f"{render_plan_figures(plan)}. Parts: {parts}."
    if plan.bom:
        needs = "; ".join(render_bom_line(line, plan.currency) for line in plan.bom)
        text += f" It also needs: {needs}."
    if plan.warnings:
        text += f" Before you buy: {'; '.join(w.rstrip('.') for w in plan.warnings)}."
    if "than the next plan" in plan.explanation:  # a comparison, not a hint for the CLI
        text += f" Why this one: {plan.explanation}"
    return text
