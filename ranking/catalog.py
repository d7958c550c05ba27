"""The hardware catalog: SKUs and their specs, read from the data files in ``ranking/catalog/``.

GPU figures are per GPU (a K80 board holds two GPUs of 12 GB); ``tdp_w`` is per board.
Every figure's source is cited in the data files.
"""

from __future__ import annotations

from dataclasses import dataclass

from rigscout.models import Category


@dataclass(frozen=True, slots=True)
class Sku:
    """One catalog entry. GPU fields are None for servers and boards, and the reverse."""

    sku: str
    category: Category
    name: str
    vendor: str
    # GPUs (per GPU)
    vram_gb: float | None = None
    mem_bandwidth_gbs: float | None = None
    fp16_tensor_tflops: float | None = None  # dense, FP32 accumulate; None: no matrix units
    fp16_tflops: float | None = None  # non-tensor FP16; None: none; tiny on P40/P4
    fp32_tflops: float | None = None
    bf16: bool = False
    tdp_w: int | None = None
    form_factor: str | None = None  # "PCIe", "SXM2", "SXM4", "OAM"
    nvlink: str | None = None
    gpus_per_board: int = 1
    release_year: int | None = None
    # servers and boards
    gpu_slots: int | None = None
    gpu_form_factor: str | None = None
    interconnect: str | None = None  # "nvlink", "single-root", "split-root"
    pcie_gen: int | None = None
    power_notes: str | None = None
    notes: str = ""
    source: str = ""

    @property
    def needs_host(self) -> bool:
        """An SXM module is not a drop-in card: it needs an SXM server or baseboard."""
        return self.category is Category.GPU and (self.form_factor or "").startswith("SXM")
