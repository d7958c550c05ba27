"""What the rig planner knows beyond the catalog: card widths, PSU watts and its own rules.

Per-SKU fit facts live in ``ranking/catalog/fit/fit.csv`` (a source for every figure); the
workstation defaults, the power reserve and the ordering in
``ranking/plan/plan.toml``. A fit row whose SKU the catalog does not (yet) carry is kept and unused.
"""

from __future__ import annotations

import csv
import tomllib
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from core.errors import ConfigError
from ranking.catalog import CATALOG_DIR

if TYPE_CHECKING:
    from collections.abc import Mapping

FIT_FILE = CATALOG_DIR / "fit" / "fit.csv"
RULES_FILE = Path(__file__).with_name("plan.toml")
POWER_SUPPLIES = frozenset({"ac", "ocp-12v", "none"})
COOLING = frozenset({"active", "passive"})


@dataclass(frozen=True, slots=True)
class Fit:
    """A SKU's fit facts: a card's width in slots; a host's widest card, PSU watts and kind.

    ``power_supply``: "ac" (its own PSUs, ``psu_watts`` usable with redundancy, None when not
    known), "ocp-12v" (12 V DC from an OCP busbar: a power shelf is needed) or "none" (a bare
    GPU board).
    """

    sku: str
    slot_width: int | None = None
    cooling: str | None = None  # a card's: "active" (fans or blower) or "passive"
    psu_watts: int | None = None
    power_supply: str | None = None
    notes: str = ""


@dataclass(frozen=True, slots=True)
class Workstation:
    """The buyer's own PC as a host: priced at 0, PCIe only."""

    gpu_slots: int = 4
    slot_width: int = 3
    psu_watts: int = 1600
    topology: str = "consumer PCIe"
    risers_above: int = 2
    passive_cards: bool = False  # passive server cards need server airflow (guide 002)


# What plans may be ordered by (the name of a figure a rig and a plan both carry), as a
# plan's sentence says it.
ORDER_MEASURES = {
    "fp16_tflops": "FP16 TFLOP/s",
    "vram_gb": "GB of VRAM",
    "bandwidth_gbs": "memory bandwidth",
}


@dataclass(frozen=True, slots=True)
class PlanRules:
    fits: Mapping[str, Fit]
    workstation: Workstation
    system_reserve_w: int
    power_limit: float
    topology_weighted: frozenset[str]
    # per profile, the rig measure its plans are ordered by per dollar (plan.toml [order])
    order_measure: Mapping[str, str] = field(default_factory=dict)
    # plan.toml [trust]: the seller flags that make a listing risky, and how much more a
    # listing of the same machine or card from a trusted seller may cost and still be chosen
    seller_risk: frozenset[str] = frozenset()
    trust_margin: float = 0.0

    @property
    def trust_weight(self) -> Decimal:
        """What a risky seller's price is weighed at (``trust_weight``)."""
        return trust_weight(self.trust_margin)

    def fit(self, sku: str) -> Fit:
        return self.fits.get(sku) or Fit(sku)


def trust_weight(margin: float) -> Decimal:
    """What a risky seller's price is weighed at against a trusted one's: ``1 + margin``
    times it."""
    return Decimal(str(1 + margin))


@cache
def load_plan_rules() -> PlanRules:
    """The shipped rules (``ranking/plan/plan.toml``) and fit facts (``catalog/fit/fit.csv``)."""
    return parse_plan_rules(_read_toml(RULES_FILE), load_fits(FIT_FILE))


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read the planner rules: {exc}") from exc


def load_fits(path: Path) -> dict[str, Fit]:
    """The fit rows of ``path``; a ConfigError names the file and row of a bad one."""
    fits: dict[str, Fit] = {}
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            for row in reader:
                where = f"{path}, row {reader.line_num}"
                fit = parse_fit_row(row, where)
                if fit.sku in fits:
                    raise ConfigError(f"{where}: duplicate SKU {fit.sku!r}")
                fits[fit.sku] = fit
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ConfigError(f"{path}: cannot read the fit data: {exc}") from exc
    return fits


def parse_fit_row(row: Mapping[str, str | None], where: str) -> Fit:
    """One fit row; every figure needs its source column filled."""
    if None in row or any(v is None for v in row.values()):
        raise ConfigError(f"{where}: wrong number of columns")
    sku = (row.get("sku") or "").strip()
    if not sku:
        raise ConfigError(f"{where}: missing 'sku'")
    width = _int(row, "slot_width", where)
    watts = _int(row, "psu_watts", where)
    supply = (row.get("power_supply") or "").strip() or None
    if supply is not None and supply not in POWER_SUPPLIES:
        raise ConfigError(f"{where} ({sku}): power_supply must be one of {sorted(POWER_SUPPLIES)}")
    cooling = (row.get("cooling") or "").strip() or None
    if cooling is not None and cooling not in COOLING:
        raise ConfigError(f"{where} ({sku}): cooling must be one of {sorted(COOLING)}")
    if (width is not None or cooling) and not (row.get("card_source") or "").strip():
        raise ConfigError(f"{where} ({sku}): slot_width/cooling need a card_source")
    if (watts is not None or supply) and not (row.get("psu_source") or "").strip():
        raise ConfigError(f"{where} ({sku}): psu_watts/power_supply need a psu_source")
    return Fit(sku, width, cooling, watts, supply, (row.get("notes") or "").strip())


def _int(row: Mapping[str, str | None], name: str, where: str) -> int | None:
    text = (row.get(name) or "").strip()
    if not text:
        return None
    try:
        value = int(text)
    except ValueError:
        raise ConfigError(f"{where}: {name} {text!r} is not a whole number") from None
    if value <= 0:
        raise ConfigError(f"{where}: {name} must be positive, not {value}")
    return value


def parse_plan_rules(raw: Mapping[str, Any], fits: Mapping[str, Fit]) -> PlanRules:
    """The rules from the parsed ``plan.toml``."""
    try:
        ws = raw.get("workstation", {})
        power = raw.get("power", {})
        workstation = Workstation(
            gpu_slots=int(ws["gpu_slots"]),
            slot_width=int(ws["slot_width"]),
            psu_watts=int(ws["psu_watts"]),
            topology=str(ws.get("topology", "consumer PCIe")),
            risers_above=int(ws.get("risers_above", 2)),
            passive_cards=bool(ws.get("passive_cards", False)),
        )
        limit = float(power["power_limit"])
        rules = PlanRules(
            fits=MappingProxyType(dict(fits)),
            workstation=workstation,
            system_reserve_w=int(power["system_reserve_w"]),
            power_limit=limit,
            topology_weighted=frozenset(raw.get("order", {}).get("topology_weighted", [])),
            order_measure=MappingProxyType(dict(raw.get("order", {}).get("measure", {}))),
            seller_risk=frozenset(raw.get("trust", {}).get("seller_risk", [])),
            trust_margin=float(raw.get("trust", {}).get("margin", 0.0)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"planner rules: missing or bad value {exc}") from exc
    if not 0 < limit <= 1:
        raise ConfigError(f"planner rules: power_limit must be in (0, 1], not {limit}")
    for profile, measure in rules.order_measure.items():
        if measure not in ORDER_MEASURES:
            raise ConfigError(
                f"planner rules: [order] measure {profile} = {measure!r}: expected one of "
                f"{', '.join(ORDER_MEASURES)}"
            )
    return rules
