"""Checks across the config file: names that must exist elsewhere.

Rules and plans name channels, catalog SKUs and profiles; searches need distinct names; the
schedule needs a real time zone and a five-field cron line. Each problem is one line, with
the closest valid name when there is one.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING

from core.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from rigscout.config.schema import ConfigFile


def check_references(model: ConfigFile, source: str, *, catalog_extra: Sequence[Path] = ()) -> None:
    """Names that must exist elsewhere: channels, catalog SKUs, profiles, the time zone."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    from ranking.catalog import load_catalog
    from ranking.profiles import load_profiles
    from ranking.titles import load_user_catalog, read_sku_name

    problems: list[str] = []
    channels = set(model.alerts.channels or {})
    profiles = load_profiles().profiles
    catalog = load_user_catalog(catalog_extra).catalog if catalog_extra else load_catalog()
    skus = {s.sku for s in catalog}

    def refuse(where: str, kind: str, names: list[str], known: set[str], hint: str = "") -> None:
        for name in names:
            if name not in known:
                close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.8)
                guess = f" (did you mean {close[0]}?)" if close else hint
                problems.append(f"{source}: {where}: unknown {kind} {name!r}{guess}")

    def refuse_skus(where: str, names: list[str]) -> None:
        for name in names:
            if name not in skus:
                hint = read_sku_name(name, catalog).hint
                problems.append(f"{source}: {where}: unknown SKU {name!r} ({hint})")

    known_profiles = f" (the profiles are: {', '.join(sorted(profiles))})"
    known_channels = (
        f" (the channels are: {', '.join(sorted(channels))})"
        if channels
        else " (no [alerts.channels.*] is configured)"
    )
    for i, rule in enumerate(model.alerts.rule or [], 1):
        where = f"[[alerts.rule]] #{i}" + (f" ({rule.name})" if rule.name else "")
        refuse(where, "channel", rule.channels or [], channels, known_channels)
        refuse_skus(where, rule.sku or [])
        refuse(
            where, "profile", [rule.profile] if rule.profile else [], set(profiles), known_profiles
        )
    for i, plan in enumerate(model.plan, 1):
        where = f"[[plan]] #{i}" + (f" ({plan.name})" if plan.name else "")
        refuse(where, "channel", plan.channels or [], channels, known_channels)
        refuse(
            where, "profile", [plan.profile] if plan.profile else [], set(profiles), known_profiles
        )
    rank_profile = [model.rank.profile] if model.rank.profile else []
    refuse("[rank]", "profile", rank_profile, set(profiles), known_profiles)
    refuse("[report]", "profile", model.report.profiles or [], set(profiles), known_profiles)
    names = [s.name or s.query for s in model.search]
    problems += [
        f"{source}: [[search]]: two searches are named {n!r}"
        for n in sorted({n for n in names if names.count(n) > 1})
    ]
    if model.schedule.timezone is not None:
        try:
            ZoneInfo(model.schedule.timezone)
        except (ZoneInfoNotFoundError, ValueError):
            problems.append(
                f"{source}: [schedule] timezone = {model.schedule.timezone!r}: "
                "not a time zone (e.g. UTC, Europe/Berlin)"
            )
    if model.schedule.cron and len(model.schedule.cron.split()) != 5:
        problems.append(
            f"{source}: [schedule] cron = {model.schedule.cron!r}: expected five fields "
            '(minute hour day month weekday), e.g. "0 6 * * *"'
        )
    if problems:
        raise ConfigError("\n".join(problems))
