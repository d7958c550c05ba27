"""One typed ``Settings``, read once at the edge (the CLI and the scheduler) from a TOML file.

The file is the one ``--config`` or the ``RIGSCOUT_CONFIG`` environment variable names, else
``rigscout.toml`` in the working directory, else ``rigscout.toml`` in the user's config folder
(``$XDG_CONFIG_HOME/rigscout/``, by default ``~/.config/rigscout/``). Secrets are never
written in the file: it names the environment variables that hold them (``password_env``,
``webhook_url_env``, ``client_id_env``), and they are read here and nowhere else.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

from alerts.settings import (
    AlertRule,
    AlertSettings,
    Channel,
)
from core.errors import ConfigError
from core.models import Mode, SavedSearch
from core.secrets import add_secrets, credential_forms
from core.settings import (
    DEFAULT_CURRENCY,
    DEFAULT_FREIGHT,
    DEFAULT_FREIGHT_FACTORS,
    ApiSettings,
    CollectorSettings,
    RankSettings,
    build_settings,
)
from rigscout.config.plans import SavedPlan, saved_plans
from rigscout.config.refs import check_references
from rigscout.config.report import ReportSettings, report_settings

if TYPE_CHECKING:
    from collections.abc import Mapping

    from alerts.channels import ChannelSection
    from rigscout.config.schema import ConfigFile, RuleSection, SearchSection

DEFAULT_CONFIG_NAME = "rigscout.toml"


@dataclass(frozen=True, slots=True)
class ScheduleSettings:
    cron: str = "0 6 * * *"
    timezone: str = "UTC"
    misfire_grace_seconds: int = 3600


@dataclass(frozen=True, slots=True)
class Settings:
    database_url: str
    searches: tuple[SavedSearch, ...] = ()
    collector: CollectorSettings = field(default_factory=CollectorSettings)
    api: ApiSettings = field(default_factory=ApiSettings)
    rank: RankSettings = field(default_factory=RankSettings)
    alerts: AlertSettings = field(default_factory=AlertSettings)
    schedule: ScheduleSettings = field(default_factory=ScheduleSettings)
    report: ReportSettings = field(default_factory=ReportSettings)
    config_path: Path | None = None
    fx_file: Path | None = None  # [rank] fx_file, where `rigscout fx update` writes the rates
    catalog_extra: tuple[Path, ...] = ()  # the user's own catalog files ([catalog] extra)
    plans: tuple[SavedPlan, ...] = ()  # [[plan]]: rigscout/config/plans.py


DEFAULT_DATABASE_NAME = "rigscout.db"


def default_database_url(cwd: Path, config: Path | None = None) -> str:
    """The SQLite file next to the config file; with no config, ``./rigscout.db`` when it
    exists, else the one in the user's data folder."""
    if config is not None:
        return f"sqlite:///{config.parent / DEFAULT_DATABASE_NAME}"
    local = cwd / DEFAULT_DATABASE_NAME
    if local.exists():
        return f"sqlite:///{local}"
    return f"sqlite:///{user_data_database()}"


def user_data_database() -> Path:
    """Where the database of runs without a config file lives (the user's data folder)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("rigscout", appauthor=False)) / DEFAULT_DATABASE_NAME


def user_config_file(environ: Mapping[str, str]) -> Path:
    """``rigscout.toml`` in the user's config folder: ``$XDG_CONFIG_HOME/rigscout`` when the
    variable is set, else the platform's (``~/.config/rigscout`` on Linux)."""
    xdg = environ.get("XDG_CONFIG_HOME")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / "rigscout" / DEFAULT_CONFIG_NAME
    from platformdirs import user_config_dir

    return Path(user_config_dir("rigscout", appauthor=False)) / DEFAULT_CONFIG_NAME


def resolve_config_path(option: str | None, environ: Mapping[str, str], cwd: Path) -> Path:
    """The config file to read: ``--config``, ``$RIGSCOUT_CONFIG``, ``./rigscout.toml``, then
    the user's config folder. When none exists, ``./rigscout.toml`` (where ``init`` writes)."""
    if option:
        return Path(option)
    if environ.get("RIGSCOUT_CONFIG"):
        return Path(environ["RIGSCOUT_CONFIG"])
    local = cwd / DEFAULT_CONFIG_NAME
    if local.exists():
        return local
    user = user_config_file(environ)
    return user if user.is_file() else local


def load_settings(
    path: Path | None,
    environ: Mapping[str, str],
    *,
    cwd: Path | None = None,
    without_rates: bool = False,
) -> Settings:
    """Read and check the whole TOML file at ``path`` (None: defaults) and the secrets it names.

    Every problem in the file is reported at once, one line each, in a ``ConfigError``, before
    any work starts. ``RIGSCOUT_DATABASE_URL`` in the environment overrides ``database.url``.
    ``without_rates``: a ``[rank] fx_file`` that is missing or unreadable is no error (the
    rates are then the defaults): ``rigscout fx update`` is what writes it.
    """
    cwd = cwd or Path.cwd()
    raw: dict[str, Any] = {}
    if path is not None:
        raw = read_toml(path)
        try:
            raw = _with_fx_file(raw, path)
        except ConfigError:
            if not without_rates or "fx" in raw.get("rank", {}):
                raise
    settings = _settings_from(raw, environ, cwd, path)
    add_secrets(secret_values(settings))  # masked from here on, wherever text goes
    return settings


def secret_values(settings: Settings) -> tuple[str, ...]:
    """Every secret the settings hold: API keys, channel secrets, the database password."""
    from alerts.channels import secret_values as channel_secrets

    api: tuple[str | None, ...] = (
        settings.api.client_id,
        settings.api.client_secret,
        *credential_forms(settings.api.client_id, settings.api.client_secret),  # OAuth's Basic
    )
    database = urlsplit(settings.database_url).password
    return tuple(s for s in (*api, database) if s) + channel_secrets(
        settings.alerts.channels.values()
    )


def _with_fx_file(raw: dict[str, Any], path: Path) -> dict[str, Any]:
    """``[rank] fx_file``: the rates table read from that file (``rigscout fx update`` writes
    it), checked as a ``[rank.fx]`` table would be."""
    rank = raw.get("rank")
    if not isinstance(rank, dict) or not isinstance(rank.get("fx_file"), str):
        return raw  # absent, or a wrong type the schema reports
    name = rank["fx_file"]
    if "fx" in rank:
        raise ConfigError(f"{path.name}: [rank]: set fx_file or a [rank.fx] table, not both")
    rates = path.parent / name
    try:
        table = tomllib.loads(rates.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(
            f"{path.name}: [rank] fx_file {rates} does not exist (run `rigscout fx update`)"
        ) from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path.name}: [rank] fx_file {rates} cannot be read ({exc})") from None
    return {**raw, "rank": {**rank, "fx": table}}


def read_toml(path: Path) -> dict[str, Any]:
    """The parsed file; a missing, unreadable or malformed file is one ConfigError line."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist (run `rigscout init`)") from None
    except IsADirectoryError:
        raise ConfigError(f"config file {path} is a directory, not a file") from None
    except PermissionError:
        raise ConfigError(f"config file {path} cannot be read (permission denied)") from None
    except OSError as exc:
        raise ConfigError(f"config file {path} cannot be read ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not a text file (expected UTF-8 TOML)") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def validate_config(raw: Mapping[str, Any], source: str) -> ConfigFile:
    """The file checked against ``rigscout.config.schema``: types, ranges and unknown keys."""
    from pydantic import ValidationError

    from rigscout.config.schema import ConfigFile

    try:
        return ConfigFile.model_validate(raw)
    except ValidationError as exc:
        from rigscout.config.errors import render_validation_error

        raise ConfigError(
            "\n".join(render_validation_error(exc, ConfigFile, raw, source))
        ) from None


def _settings_from(
    raw: dict[str, Any], environ: Mapping[str, str], cwd: Path, path: Path | None
) -> Settings:
    source = path.name if path else "configuration"
    model = validate_config(raw, source)
    base = path.parent if path else cwd
    catalog_extra = tuple(base / name for name in model.catalog.extra or ())
    fx_file = base / model.rank.fx_file if model.rank.fx_file else None
    # Names that must exist: channels, SKUs (the user's own included), profiles.
    check_references(model, source, catalog_extra=catalog_extra)
    url = (
        environ.get("RIGSCOUT_DATABASE_URL")
        or model.database.url
        or default_database_url(cwd, path)
    )
    return Settings(
        database_url=_resolve_sqlite_path(url, base),
        searches=_searches(model.search, source),
        collector=build_settings(CollectorSettings, model.collector.model_dump(exclude_unset=True)),
        api=_api(model, environ),
        rank=_rank(model),
        alerts=_alerts(model, environ),
        schedule=build_settings(ScheduleSettings, model.schedule.model_dump(exclude_unset=True)),
        report=report_settings(model.report, base),
        config_path=path,
        fx_file=fx_file,
        catalog_extra=catalog_extra,
        plans=saved_plans(model.plan, model.alerts.channels or {}),
    )


def _resolve_sqlite_path(url: str, base: Path) -> str:
    """Relative SQLite paths in the file are relative to the file, not to the caller's cwd."""
    prefix = "sqlite:///"
    relative = not url.startswith((prefix + "/", prefix + "file:"))  # file: is a SQLite URI
    if url.startswith(prefix) and relative and ":memory:" not in url:
        return prefix + str((base / url[len(prefix) :]).resolve())
    return url


def _searches(sections: list[SearchSection], source: str) -> tuple[SavedSearch, ...]:
    searches = []
    for s in sections:
        values = s.model_dump(exclude_unset=True, exclude={"modes"})
        values["name"] = s.name or s.query
        if s.modes is not None:
            values["modes"] = tuple(Mode(m) for m in dict.fromkeys(s.modes))
        searches.append(SavedSearch(**values))
    return tuple(searches)


def _secret(environ: Mapping[str, str], variable: str | None, default: str) -> str | None:
    return environ.get(variable or default) or None


def _api(model: ConfigFile, environ: Mapping[str, str]) -> ApiSettings:
    section = model.ebay_api
    return build_settings(
        ApiSettings,
        {
            **section.model_dump(
                exclude_unset=True, exclude={"client_id_env", "client_secret_env"}
            ),
            "client_id": _secret(environ, section.client_id_env, "EBAY_CLIENT_ID"),
            "client_secret": _secret(environ, section.client_secret_env, "EBAY_CLIENT_SECRET"),
        },
    )


def _rank(model: ConfigFile) -> RankSettings:
    section = model.rank
    values = section.model_dump(exclude_unset=True, exclude={"fx", "freight"})
    fx = dict(section.fx or {})
    fx_date = fx.pop("date", None)
    if isinstance(fx_date, str):
        fx_date = date.fromisoformat(fx_date)
    currency = section.currency or DEFAULT_CURRENCY
    rates = {k.upper(): Decimal(str(v)) for k, v in fx.items()}
    rates.setdefault(currency, Decimal(1))
    freight = {**DEFAULT_FREIGHT}
    factors = {**DEFAULT_FREIGHT_FACTORS}
    if section.freight:
        given = section.freight.model_dump(exclude_none=True)
        factors.update(
            {key: Decimal(str(given.pop(name))) for name, key in _FACTORS.items() if name in given}
        )
        freight.update(given)
    return build_settings(
        RankSettings,
        {
            **values,
            "fx_rates": rates,
            "fx_date": fx_date,
            "freight": freight,
            "freight_factors": factors,
        },
    )


_FACTORS = {"same_region": "region", "overseas": "overseas"}  # [rank.freight] -> origin


def _channel(name: str, section: ChannelSection, environ: Mapping[str, str]) -> Channel:
    from alerts.channels import channel_from_section

    return cast("Channel", channel_from_section(name, section, environ))


def _rule(i: int, section: RuleSection, channels: Mapping[str, Channel]) -> AlertRule:
    values = section.model_dump(exclude_unset=True, exclude={"name", "channels", "sku"})
    return AlertRule(
        name=section.name or f"rule-{i}",
        channels=tuple(section.channels if section.channels is not None else channels),
        skus=tuple(section.sku or ()),
        **values,
    )


def _alerts(model: ConfigFile, environ: Mapping[str, str]) -> AlertSettings:
    section = model.alerts
    channels = {n: _channel(n, c, environ) for n, c in (section.channels or {}).items()}
    rules = tuple(_rule(i, r, channels) for i, r in enumerate(section.rule or [], 1))
    values = section.model_dump(exclude_unset=True, include={"price_drop"})
    return build_settings(AlertSettings, {**values, "rules": rules, "channels": channels})
