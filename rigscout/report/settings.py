"""The ``[report]`` section of the config file: where the daily report is written and its URL.

``dir`` (relative to the config file) makes every run write the report there; ``url`` is where
that directory is served, and the email digest links to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from rigscout.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

KEYS = ("dir", "url", "top_per_sku", "history_days", "profiles")


@dataclass(frozen=True, slots=True)
class ReportSettings:
    dir: Path | None = None  # None: no report after a run (``rigscout report`` still works)
    url: str | None = None  # the digest's link to the report
    top_per_sku: int = 10  # deals shown per SKU and profile
    history_days: int = 90  # days of price history charted
    # Ranking profiles offered by the page's filter (each is one more ranking to build);
    # empty: every profile of ranking/profiles.toml.
    profiles: tuple[str, ...] = ()


def parse_report_settings(raw: Mapping[str, Any], base: Path) -> ReportSettings:
    """``[report]`` as settings; a relative ``dir`` is relative to ``base`` (the config's folder).

    >>> parse_report_settings({"dir": "site"}, Path("/etc/rigscout")).dir
    PosixPath('/etc/rigscout/site')
    """
    if not isinstance(raw, dict):
        raise ConfigError("[report] must be a table")
    unknown = sorted(set(raw) - set(KEYS))
    if unknown:
        raise ConfigError(f"[report] unknown keys: {', '.join(unknown)} (known: {', '.join(KEYS)})")
    folder = raw.get("dir")
    url = raw.get("url")
    if url is not None and urlsplit(str(url)).scheme not in {"http", "https", "file"}:
        raise ConfigError(f"[report] url = {url!r}: expected an http(s):// or file:// address")
    return ReportSettings(
        dir=(base / str(folder)).resolve() if folder else None,
        url=str(url) if url else None,
        top_per_sku=_positive(raw, "top_per_sku", 10),
        history_days=_positive(raw, "history_days", 90),
        profiles=_names(raw.get("profiles", [])),
    )


def _names(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"[report] profiles = {value!r}: expected a list of profile names")
    return tuple(value)


def _positive(raw: Mapping[str, Any], key: str, default: int) -> int:
    value = raw.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"[report] {key} = {value!r}: expected a whole number of at least 1")
    return value
