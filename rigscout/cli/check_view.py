"""``rigscout check``'s answer as a buyer reads it: what the listing is, what it costs landed,
against what, its flags, its score and place today, and the plans it is part of."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core import fmt
from ranking.plan import summary
from rigscout.cli.render import render_market
from rigscout.jobs.check import PLAN_TARGETS, PLANS_LOOKED_AT

if TYPE_CHECKING:
    from rigscout.jobs.check import ItemCheck

_VIEWS = {
    "flagged": "kept out of the deals by a risk flag",
    "part": "a part or accessory: never a deal, priced as a part",
}


def render_check(check: ItemCheck) -> str:
    r = check.reading
    lines = [f"Item {check.item_id}: {check.title}"]
    if check.fetched:
        lines.append("  (read from its item page just now; not in the store, nothing saved)")
    units = f", {r.quantity} units" if r.quantity > 1 else ""
    lines.append(
        f"  reading: {r.sku or 'no catalog SKU'} ({r.kind.value}{units}, "
        f"confidence {r.confidence:.2f})"
    )
    if check.status != "active":
        lines.append(f"  status: {check.status}: no longer for sale, so not ranked")
    deal = check.deal
    if deal is None:
        lines.append(f"  not ranked under {check.profile}: {_why_not(check)}")
    else:
        price = fmt.money(deal.landed_unit_price, deal.currency)
        lines.append(f"  landed: {price} each · vs market: {render_market(deal)}")
        if deal.flags:
            labels = "; ".join(f"{f.label} ({f.severity})" for f in deal.flags)
            lines.append(f"  flags: {labels}")
        lines.append(f"  score: {deal.score:.0f} ({check.profile})")
        if check.view == "deal":
            lines.append(
                f"  place: #{check.place} of {check.deals} deals today, "
                f"#{check.place_in_model} of {check.model_deals} {deal.sku_name}"
            )
        else:
            lines.append(f"  place: {_VIEWS[check.view]}")
        for hit in check.plans:
            total = fmt.money(hit.plan.total, hit.plan.currency)
            role = "the host" if hit.role == "host" else "a GPU"
            lines.append(
                f"  plan: {role} of plan #{hit.place} for {hit.vram_gb:g} GB VRAM "
                f"({summary(hit.plan)}: {total})"
            )
        if check.view == "deal" and not check.plans:
            sizes = ", ".join(f"{v:g}" for v in PLAN_TARGETS)
            lines.append(f"  plan: in none of today's {PLANS_LOOKED_AT} best plans for {sizes} GB")
        lines.append(f"  why: {deal.reason}")
    lines.append(f"  {check.url}")
    return "\n".join(lines)


def _why_not(check: ItemCheck) -> str:
    r = check.reading
    if check.status != "active":
        return "it has ended"
    if r.sku is None:
        return "its title names no catalog model (`rigscout catalog unmatched` groups these)"
    return (
        "the profile leaves its model out (`rank --sku "
        f"{r.sku}` says why and which profile ranks it)"
    )
