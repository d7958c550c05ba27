"""Saved rig plans: the ``[[plan]]`` tables of rigscout.toml, each alerting on a cheaper rig.

```toml
[[plan]]
name = "v100-node"
vram_gb = 64
budget = 1500            # in `currency` (default: [rank] currency)
profile = "llm-inference"
channels = ["me"]        # names under [alerts.channels]; default: all of them
```

Optional: ``fp16_tflops``, ``gpus``, ``form_factor`` (any, pcie, sxm2, sxm4), ``max_auctions``.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any

from rigscout.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

KEYS = frozenset(
    {
        "name",
        "vram_gb",
        "budget",
        "profile",
        "fp16_tflops",
        "gpus",
        "form_factor",
        "max_auctions",
        "channels",
        "currency",
    }
)
FORM_FACTORS = ("any", "pcie", "sxm2", "sxm4")


@dataclass(frozen=True, slots=True)
class SavedPlan:
    """A target the daily run plans for, alerting when a cheaper complete rig appears."""

    name: str
    vram_gb: float
    channels: tuple[str, ...]
    budget: Decimal | None = None
    currency: str | None = None  # of ``budget``; None: [rank] currency
    profile: str | None = None  # None: [rank] profile
    fp16_tflops: float | None = None
    gpus: int | None = None
    form_factor: str = "any"
    max_auctions: int | None = None


def parse_saved_plans(
    raw: Sequence[Mapping[str, Any]], channels: Mapping[str, object]
) -> tuple[SavedPlan, ...]:
    """The ``[[plan]]`` tables; a ConfigError names the plan and the bad key."""
    plans = tuple(_saved_plan(i, table, channels) for i, table in enumerate(raw, 1))
    names = [p.name for p in plans]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(f"[[plan]] names must be unique: {', '.join(duplicates)}")
    return plans


def _saved_plan(number: int, raw: Mapping[str, Any], channels: Mapping[str, object]) -> SavedPlan:
    name = str(raw.get("name") or f"plan-{number}")
    where = f"[[plan]] {name!r}"
    unknown = sorted(set(raw) - KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown keys {', '.join(unknown)}")
    if "vram_gb" not in raw:
        raise ConfigError(f"{where}: vram_gb is required")
    chosen = raw.get("channels", list(channels))
    chosen = [chosen] if isinstance(chosen, str) else list(chosen)
    missing = [c for c in chosen if c not in channels]
    if missing:
        raise ConfigError(f"{where}: unknown channels {missing} (see [alerts.channels])")
    form = str(raw.get("form_factor", "any")).lower()
    if form not in FORM_FACTORS:
        raise ConfigError(f"{where}: form_factor must be one of {', '.join(FORM_FACTORS)}")
    try:
        plan = SavedPlan(
            name=name,
            vram_gb=float(raw["vram_gb"]),
            channels=tuple(str(c) for c in chosen),
            budget=_decimal(raw.get("budget")),
            currency=str(raw["currency"]).upper() if raw.get("currency") else None,
            profile=str(raw["profile"]) if raw.get("profile") else None,
            fp16_tflops=float(raw["fp16_tflops"]) if "fp16_tflops" in raw else None,
            gpus=int(raw["gpus"]) if "gpus" in raw else None,
            form_factor=form,
            max_auctions=int(raw["max_auctions"]) if "max_auctions" in raw else None,
        )
    except (TypeError, ValueError, InvalidOperation) as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    if plan.vram_gb <= 0 or (plan.budget is not None and plan.budget <= 0):
        raise ConfigError(f"{where}: vram_gb and budget must be positive")
    return plan


def _decimal(value: object) -> Decimal | None:
    return None if value is None else Decimal(str(value))
