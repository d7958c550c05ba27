"""Workload profiles (``llm-inference``, ``training``, ``capacity``) and server topology weights.

The weights are data, in ``ranking/profiles.toml``; ``RankSettings.profile`` names the default.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from core.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Mapping

METRICS = ("compute", "bandwidth", "vram")


@dataclass(frozen=True, slots=True)
class Profile:
    """How a workload weighs a GPU. ``weights`` (over ``METRICS``) sum to 1."""

    name: str
    description: str
    weights: Mapping[str, float]
    min_vram_gb: float = 0.0  # per GPU
    bf16_bonus: float = 1.0  # multiplies effective compute of cards with hardware BF16
    # A dual-GPU board (K80) is two devices: VRAM and bandwidth count per device, not summed.
    per_device: bool = False
    # Cards without usable FP16 (P40, M40, K80: FP32 only) are below this profile's minimum.
    needs_fp16: bool = False
    # Score points off a card current software has left behind (the ``software_support`` flag:
    # CUDA 12.x at most, ROCm deprecated): how much this workload prefers supported cards.
    unsupported_penalty: float = 0.0

    @property
    def primary_metric(self) -> str:
        """The metric with the largest weight: the one the explanation quotes."""
        return max(self.weights, key=lambda m: self.weights[m])


@dataclass(frozen=True, slots=True)
class Profiles:
    profiles: Mapping[str, Profile]
    topology: Mapping[str, float]

    def get(self, name: str) -> Profile:
        """The profile called ``name``, or a ConfigError listing the known ones."""
        try:
            return self.profiles[name]
        except KeyError:
            known = ", ".join(sorted(self.profiles))
            raise ConfigError(f"unknown ranking profile {name!r} (known: {known})") from None

    def topology_factor(self, interconnect: str | None) -> float:
        return self.topology.get(interconnect or "unknown", self.topology["unknown"])


@cache
def load_profiles() -> Profiles:
    """The profiles shipped in ``ranking/profiles.toml``."""
    text = resources.files("ranking").joinpath("profiles.toml").read_text(encoding="utf-8")
    return parse_profiles(tomllib.loads(text))


def parse_profiles(raw: Mapping[str, Any]) -> Profiles:
    """Profiles from the parsed TOML; a ConfigError names the first bad entry."""
    profiles = {name: _profile(name, body) for name, body in raw.get("profile", {}).items()}
    topology = {str(k): float(v) for k, v in raw.get("topology", {}).items()}
    if "unknown" not in topology:
        raise ConfigError("profiles: [topology] needs an 'unknown' factor")
    return Profiles(profiles=profiles, topology=topology)


def _profile(name: str, body: Mapping[str, Any]) -> Profile:
    weights = {str(k): float(v) for k, v in body.get("weights", {}).items()}
    unknown = set(weights) - set(METRICS)
    if unknown or not weights:
        raise ConfigError(f"profile {name!r}: weights must name some of {', '.join(METRICS)}")
    if abs(sum(weights.values()) - 1.0) > 1e-9 or min(weights.values()) <= 0:
        raise ConfigError(f"profile {name!r}: weights must be positive and sum to 1")
    return Profile(
        name=name,
        description=str(body.get("description", "")),
        weights=weights,
        min_vram_gb=float(body.get("min_vram_gb", 0)),
        bf16_bonus=float(body.get("bf16_bonus", 1.0)),
        per_device=bool(body.get("per_device", False)),
        needs_fp16=bool(body.get("needs_fp16", False)),
        unsupported_penalty=float(body.get("unsupported_penalty", 0.0)),
    )
