"""What fits where: a host, a GPU SKU and a card count make a rig, or they do not.

One rule, used by the planner and by the exhaustive search it is checked against: SXM2
modules only in SXM2 hosts (SXM4 in SXM4), PCIe cards only up to the host's slot count and
slot width, the GPUs' TDP within the host's PSU watts less a system reserve (or power-limited
to ``power_limit`` of TDP, with a warning), a server's included GPUs counted, one GPU SKU a
rig (tensor parallelism splits evenly across equal cards), and the target met: total VRAM,
the profile's per-device minimum and usable FP16, optionally FP16 TFLOP/s and a card count.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from core.models import Category
from ranking.plan.records import Host, Rig
from ranking.value import score_sku_value

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ranking.catalog import Sku
    from ranking.plan.records import Offer, Target
    from ranking.plan.rules import PlanRules, Workstation
    from ranking.profiles import Profile, Profiles

WORKSTATION = "workstation"
ZERO = Decimal(0)


def workstation_host(ws: Workstation) -> Host:
    return Host(
        sku=WORKSTATION,
        name="your own workstation",
        offer=None,
        gpu_slots=ws.gpu_slots,
        form_factor="PCIe",
        slot_width=ws.slot_width,
        psu_watts=ws.psu_watts,
        power_supply="ac",
        topology=ws.topology,
    )


def listing_host(offer: Offer, skus: Mapping[str, Sku], rules: PlanRules) -> Host | None:
    """The host a server or board listing offers; None when it cannot host a planned rig."""
    sku = skus.get(offer.sku)
    if sku is None or sku.category is Category.GPU or not sku.gpu_slots:
        return None
    included = {i.sku for i in offer.includes}
    if len(included) > 1 or (included and next(iter(included)) not in skus):
        return None  # mixed or unknown included GPUs: not a one-SKU rig we can count
    gpu = skus[next(iter(included))] if included else None
    fit = rules.fit(sku.sku)
    return Host(
        sku=sku.sku,
        name=sku.name,
        offer=offer,
        gpu_slots=sku.gpu_slots,
        form_factor=sku.gpu_form_factor or "PCIe",
        slot_width=fit.slot_width,
        psu_watts=fit.psu_watts,
        power_supply=fit.power_supply or "ac",
        topology=sku.interconnect or "unknown",
        included=gpu,
        included_units=sum(i.quantity for i in offer.includes),
        notes=fit.notes,
        family=sku.family or "",
    )


def gpu_fits_host(
    host: Host, gpu: Sku, target: Target, rules: PlanRules, *, profile: Profile, profiles: Profiles
) -> bool:
    """Form factor, card width, the profile's per-device minimum and the target's form factor."""
    if gpu.category is not Category.GPU or gpu.form_factor != host.form_factor:
        return False
    if host.included is not None and host.included.sku != gpu.sku:
        return False
    if target.form_factor != "any" and (gpu.form_factor or "").lower() != target.form_factor:
        return False
    if gpu.form_factor == "PCIe":
        fit = rules.fit(gpu.sku)
        if host.slot_width is not None and (fit.slot_width or 2) > host.slot_width:
            return False
        if host.offer is None and fit.cooling == "passive" and not _passive_ok(target, rules):
            return False
    return score_sku_value(gpu, profile, profiles).eligible


def _passive_ok(target: Target, rules: PlanRules) -> bool:
    return (target.workstation or rules.workstation).passive_cards


def check_rig(host: Host, gpu: Sku, added: int, target: Target, rules: PlanRules) -> Rig | None:
    """The rig ``host`` + ``added`` cards of ``gpu`` (plus its included ones), if it fits and
    meets the target; call ``gpu_fits_host`` first."""
    if added < 0 or added > host.free_slots:
        return None
    cards = host.included_units + added
    boards = max(gpu.gpus_per_board, 1)
    vram = cards * (gpu.vram_gb or 0) * boards
    fp16 = cards * board_fp16(gpu)
    if cards == 0 or vram + 1e-9 < target.vram_gb:
        return None
    if target.fp16_tflops is not None and fp16 + 1e-9 < target.fp16_tflops:
        return None
    if target.gpus is not None and cards != target.gpus:
        return None
    limited = _power_limited(host, gpu, cards, rules)
    if limited is None:
        return None
    bandwidth = cards * (gpu.mem_bandwidth_gbs or 0) * boards
    return Rig(host, gpu, cards, added, limited, vram, fp16, bandwidth)


def board_fp16(gpu: Sku) -> float:
    """A board's FP16 TFLOP/s: tensor where it has matrix units, else plain FP16 (0 if none)."""
    per_gpu = gpu.fp16_tensor_tflops or gpu.fp16_tflops or 0.0
    return per_gpu * max(gpu.gpus_per_board, 1)


def _power_limited(host: Host, gpu: Sku, cards: int, rules: PlanRules) -> bool | None:
    """False: the PSU carries the cards; True: only power-limited; None: not even then."""
    if host.power_supply != "ac" or host.psu_watts is None or not gpu.tdp_w:
        return False  # no AC PSU to check against: the plan warns instead
    available = host.psu_watts - rules.system_reserve_w
    draw = cards * gpu.tdp_w
    if draw <= available:
        return False
    if draw * rules.power_limit <= available:
        return True
    return None
