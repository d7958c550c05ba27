"""One typed ``Settings``, read once at the edge (the CLI and the scheduler) from a TOML file.

The file is ``rigscout.toml`` in the working directory unless ``--config`` or the
``RIGSCOUT_CONFIG`` environment variable names another. Secrets are never written in the
file: it names the environment variables that hold them (``password_env``,
``webhook_url_env``, ``client_id_env``), and they are read here and nowhere else.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any

from platformdirs import user_data_dir

from rigscout.errors import ConfigError
from rigscout.models import Mode, SavedSearch
from rigscout.report.settings import ReportSettings, parse_report_settings

if TYPE_CHECKING:
    from collections.abc import Mapping

DEFAULT_CONFIG_NAME = "rigscout.toml"
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
    currency: str = "USD"
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
    name: str
    webhook_url: str = field(repr=False)
    username: str = "rigscout"
    timeout: float = 30.0


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


def default_database_url(cwd: Path) -> str:
    """``./rigscout.db`` when it exists (or a config sits here), else the user's data dir."""
    local = cwd / "rigscout.db"
    if local.exists() or (cwd / DEFAULT_CONFIG_NAME).exists():
        return f"sqlite:///{local}"
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
    """Read the TOML file at ``path`` (None or missing: defaults) and the secrets it names.

    ``RIGSCOUT_DATABASE_URL`` in the environment overrides the file's ``database.url``.
    """
    cwd = cwd or Path.cwd()
    raw: dict[str, Any] = {}
    if path is not None and path.exists():
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: not valid TOML: {exc}") from exc
    try:
        return _settings_from(raw, environ, cwd, path)
    except (KeyError, TypeError, ValueError, InvalidOperation) as exc:
        raise ConfigError(f"{path or 'configuration'}: {exc}") from exc


def _settings_from(
    raw: dict[str, Any], environ: Mapping[str, str], cwd: Path, path: Path | None
) -> Settings:
    db = _table(raw, "database")
    url = environ.get("RIGSCOUT_DATABASE_URL") or db.get("url") or default_database_url(cwd)
    return Settings(
        database_url=_resolve_sqlite_path(str(url), path.parent if path else cwd),
        searches=tuple(_search(s) for s in _list(raw, "search")),
        collector=_collector(_table(raw, "collector")),
        api=_api(_table(raw, "ebay_api"), environ),
        rank=_rank(_table(raw, "rank")),
        alerts=_alerts(_table(raw, "alerts"), environ),
        schedule=_schedule(_table(raw, "schedule")),
        report=parse_report_settings(_table(raw, "report"), path.parent if path else cwd),
        config_path=path,
    )


def _resolve_sqlite_path(url: str, base: Path) -> str:
    """Relative SQLite paths in the file are relative to the file, not to the caller's cwd."""
    prefix = "sqlite:///"
    if url.startswith(prefix) and not url.startswith(prefix + "/") and ":memory:" not in url:
        return prefix + str((base / url[len(prefix) :]).resolve())
    return url


def _table(raw: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = raw.get(key, {})
    if not isinstance(value, dict):
        raise ValueError(f"[{key}] must be a table")
    return value


def _list(raw: Mapping[str, Any], key: str) -> list[dict[str, Any]]:
    value = raw.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise ValueError(f"[[{key}]] must be an array of tables")
    return value


def _decimal(value: object) -> Decimal | None:
    return None if value is None else Decimal(str(value))


def _search(raw: dict[str, Any]) -> SavedSearch:
    name = str(raw.get("name") or raw["query"])
    modes = raw.get("modes", ["active"])
    if isinstance(modes, str):
        modes = [modes]
    marketplace = str(raw.get("marketplace", "EBAY_US")).upper()
    if marketplace not in MARKETPLACES:
        raise ValueError(f"search {name!r}: unknown marketplace {marketplace!r}")
    buying = str(raw.get("buying", "all"))
    if buying not in {"all", "buy_it_now", "auction"}:
        raise ValueError(f"search {name!r}: buying must be all, buy_it_now or auction")
    category = raw.get("category_id")
    return SavedSearch(
        name=name,
        query=str(raw["query"]),
        category_id=str(category) if category is not None else None,
        marketplace=marketplace,
        modes=tuple(Mode(m) for m in modes),
        min_price=_decimal(raw.get("min_price")),
        max_price=_decimal(raw.get("max_price")),
        buying=buying,
        condition=raw.get("condition"),
        location=raw.get("location"),
        max_pages=int(raw.get("max_pages", 3)),
    )


def _collector(raw: dict[str, Any]) -> CollectorSettings:
    known = CollectorSettings.__dataclass_fields__
    unknown = set(raw) - set(known)
    if unknown:
        raise ValueError(f"[collector] unknown keys: {', '.join(sorted(unknown))}")
    return CollectorSettings(**raw)


def _secret(
    raw: Mapping[str, Any], key: str, environ: Mapping[str, str], default_env: str
) -> str | None:
    """A secret is read from the environment variable the file names (``<key>_env``)."""
    if key in raw:
        raise ValueError(f'put secrets in the environment: use {key}_env = "VARIABLE", not {key}')
    return environ.get(str(raw.get(f"{key}_env", default_env))) or None


def _api(raw: dict[str, Any], environ: Mapping[str, str]) -> ApiSettings:
    return ApiSettings(
        client_id=_secret(raw, "client_id", environ, "EBAY_CLIENT_ID"),
        client_secret=_secret(raw, "client_secret", environ, "EBAY_CLIENT_SECRET"),
        base_url=str(raw.get("base_url", "https://api.ebay.com")),
        daily_budget=int(raw.get("daily_budget", 5000)),
    )


def _rank(raw: dict[str, Any]) -> RankSettings:
    fx = _table(raw, "fx")
    rates = {str(k).upper(): Decimal(str(v)) for k, v in fx.items() if k != "date"}
    currency = str(raw.get("currency", "USD")).upper()
    rates.setdefault(currency, Decimal(1))
    fx_date = fx.get("date")
    return RankSettings(
        currency=currency,
        fx_rates=rates,
        fx_date=date.fromisoformat(str(fx_date)) if fx_date else None,
        profile=str(raw.get("profile", "llm-inference")),
        window_days=int(raw.get("window_days", 30)),
        min_sales=int(raw.get("min_sales", 3)),
        strong_sales=int(raw.get("strong_sales", 8)),
        min_seller_feedback=int(raw.get("min_seller_feedback", 10)),
        min_seller_positive_pct=Decimal(str(raw.get("min_seller_positive_pct", 0))),
        check_discount=float(raw.get("check_discount", 0.5)),
        freight=_freight(_table(raw, "freight")),
    )


def _freight(raw: Mapping[str, Any]) -> dict[str, Decimal]:
    freight = dict(DEFAULT_FREIGHT)
    for category, amount in raw.items():
        if category not in freight:
            raise ConfigError(f"[rank.freight] {category}: expected one of {', '.join(freight)}")
        value = _decimal(amount)
        if value is None or value < 0:
            raise ConfigError(f"[rank.freight] {category} = {amount!r}: expected an amount >= 0")
        freight[category] = value
    return freight


def _channel(name: str, raw: dict[str, Any], environ: Mapping[str, str]) -> Channel:
    kind = raw.get("type")
    if kind == "email":
        recipients = raw["to"]
        if raw.get("security", "starttls") not in {"starttls", "ssl", "none"}:
            raise ValueError(f"channel {name!r}: security must be starttls, ssl or none")
        if raw.get("mode", "digest") not in {"digest", "immediate"}:
            raise ValueError(f"channel {name!r}: mode must be digest or immediate")
        return SmtpChannel(
            name=name,
            host=str(raw["host"]),
            port=int(raw.get("port", 587)),
            sender=str(raw["from"]),
            recipients=tuple([recipients] if isinstance(recipients, str) else recipients),
            security=str(raw.get("security", "starttls")),
            username=_secret(raw, "username", environ, "RIGSCOUT_SMTP_USER"),
            password=_secret(raw, "password", environ, "RIGSCOUT_SMTP_PASSWORD"),
            mode=str(raw.get("mode", "digest")),
        )
    if kind == "discord":
        url = _secret(raw, "webhook_url", environ, "RIGSCOUT_DISCORD_WEBHOOK")
        if not url:
            env = raw.get("webhook_url_env", "RIGSCOUT_DISCORD_WEBHOOK")
            raise ValueError(f"channel {name!r}: environment variable {env} is not set")
        return DiscordChannel(
            name=name, webhook_url=url, username=str(raw.get("username", "rigscout"))
        )
    raise ValueError(f"channel {name!r}: type must be 'email' or 'discord'")


def _alerts(raw: dict[str, Any], environ: Mapping[str, str]) -> AlertSettings:
    channels = {n: _channel(n, c, environ) for n, c in _table(raw, "channels").items()}
    rules: list[AlertRule] = []
    for r in _list(raw, "rule"):
        rule_channels = tuple(r.get("channels", list(channels)))
        missing = [c for c in rule_channels if c not in channels]
        if missing:
            raise ValueError(f"rule {r.get('name')!r}: unknown channels {missing}")
        skus = r.get("sku", [])
        rules.append(
            AlertRule(
                name=str(r.get("name", f"rule-{len(rules) + 1}")),
                channels=rule_channels,
                skus=tuple([skus] if isinstance(skus, str) else skus),
                category=r.get("category"),
                max_price=_decimal(r.get("max_price")),
                min_discount=float(r["min_discount"]) if "min_discount" in r else None,
                min_score=float(r["min_score"]) if "min_score" in r else None,
                profile=r.get("profile"),
            )
        )
    return AlertSettings(
        rules=tuple(rules),
        channels=channels,
        price_drop=Decimal(str(raw.get("price_drop", "0.05"))),
    )


def _schedule(raw: dict[str, Any]) -> ScheduleSettings:
    return ScheduleSettings(
        cron=str(raw.get("cron", "0 6 * * *")),
        timezone=str(raw.get("timezone", "UTC")),
        misfire_grace_seconds=int(raw.get("misfire_grace_seconds", 3600)),
    )
