"""Plans as a buyer reads them (text) and as scripts read them (the ``plan --json`` contract)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core import fmt
from ranking.plan.explain import summary

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime
    from decimal import Decimal

    from ranking.plan.records import BomLine, Plan, PlanPart

TOPOLOGY_WORDS = {
    "nvlink": "NVLink",
    "single-root": "single-root PCIe",
    "split-root": "split-root PCIe",
}


def render_plan_json(plan: Plan) -> dict[str, object]:
    """One plan as JSON values: money as numbers in ``currency``, every listing's item id."""
    host = plan.host
    gpus: dict[str, dict[str, object]] = {}
    listings: dict[str, list[dict[str, object]]] = {}
    if host.included:
        gpus[plan.gpu_sku] = {"sku": plan.gpu_sku, "quantity": host.included, "item_ids": []}
        listings[plan.gpu_sku] = []
    for part in plan.gpus:
        entry = gpus.setdefault(part.sku, {"sku": part.sku, "quantity": 0, "item_ids": []})
        entry["quantity"] = int(str(entry["quantity"])) + part.units
        entry["item_ids"] = [*_ids(entry["item_ids"]), part.item_id]
        listings.setdefault(part.sku, []).append(_part_json(part))
    for sku, entry in gpus.items():
        entry["name"] = plan.gpu_name
        entry["included_with_host"] = host.included if sku == plan.gpu_sku else 0
        entry["listings"] = listings.get(sku, [])
    return {
        "total": _money(plan.total),
        "currency": plan.currency,
        "vram_gb": plan.vram_gb,
        "fp16_tflops": plan.fp16_tflops,
        "bandwidth_gbs": plan.bandwidth_gbs,
        "host": {
            "sku": host.sku,
            "name": host.name,
            "item_id": host.item_id,
            "price": _money(host.price),
            "url": host.url,
            "price_basis": host.price_basis if host.item_id else None,
            "end_time": host.end_time.isoformat() if host.end_time else None,
            "freight_estimated": host.freight_estimated,
        },
        "gpus": list(gpus.values()),
        "per_vram_gb": _money(plan.per_vram_gb),
        "per_fp16_tflops": _money(plan.per_fp16_tflops),
        "topology": plan.topology,
        "bom": [_bom_json(line) for line in plan.bom],
        "warnings": list(plan.warnings),
        "explanation": plan.explanation,
    }


def _bom_json(line: BomLine) -> dict[str, object]:
    return {
        "item": line.item,
        "units": line.units,
        "price": _money(line.price),
        "source": line.source,
        "item_id": line.item_id,
        "url": line.url,
        "note": line.note or None,
        "instead": line.instead or None,
    }


def _ids(value: object) -> list[object]:
    return list(value) if isinstance(value, list) else []


def _money(amount: Decimal | None) -> float | None:
    return None if amount is None else float(str(amount))


def _part_json(part: PlanPart) -> dict[str, object]:
    return {
        "item_id": part.item_id,
        "url": part.url,
        "units": part.units,
        "price": _money(part.price),
        "price_basis": part.price_basis,
        "end_time": part.end_time.isoformat() if part.end_time else None,
        "freight_estimated": part.freight_estimated,
    }


def render_plans_text(plans: Sequence[Plan], now: datetime) -> str:
    """The plans, numbered, each with its parts, links, totals, warnings and sentence."""
    return "\n\n".join(render_plan_text(i, plan, now) for i, plan in enumerate(plans, 1))


def render_plan_text(number: int, plan: Plan, now: datetime) -> str:
    money = fmt.money(plan.total, plan.currency)
    lines = [f"{number}. {summary(plan)}: {money} landed"]
    lines.append("   " + render_plan_figures(plan))
    lines += [_part_line(part, plan.currency, now) for part in plan.parts]
    for line in plan.bom:
        lines.append(
            f"   needs {render_bom_line(line, plan.currency)}"
            + (f"  {line.url}" if line.url else "")
        )
        if line.instead:
            lines.append(f"         or {line.instead}")
    lines += [f"   ! {warning}" for warning in plan.warnings]
    lines.append(f"   Why: {plan.explanation}")
    return "\n".join(lines)


def render_plan_figures(plan: Plan) -> str:
    """VRAM, FP16, bandwidth, $/GB, $/TFLOP/s and topology, joined by " · "."""
    figures = [
        f"{plan.vram_gb:g} GB VRAM",
        f"{plan.fp16_tflops:g} FP16 TFLOP/s",
        f"{plan.bandwidth_gbs:,.0f} GB/s",
    ]
    if plan.per_vram_gb is not None:
        figures.append(f"{fmt.money(plan.per_vram_gb, plan.currency)}/GB")
    if plan.per_fp16_tflops is not None:
        figures.append(f"{fmt.money(plan.per_fp16_tflops, plan.currency)}/TFLOP/s")
    figures.append(TOPOLOGY_WORDS.get(plan.topology, plan.topology))
    return " · ".join(figures)


def _part_line(part: PlanPart, currency: str, now: datetime) -> str:
    if part.item_id is None:
        return f"   host  {render_part_label(part, currency, now)}"
    return f"   {part.role:<4}  {render_part_label(part, currency, now)}  {part.url}"


def render_bom_line(line: BomLine, currency: str) -> str:
    """ "OCP 12 V power shelf: $267.67 (listing 341857473714)", "96 GB RAM: $105.60 (estimate)"."""
    price = fmt.money(line.price, currency)
    if line.source == "listing":
        spare = f"; {line.note}" if line.note else ""  # "a lot of 4, bought whole: 2 spare"
        return f"{line.item}: {price} (listing {line.item_id}{spare})"
    where = "the store's sold median" if line.source == "market" else "estimate"
    return f"{line.item}: {price} ({where})"


def render_part_label(part: PlanPart, currency: str, now: datetime) -> str:
    """One part as a buyer reads it: what, how many, and its landed price (and how sure)."""
    if part.item_id is None:
        return f"{part.name} ({fmt.money(part.price, currency)}: you have it)"
    what = f"{part.units}x {part.name}" if part.role == "gpu" else part.name.split(" (")[0]
    if part.included:
        what += f" with {part.included} GPUs"
    price = fmt.money(part.price, currency)
    if part.price_basis == "predicted":
        left = f", {fmt.time_left(part.end_time, now)} left" if part.end_time else ""
        price = f"~{price} (auction, predicted end{left})"
    if part.freight_estimated:
        price += " incl. estimated freight"
    return f"{what}: {price}"
