"""One typed ``Settings``, read once at the edge (the CLI and the scheduler) from a TOML file.

The file is ``rigscout.toml`` in the working directory unless ``--config`` or the
``RIGSCOUT_CONFIG`` environment variable names another. Secrets are never written in the
file: it names the environment variables that hold them (``password_env``,
``webhook_url_env``, ``client_id_env``), and they are read here and nowhere else.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, fields
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from rigscout.config_plans import SavedPlan, saved_plans
from rigscout.config_refs import check_references
from rigscout.errors import ConfigError
from rigscout.models import Mode, SavedSearch
from rigscout.report.settings import ReportSettings, report_settings

if TYPE_CHECKING:
    from collections.abc import Mapping

    from rigscout.config_schema import ChannelSection, ConfigFile, RuleSection, SearchSection

T = TypeVar("T")
DEFAULT_CONFIG_NAME = "rigscout.toml"
DEFAULT_WEBHOOK_ENV = "RIGSCOUT_DISCORD_WEBHOOK"
DEFAULT_SMTP_PORT = 587
DEFAULT_CURRENCY = "USD"
# A 4U GPU server goes by LTL freight on a pallet (about $150-300 within the US); a bare board
# or a card in a box ships as a parcel.
DEFAULT_FREIGHT = {"server": Decimal(200), "board": Decimal(40), "gpu": Decimal(25)}
MARKETPLACES = {
    "EBAY_US": "https://www.ebay.com",
    "EBAY_GB": "https://www.ebay.co.uk",
    "EBAY_DE": "https://www.ebay.de",
    "EBAY_CA": "https://www.ebay.ca",
    "EBAY_AU": "https://www.ebay.com.au",
    "EBAY_FR": "https://www.ebay.fr",
    "EBAY_IT": "https://www.ebay.it",
    "EBAY_ES": "https://www.ebay.es",
}


@dataclass(frozen=True, slots=True)
class CollectorSettings:
    """How the search-page collector talks to eBay (or to a local stand-in via ``base_url``)."""

    base_url: str | None = None  # None: the marketplace's own site
    user_agent: str = "rigscout/0.1 (+https://github.com/rigscout/rigscout; personal price tracker)"
    requests_per_second: float = 0.5
    jitter: float = 0.5  # share of the interval added at random
    concurrency: int = 2
    timeout: float = 20.0
    retries: int = 4
    backoff: float = 2.0
    max_total_seconds: float = 900.0
    max_pages: int = 3
    max_retry_wait: float = 300.0  # a longer Retry-After defers the search until then
    throttle_factor: float = 2.0  # a 429/503 stretches every request's interval this much
    full_sweep_hours: float = 24.0  # every page of a search at least this often (0: every run)
    fast_lane_daily_requests: int = 0  # first-page polls a day between sweeps (0: off)


@dataclass(frozen=True, slots=True)
class ApiSettings:
    """eBay Browse API; used when both credentials are present."""

    client_id: str | None = field(default=None, repr=False)
    client_secret: str | None = field(default=None, repr=False)
    base_url: str = "https://api.ebay.com"
    daily_budget: int = 5000

    @property
    def enabled(self) -> bool:
        return bool(self.client_id and self.client_secret)


@dataclass(frozen=True, slots=True)
class RankSettings:
    currency: str = DEFAULT_CURRENCY
    fx_rates: Mapping[str, Decimal] = field(default_factory=lambda: {"USD": Decimal(1)})
    fx_date: date | None = None
    profile: str = "llm-inference"
    window_days: int = 30
    min_sales: int = 3  # fewer sales: the asking prices, else no reference
    strong_sales: int = 8  # this many sales (not too spread) make a strong reference
    min_seller_feedback: int = 10  # under it: a warning; zero feedback: kept out
    min_seller_positive_pct: Decimal = Decimal(0)  # under it: kept out
    check_discount: float = 0.5  # deeper under the market: "check before buying"
    # Estimated shipping per listing by category when the listing gives none (freight,
    # "not specified", pickup), in the user's currency; marked as estimated wherever shown.
    freight: Mapping[str, Decimal] = field(default_factory=lambda: dict(DEFAULT_FREIGHT))


@dataclass(frozen=True, slots=True)
class SmtpChannel:
    name: str
    host: str
    port: int
    sender: str
    recipients: tuple[str, ...]
    security: str = "starttls"  # "starttls", "ssl" or "none"
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    mode: str = "digest"  # "digest" (one mail per run) or "immediate" (one mail per deal)
    timeout: float = 30.0


@dataclass(frozen=True, slots=True)
class DiscordChannel:
    """``webhook_url`` is empty when its variable is not set: fine for ``--dry-run`` and
    ``rank``; ``missing_secrets`` names it before anything is sent."""

    name: str
    webhook_url: str = field(repr=False)
    username: str = "rigscout"
    timeout: float = 30.0
    webhook_url_env: str = DEFAULT_WEBHOOK_ENV


Channel = SmtpChannel | DiscordChannel


@dataclass(frozen=True, slots=True)
class AlertRule:
    """A deal matches when every condition that is set holds."""

    name: str
    channels: tuple[str, ...]
    skus: tuple[str, ...] = ()
    category: str | None = None
    max_price: Decimal | None = None  # landed unit price, user's currency
    min_discount: float | None = None  # 0.2 = at least 20 % under the market
    min_score: float | None = None
    profile: str | None = None


@dataclass(frozen=True, slots=True)
class AlertSettings:
    rules: tuple[AlertRule, ...] = ()
    channels: Mapping[str, Channel] = field(default_factory=dict)
    price_drop: Decimal = Decimal("0.05")  # re-alert only below last sent price by this share


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
    catalog_extra: tuple[Path, ...] = ()  # the user's own catalog files ([catalog] extra)
    plans: tuple[SavedPlan, ...] = ()  # [[plan]]: rigscout/config_plans.py


def default_database_url(cwd: Path) -> str:
    """``./rigscout.db`` when it exists (or a config sits here), else the user's data dir."""
    local = cwd / "rigscout.db"
    if local.exists() or (cwd / DEFAULT_CONFIG_NAME).exists():
        return f"sqlite:///{local}"
    from platformdirs import user_data_dir

    data = Path(user_data_dir("rigscout", appauthor=False))
    return f"sqlite:///{data / 'rigscout.db'}"


def resolve_config_path(option: str | None, environ: Mapping[str, str], cwd: Path) -> Path:
    if option:
        return Path(option)
    if environ.get("RIGSCOUT_CONFIG"):
        return Path(environ["RIGSCOUT_CONFIG"])
    return cwd / DEFAULT_CONFIG_NAME


def load_settings(
    path: Path | None, environ: Mapping[str, str], *, cwd: Path | None = None
) -> Settings:
    """Read and check the whole TOML file at ``path`` (None: defaults) and the secrets it names.

    Every problem in the file is reported at once, one line each, in a ``ConfigError``, before
    any work starts. ``RIGSCOUT_DATABASE_URL`` in the environment overrides ``database.url``.
    """
    cwd = cwd or Path.cwd()
    raw: dict[str, Any] = {}
    if path is not None:
        raw = read_toml(path)
    return _settings_from(raw, environ, cwd, path)


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
    """The file checked against ``rigscout.config_schema``: types, ranges and unknown keys."""
    from pydantic import ValidationError

    from rigscout.config_schema import ConfigFile

    try:
        return ConfigFile.model_validate(raw)
    except ValidationError as exc:
        from rigscout.config_errors import render_validation_error

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
    # Names that must exist: channels, SKUs (the user's own included), profiles.
    check_references(model, source, catalog_extra=catalog_extra)
    url = environ.get("RIGSCOUT_DATABASE_URL") or model.database.url or default_database_url(cwd)
    return Settings(
        database_url=_resolve_sqlite_path(url, base),
        searches=_searches(model.search, source),
        collector=_build(CollectorSettings, model.collector.model_dump(exclude_unset=True)),
        api=_api(model, environ),
        rank=_rank(model),
        alerts=_alerts(model, environ),
        schedule=_build(ScheduleSettings, model.schedule.model_dump(exclude_unset=True)),
        report=report_settings(model.report, base),
        config_path=path,
        catalog_extra=catalog_extra,
        plans=saved_plans(model.plan, model.alerts.channels or {}),
    )


def _build(cls: type[T], values: Mapping[str, Any]) -> T:
    """``cls(**values)`` for the keys the dataclass knows; the rest belong to other readers."""
    known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    return cls(**{k: v for k, v in values.items() if k in known})


def _resolve_sqlite_path(url: str, base: Path) -> str:
    """Relative SQLite paths in the file are relative to the file, not to the caller's cwd."""
    prefix = "sqlite:///"
    if url.startswith(prefix) and not url.startswith(prefix + "/") and ":memory:" not in url:
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
    return _build(
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
    if section.freight:
        freight.update(section.freight.model_dump(exclude_none=True))
    return _build(
        RankSettings, {**values, "fx_rates": rates, "fx_date": fx_date, "freight": freight}
    )


def _channel(name: str, section: ChannelSection, environ: Mapping[str, str]) -> Channel:
    from rigscout.config_schema import EmailChannelSection

    if isinstance(section, EmailChannelSection):
        values = section.model_dump(
            exclude_unset=True, exclude={"type", "sender", "to", "username_env", "password_env"}
        )
        return _build(
            SmtpChannel,
            {
                **values,
                "name": name,
                "port": section.port or DEFAULT_SMTP_PORT,
                "sender": section.sender,
                "recipients": tuple(section.to),
                "username": _secret(environ, section.username_env, "RIGSCOUT_SMTP_USER"),
                "password": _secret(environ, section.password_env, "RIGSCOUT_SMTP_PASSWORD"),
            },
        )
    variable = section.webhook_url_env or DEFAULT_WEBHOOK_ENV
    values = section.model_dump(exclude_unset=True, exclude={"type"})
    return _build(
        DiscordChannel,
        {
            **values,
            "name": name,
            "webhook_url": environ.get(variable, ""),
            "webhook_url_env": variable,
        },
    )


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
    return _build(AlertSettings, {**values, "rules": rules, "channels": channels})


def missing_secrets(channels: Mapping[str, Channel]) -> list[str]:
    """One line per channel that cannot send because its secret variable is not set."""
    return [
        f"alert channel {c.name!r}: environment variable {c.webhook_url_env} is not set"
        for c in channels.values()
        if isinstance(c, DiscordChannel) and not c.webhook_url
    ]
