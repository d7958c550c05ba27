"""The hardware catalog: SKUs and their specs, read from the data files in ``ranking/catalog/``.

GPU figures are per GPU (a K80 board holds two GPUs of 12 GB); ``tdp_w`` is per board.
Every figure's source is cited in the data files; ``unverified:`` marks a citation from memory.
"""

from __future__ import annotations

import csv
import dataclasses
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from core.errors import NormalizeError
from core.models import Category

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

CATALOG_DIR = Path(__file__).with_name("catalog")
INTERCONNECTS = frozenset({"nvlink", "single-root", "split-root"})
FORM_FACTORS = frozenset({"PCIe", "SXM2", "SXM4", "SXM5", "OAM"})


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
    form_factor: str | None = None  # "PCIe", "SXM2", "SXM4", "SXM5", "OAM"
    nvlink: str | None = None
    gpus_per_board: int = 1
    release_year: int | None = None
    datacenter: bool = False  # a data-center card (``segment`` = datacenter in gpus.csv)
    display_outputs: bool = True  # False: a headless card, "no video output" is no fault
    # servers and boards
    gpu_slots: int | None = None
    gpu_form_factor: str | None = None
    interconnect: str | None = None  # "nvlink", "single-root", "split-root"
    pcie_gen: int | None = None
    power_notes: str | None = None
    notes: str = ""
    source: str = ""
    # how titles name it: the model family id of ranking/catalog/aliases.toml, and words
    # that pick this SKU among its family ("ada" for the RTX 6000 Ada)
    family: str = ""
    hints: tuple[str, ...] = ()

    @property
    def headless(self) -> bool:
        """A GPU without display outputs: "no video output" says what it is, not a fault."""
        return self.category is Category.GPU and not self.display_outputs

    @property
    def needs_host(self) -> bool:
        """An SXM module is not a drop-in card: it needs an SXM server or baseboard."""
        return self.category is Category.GPU and (self.form_factor or "").startswith("SXM")

    @property
    def takes_sxm(self) -> bool:
        """A host whose GPUs are SXM modules (each under a heatsink a buyer must have)."""
        return (self.gpu_form_factor or "").startswith("SXM")

    def as_json(self) -> dict[str, object]:
        """Every field, with the category as its string value and hints as a list."""
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        data["category"] = self.category.value
        data["hints"] = list(self.hints)
        return data


class Catalog:
    """An immutable set of SKUs, looked up by id and iterated in data-file order."""

    __slots__ = ("_skus",)

    def __init__(self, skus: Mapping[str, Sku]) -> None:
        self._skus: Mapping[str, Sku] = MappingProxyType(dict(skus))

    def get(self, sku: str) -> Sku | None:
        return self._skus.get(sku)

    def __getitem__(self, sku: str) -> Sku:
        return self._skus[sku]

    def __contains__(self, sku: object) -> bool:
        return sku in self._skus

    def __iter__(self) -> Iterator[Sku]:
        return iter(self._skus.values())

    def __len__(self) -> int:
        return len(self._skus)

    def __repr__(self) -> str:
        return f"Catalog({len(self)} SKUs)"

    def as_json(self) -> list[dict[str, object]]:
        """The ``rigscout catalog --json`` contract: one object per SKU, every field."""
        return [sku.as_json() for sku in self]


def load_catalog(path: Path | None = None) -> Catalog:
    """Read the catalog from a directory of CSV files (default: the packaged data) or one CSV.

    Raises NormalizeError naming the file and row when a row is malformed or a SKU repeats.
    """
    if path is None:
        return _default_catalog()
    return _read_catalog(path)


@cache
def _default_catalog() -> Catalog:
    return _read_catalog(CATALOG_DIR)


def _read_catalog(path: Path) -> Catalog:
    files = sorted(path.glob("*.csv")) if path.is_dir() else [path]
    if not files:
        raise NormalizeError(f"{path}: no catalog CSV files")
    skus: dict[str, Sku] = {}
    for file in files:
        for line, row in _read_rows(file):
            where = f"{file}, row {line}"
            sku = parse_sku_row(row, where)
            if sku.sku in skus:
                raise NormalizeError(f"{where}: duplicate SKU {sku.sku!r}")
            skus[sku.sku] = sku
    return Catalog(skus)


def _read_rows(file: Path) -> Iterator[tuple[int, dict[str, str]]]:
    try:
        with file.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            for row in reader:
                if None in row or any(v is None for v in row.values()):
                    raise NormalizeError(f"{file}, row {reader.line_num}: wrong number of columns")
                yield reader.line_num, row
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise NormalizeError(f"{file}: cannot read catalog file: {exc}") from exc


_FLOATS = ("vram_gb", "mem_bandwidth_gbs", "fp16_tensor_tflops", "fp16_tflops", "fp32_tflops")
_INTS = ("tdp_w", "release_year", "gpu_slots", "pcie_gen")
_TEXTS = ("form_factor", "nvlink", "gpu_form_factor", "interconnect", "power_notes")


def parse_sku_row(row: Mapping[str, str], where: str) -> Sku:
    """One SKU from its data-file columns, checked; NormalizeError names ``where``."""
    values: dict[str, Any] = {}
    try:
        for name in ("sku", "name", "vendor", "source"):
            values[name] = _required(row, name)
        values["category"] = Category(_required(row, "category"))
        values.update({n: float(row[n]) for n in _FLOATS if row.get(n)})
        values.update({n: int(row[n]) for n in _INTS if row.get(n)})
        values.update({n: row[n] for n in _TEXTS if row.get(n)})
        values["bf16"] = _yes(row.get("bf16", "no"))
        values["datacenter"] = (row.get("segment") or "").strip().lower() == "datacenter"
        values["display_outputs"] = _yes(row.get("display_outputs") or "yes")
        values["gpus_per_board"] = int(row.get("gpus_per_board") or 1)
        values["notes"] = row.get("notes", "")
        values["family"] = row.get("family", "").strip()
        values["hints"] = tuple(h for h in row.get("hints", "").split("|") if h)
    except ValueError as exc:
        raise NormalizeError(f"{where}: {exc}") from exc
    return _checked(Sku(**values), where)


def _yes(value: str) -> bool:
    return value.strip().lower() in {"yes", "true", "1"}


def _required(row: Mapping[str, str], name: str) -> str:
    value = (row.get(name) or "").strip()
    if not value:
        raise ValueError(f"missing {name!r}")
    return value


def _checked(sku: Sku, where: str) -> Sku:
    problems: list[str] = []
    if sku.category is Category.GPU:
        if sku.vram_gb is None or sku.mem_bandwidth_gbs is None or sku.fp32_tflops is None:
            problems.append("a GPU needs vram_gb, mem_bandwidth_gbs and fp32_tflops")
        if sku.form_factor not in FORM_FACTORS:
            problems.append(f"form_factor {sku.form_factor!r} is not one of {sorted(FORM_FACTORS)}")
    else:
        if sku.gpu_slots is None or sku.gpu_form_factor is None:
            problems.append("a server or board needs gpu_slots and gpu_form_factor")
        if sku.interconnect not in INTERCONNECTS:
            problems.append(
                f"interconnect {sku.interconnect!r} is not one of {sorted(INTERCONNECTS)}"
            )
    if problems:
        raise NormalizeError(f"{where} ({sku.sku}): " + "; ".join(problems))
    return sku
