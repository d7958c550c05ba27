"""The ``[report]`` section of the config file: where the daily report is written and its URL.

``dir`` (relative to the config file) makes every run write the report there; ``url`` is where
that directory is served, and the email digest links to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from rigscout.config.schema import ReportSection


@dataclass(frozen=True, slots=True)
class ReportSettings:
    dir: Path | None = None  # None: no report after a run (``rigscout report`` still works)
    url: str | None = None  # the digest's link to the report
    top_per_sku: int = 10  # deals shown per SKU and profile
    history_days: int = 90  # days of price history charted
    # Ranking profiles offered by the page's filter (each is one more ranking to build);
    # empty: every profile of ranking/profiles.toml.
    profiles: tuple[str, ...] = ()


def report_settings(section: ReportSection, base: Path) -> ReportSettings:
    """``[report]``, checked by ``rigscout/config/schema.py`` (keys, types, the URL's scheme)
    and ``config_refs.py`` (profile names), as settings; a relative ``dir`` is relative to
    ``base``, the config file's folder."""
    values = section.model_dump(exclude_none=True)
    if "dir" in values:
        values["dir"] = (base / values["dir"]).resolve()
    if "profiles" in values:
        values["profiles"] = tuple(values["profiles"])
    return ReportSettings(**values)
