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
from decimal import Decimal
from typing import TYPE_CHECKING

from core.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from rigscout.config.schema import PlanSection


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


def saved_plans(sections: Sequence[PlanSection], channels: Iterable[str]) -> tuple[SavedPlan, ...]:
    """The ``[[plan]]`` tables, already checked by ``rigscout/config/schema.py`` (keys, types,
    ranges) and ``config_refs.py`` (channels, profiles); only unique names are checked here."""
    every_channel = tuple(channels)
    plans = tuple(
        SavedPlan(
            name=section.name or f"plan-{number}",
            vram_gb=float(section.vram_gb),
            channels=tuple(section.channels) if section.channels is not None else every_channel,
            budget=Decimal(str(section.budget)) if section.budget is not None else None,
            currency=section.currency.upper() if section.currency else None,
            profile=section.profile,
            fp16_tflops=section.fp16_tflops,
            gpus=section.gpus,
            form_factor=section.form_factor or "any",
            max_auctions=section.max_auctions,
        )
        for number, section in enumerate(sections, 1)
    )
    names = [p.name for p in plans]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(f"[[plan]] names must be unique: {', '.join(duplicates)}")
    return plans
