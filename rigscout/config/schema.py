"""The shape of ``rigscout.toml`` as pydantic models: every section, key, type and range.

Validation only; ``rigscout.config.load`` turns the checked file into the frozen ``Settings`` the
rest of rigscout reads, and ``rigscout.config.errors`` turns pydantic's errors into one line
each. Every section refuses unknown keys. Defaults are not repeated here: a key left out stays
unset and the ``Settings`` dataclasses supply the default, so each default lives in one place.
"""

from __future__ import annotations

import difflib
import logging
import re
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    model_validator,
)
from pydantic_core import PydanticCustomError

from alerts.channels import ChannelSection
from core.config_types import (
    Duration,
    EnvName,
    Names,
    PositiveFloat,
    Section,
    one_or_many,
    show,
)
from core.marketplaces import marketplaces

log = logging.getLogger(__name__)

CATEGORIES = ("gpu", "server", "board")
_CURRENCY = re.compile(r"[A-Za-z]{3}")


def _to_decimal(value: object) -> Decimal:
    """TOML numbers (``250``, ``0.05``) as exact Decimals; strings and booleans are refused."""
    if isinstance(value, Decimal):
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{show(value)} is not a number (write it without quotes)")
    try:
        return Decimal(str(value))
    except InvalidOperation:
        raise ValueError(f"{show(value)} is not a number") from None


# ISO 4217 codes a buyer of eBay hardware may price in: every marketplace's currency (core/
# marketplaces.toml) and the other currencies eBay listings and buyers commonly use.
OTHER_CURRENCIES = (
    "JPY", "CNY", "HKD", "TWD", "KRW", "SGD", "INR", "NZD", "CHF", "SEK", "NOK", "DKK",
    "PLN", "CZK", "HUF", "RON", "BGN", "ISK", "TRY", "ILS", "MXN", "BRL", "ARS", "CLP",
    "COP", "ZAR", "AED", "SAR", "MYR", "THB", "PHP", "IDR", "VND", "UAH",
)  # fmt: skip


def known_currencies() -> frozenset[str]:
    return frozenset(m.currency for m in marketplaces().values()) | frozenset(OTHER_CURRENCIES)


def _currency(value: str) -> str:
    if not _CURRENCY.fullmatch(value):
        raise ValueError(f"{show(value)} is not a three-letter currency code such as USD")
    code = value.upper()
    known = known_currencies()
    if code not in known:
        close = difflib.get_close_matches(code, sorted(known), n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise ValueError(f"{show(value)} is not a currency rigscout knows{hint}")
    return code


def _marketplace(value: str) -> str:
    known = marketplaces()
    accepted = [code for code, market in known.items() if market.tested_page]
    if value not in accepted:
        if value in known:  # in core/marketplaces.toml, but its pages are not tested yet
            raise ValueError(
                f"{value} is not supported yet: no result page in its language is tested "
                "(fixtures/marketplaces/); until one is, its listings could be misread"
            )
        # A literal error, worded as pydantic words one, so the value is shown back.
        codes = [repr(code) for code in accepted]
        expected = f"{', '.join(codes[:-1])} or {codes[-1]}"
        raise PydanticCustomError(
            "literal_error", "Input should be {expected}", {"expected": expected}
        )
    return value


def _category_id(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).isdigit():
        raise ValueError(f"{show(value)} is not an eBay category number such as 27386")
    return str(value)


def _web_address(value: str) -> str:
    if urlsplit(value).scheme not in {"http", "https", "file"}:
        raise ValueError("expected an http(s):// or file:// address")
    return value


def _lower(value: object) -> object:
    return value.lower() if isinstance(value, str) else value


def _is_iso_date(value: object) -> bool:
    try:
        date.fromisoformat(str(value))
    except ValueError:
        return False
    return isinstance(value, str)


Number = Annotated[Decimal, BeforeValidator(_to_decimal)]
Amount = Annotated[Number, Field(ge=0)]
Currency = Annotated[str, AfterValidator(_currency)]
MarketplaceCode = Annotated[str, AfterValidator(_marketplace)]
Category = Literal["gpu", "server", "board"]


class DatabaseSection(Section):
    url: str | None = None


class CollectorSection(Section):
    base_url: str | None = None
    user_agent: str | None = None
    requests_per_second: PositiveFloat | None = None
    jitter: Annotated[float, Field(ge=0)] | None = None
    concurrency: Annotated[int, Field(ge=1, le=64)] | None = None
    timeout: PositiveFloat | None = None
    retries: Annotated[int, Field(ge=0, le=20)] | None = None
    backoff: Annotated[float, Field(ge=0)] | None = None
    max_total_seconds: PositiveFloat | None = None
    max_pages: Annotated[int, Field(ge=1)] | None = None
    # Read by the collector's fault handling and fast lane (issue 14).
    max_retry_wait: Annotated[float, Field(ge=0)] | None = None
    throttle_factor: PositiveFloat | None = None
    full_sweep_hours: Annotated[float, Field(ge=0)] | None = None  # 0: every run, every page
    fast_lane_daily_requests: Annotated[int, Field(ge=0)] | None = None


class EbayApiSection(Section):
    client_id_env: EnvName | None = None
    client_secret_env: EnvName | None = None
    base_url: str | None = None
    daily_budget: Annotated[int, Field(ge=1)] | None = None


class FreightSection(Section):
    server: Amount | None = None
    board: Amount | None = None
    gpu: Amount | None = None
    # the estimate's factor when a listing ships from a neighbouring country / from overseas
    same_region: Annotated[Number, Field(ge=1, le=20)] | None = None
    overseas: Annotated[Number, Field(ge=1, le=20)] | None = None


class RankSection(Section):
    currency: Currency | None = None
    profile: str | None = None
    window_days: Annotated[int, Field(ge=1)] | None = None
    min_sales: Annotated[int, Field(ge=1)] | None = None
    strong_sales: Annotated[int, Field(ge=1)] | None = None
    pool_window_days: Annotated[int, Field(ge=1, le=3650)] | None = None
    min_seller_feedback: Annotated[int, Field(ge=0)] | None = None
    min_seller_positive_pct: Annotated[Number, Field(ge=0, le=100)] | None = None
    check_discount: Annotated[float, Field(gt=0, le=1)] | None = None
    freight: FreightSection | None = None
    # Units of the user's currency per unit of each listed currency, and the rates' date;
    # or the file `rigscout fx update` writes them to (read in place of the table).
    fx: dict[str, Any] | None = None
    fx_file: str | None = None

    @model_validator(mode="after")
    def _check_fx(self) -> RankSection:
        for key, value in (self.fx or {}).items():
            if key == "date":
                if not isinstance(value, date) and not _is_iso_date(value):
                    raise ValueError(f"fx date = {show(value)}: expected a date like 2026-11-20")
                continue
            if not _CURRENCY.fullmatch(key):
                raise ValueError(f"fx {key}: expected a currency code such as EUR, or date")
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ValueError(f"fx {key} = {show(value)}: expected a rate above 0")
        self._check_fx_base()
        return self

    def _check_fx_base(self) -> None:
        """The rates are units of *your* currency per unit of each listed one: a table written
        for another currency (the starter's, in USD, kept after switching to EUR) would price
        every listing wrong, so it is refused rather than used."""
        mine = (self.currency or "USD").upper()
        rates = {k.upper(): v for k, v in (self.fx or {}).items() if k != "date"}
        own = rates.get(mine)
        if own is not None and own != 1:
            raise ValueError(
                f"currency = {mine!r} but fx {mine} = {show(own)}: the rates are units of {mine} "
                f"per unit of each listed currency, so {mine} is 1 (write the table in {mine})"
            )
        for code, rate in rates.items():
            if code != mine and rate == 1:
                raise ValueError(
                    f"fx {code} = 1 would count {code} as {mine} one to one; give the real rate "
                    f"(units of {mine} per {code}) with its date"
                )


class SearchSection(Section):
    name: str | None = None
    query: Annotated[str, Field(min_length=1)]
    category_id: Annotated[str, BeforeValidator(_category_id)] | None = None
    marketplace: MarketplaceCode | None = None
    modes: Annotated[list[Literal["active", "sold"]], BeforeValidator(one_or_many)] | None = None
    min_price: Amount | None = None
    max_price: Amount | None = None
    buying: Literal["all", "buy_it_now", "auction"] | None = None
    condition: Literal["new", "used", "for_parts"] | None = None
    location: Literal["domestic", "worldwide"] | None = None
    max_pages: Annotated[int, Field(ge=1)] | None = None

    @model_validator(mode="after")
    def _price_range(self) -> SearchSection:
        low, high = self.min_price, self.max_price
        if low is not None and high is not None and low > high:
            raise ValueError(f"min_price {self.min_price} is above max_price {self.max_price}")
        return self


class RuleSection(Section):
    name: str | None = None
    channels: Names | None = None
    sku: Names | None = None
    category: Category | None = None
    max_price: Annotated[Number, Field(gt=0)] | None = None
    min_discount: Annotated[float, Field(ge=-1, le=1)] | None = None
    min_score: Annotated[float, Field(ge=0, le=100)] | None = None
    profile: str | None = None
    new_low_days: Annotated[int, Field(ge=1, le=3650)] | None = None
    min_drop: Annotated[float, Field(gt=0, lt=1)] | None = None
    drop_pct: Annotated[float, Field(gt=0, lt=100)] | None = None  # the old word for min_drop
    ending_within: Duration | None = None
    max_per_run: Annotated[int, Field(ge=1)] | None = None

    @model_validator(mode="before")
    @classmethod
    def _drop_as_a_fraction(cls, data: Any) -> Any:
        """``drop_pct = 10`` (percent, unlike every neighbour) is read as ``min_drop = 0.1``,
        with a line saying what to write."""
        if not isinstance(data, dict) or "drop_pct" not in data:
            return data
        if "min_drop" in data:
            raise ValueError("set min_drop or drop_pct, not both (drop_pct is the old word)")
        old = data["drop_pct"]
        if isinstance(old, bool) or not isinstance(old, int | float) or not 0 < old < 100:
            return data  # the field's own check says what is wrong with it
        log.warning(
            "[[alerts.rule]] drop_pct = %g is deprecated: write min_drop = %g (a fraction, "
            "as min_discount is)",
            old,
            old / 100,
        )
        return {**{k: v for k, v in data.items() if k != "drop_pct"}, "min_drop": old / 100}


class AlertsSection(Section):
    price_drop: Annotated[Number, Field(ge=0, lt=1)] | None = None
    channels: dict[str, ChannelSection] | None = None
    rule: list[RuleSection] | None = None


class ScheduleSection(Section):
    cron: str | None = None
    timezone: str | None = None
    misfire_grace_seconds: Annotated[int, Field(ge=0)] | None = None


class PlanSection(Section):
    """A rig to plan (issue 11): what to buy for a VRAM target within a budget."""

    name: str | None = None
    vram_gb: PositiveFloat
    budget: Annotated[Number, Field(gt=0)] | None = None
    profile: str | None = None
    fp16_tflops: Annotated[float, Field(ge=0)] | None = None
    gpus: Annotated[int, Field(ge=1)] | None = None
    form_factor: (
        Annotated[Literal["any", "pcie", "sxm2", "sxm4"], BeforeValidator(_lower)] | None
    ) = None
    max_auctions: Annotated[int, Field(ge=0)] | None = None
    channels: Names | None = None
    currency: Currency | None = None


class ReportSection(Section):
    dir: str | None = None
    url: Annotated[str, AfterValidator(_web_address)] | None = None
    top_per_sku: Annotated[int, Field(ge=1)] | None = None
    history_days: Annotated[int, Field(ge=1)] | None = None
    profiles: list[str] | None = None


class CatalogSection(Section):
    extra: Names | None = None


class ConfigFile(Section):
    """The whole file. Sections in TOML order of the starter config."""

    database: DatabaseSection = DatabaseSection()
    collector: CollectorSection = CollectorSection()
    ebay_api: EbayApiSection = EbayApiSection()
    rank: RankSection = RankSection()
    schedule: ScheduleSection = ScheduleSection()
    search: list[SearchSection] = Field(default_factory=list)
    alerts: AlertsSection = AlertsSection()
    plan: list[PlanSection] = Field(default_factory=list)
    report: ReportSection = ReportSection()
    catalog: CatalogSection = CatalogSection()
