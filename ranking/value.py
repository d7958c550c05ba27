"""Value metrics from catalog specs: what a listing's hardware can do, and what it costs per unit.

Effective compute follows the real limits: FP16 tensor throughput where the chip has matrix
units; otherwise its real FP16 when that is at least FP32 (P100: 2x FP32, no tensor cores);
otherwise FP32 (P40/P4 run FP16 at 1/64 rate, K80/M40 have none). Board totals multiply the
per-GPU figures by ``gpus_per_board``, but the VRAM minimum is tested per GPU, and a profile
with ``per_device`` counts one device's VRAM and bandwidth (a model must fit one GPU), while one
with ``needs_fp16`` (training) keeps FP32-only cards out instead of adding their FP32 up.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from core.models import Category

if TYPE_CHECKING:
    from collections.abc import Mapping
    from decimal import Decimal

    from ranking.catalog import Sku
    from ranking.profiles import Profile, Profiles


@dataclass(frozen=True, slots=True)
class SkuValue:
    """One SKU's totals for a profile; ``capability`` is what value-per-dollar divides by price."""

    sku: str
    category: Category
    capability: float
    compute_basis: str | None = None  # "FP16 tensor", "FP16" or "FP32"
    compute_tflops: float | None = None  # board total
    # Board totals, or one device's under a ``per_device`` profile (a K80 counts 12 GB there).
    vram_gb: float | None = None
    bandwidth_gbs: float | None = None
    devices: int = 1  # GPUs on the board
    per_gpu_vram_gb: float | None = None
    gpu_slots: int | None = None
    topology: str | None = None
    needs_host: bool = False
    eligible: bool = True  # False: below the profile's per-GPU VRAM minimum

    def totals(self) -> dict[str, float]:
        """The metrics that have a figure, keyed like ``Profile.weights`` (plus ``slots``)."""
        pairs = {
            "compute": self.compute_tflops,
            "bandwidth": self.bandwidth_gbs,
            "vram": self.vram_gb,
            "slots": float(self.gpu_slots) if self.gpu_slots else None,
        }
        return {k: v for k, v in pairs.items() if v}


def effective_compute(sku: Sku) -> tuple[str, float] | None:
    """(basis, per-GPU TFLOP/s) a buyer really gets for deep learning, or None without figures."""
    if sku.fp16_tensor_tflops:
        return "FP16 tensor", sku.fp16_tensor_tflops
    fp32 = sku.fp32_tflops or 0.0
    if sku.fp16_tflops and sku.fp16_tflops >= fp32:
        return "FP16", sku.fp16_tflops
    return ("FP32", fp32) if fp32 else None


def score_sku_value(sku: Sku, profile: Profile, profiles: Profiles) -> SkuValue:
    """The SKU's totals and its capability under ``profile`` (servers: topology-weighted slots)."""
    if sku.category is Category.GPU:
        return _gpu_value(sku, profile)
    slots = sku.gpu_slots or 0
    return SkuValue(
        sku=sku.sku,
        category=sku.category,
        capability=slots * profiles.topology_factor(sku.interconnect),
        gpu_slots=slots,
        topology=sku.interconnect,
        eligible=slots > 0,
    )


def board_value(sku: Sku) -> SkuValue:
    """A GPU board's totals (effective compute, VRAM, bandwidth of all its GPUs), before any
    profile weighs them: what the report's value chart divides today's price by."""
    gpus = max(sku.gpus_per_board, 1)
    compute = effective_compute(sku)
    compute_total = compute[1] * gpus if compute else None
    return SkuValue(
        sku=sku.sku,
        category=sku.category,
        capability=0.0,
        compute_basis=compute[0] if compute else None,
        compute_tflops=compute_total,
        vram_gb=sku.vram_gb * gpus if sku.vram_gb else None,
        bandwidth_gbs=sku.mem_bandwidth_gbs * gpus if sku.mem_bandwidth_gbs else None,
        per_gpu_vram_gb=sku.vram_gb,
        devices=gpus,
        needs_host=sku.needs_host,
    )


def _gpu_value(sku: Sku, profile: Profile) -> SkuValue:
    value = board_value(sku)
    compute = effective_compute(sku)
    if profile.per_device and value.devices > 1:
        value = replace(value, vram_gb=sku.vram_gb, bandwidth_gbs=sku.mem_bandwidth_gbs)
    totals = value.totals()
    if sku.bf16 and "compute" in totals:
        totals["compute"] *= profile.bf16_bonus
    capability = _weighted_geometric_mean(totals, profile.weights)
    eligible = capability > 0 and _left_out_by(sku, profile, compute) is None
    return replace(value, capability=capability, eligible=eligible)


def profile_leaves_out(sku: Sku, profile: Profile) -> str | None:
    """Why ``profile`` ranks none of this GPU's listings, in a few words (None: it ranks
    them), e.g. "12 GB per GPU, under the profile's 16 GB minimum"."""
    if sku.category is not Category.GPU:
        return None
    reason = _left_out_by(sku, profile, effective_compute(sku))
    if reason is None and _gpu_value(sku, profile).capability <= 0:
        weighed = ", ".join(sorted(profile.weights))
        return f"the catalog has no figure for a metric the profile weighs ({weighed})"
    return reason


def _left_out_by(sku: Sku, profile: Profile, compute: tuple[str, float] | None) -> str | None:
    """The profile's own limits: its VRAM floor per GPU, and FP16 for a profile that needs it."""
    if (sku.vram_gb or 0) < profile.min_vram_gb:
        floor = profile.min_vram_gb
        return f"{sku.vram_gb or 0:g} GB per GPU, under the profile's {floor:g} GB minimum"
    if profile.needs_fp16 and (compute is None or compute[0] == "FP32"):
        return "no usable FP16 rate, which the profile needs"
    return None


def _weighted_geometric_mean(totals: dict[str, float], weights: Mapping[str, float]) -> float:
    """prod(total ** weight); 0 when a weighted metric has no figure (it cannot be ranked)."""
    if any(totals.get(metric, 0) <= 0 for metric in weights):
        return 0.0
    return math.exp(sum(w * math.log(totals[m]) for m, w in weights.items()))


def value_metrics(value: SkuValue, landed: Decimal) -> dict[str, float]:
    """Price per unit of each metric the SKU has, e.g. ``{"price_per_vram": 6.1}``."""
    price = float(landed)
    return {f"price_per_{k}": round(price / v, 4) for k, v in value.totals().items()}
