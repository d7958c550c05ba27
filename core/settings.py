"""The settings each pipeline stage takes: the collector, the Browse API and the ranker.

They are plain frozen records, read and checked once at the edge (``rigscout.config``) and
passed down; no stage reads a file or the environment itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import date

DEFAULT_CURRENCY = "USD"
# A 4U GPU server goes by LTL freight on a pallet (about $150-300 within the US); a bare board
# or a card in a box ships as a parcel.
DEFAULT_FREIGHT = {"server": Decimal(200), "board": Decimal(40), "gpu": Decimal(25)}
# From abroad the same box costs more: from a neighbour (Canada for eBay US) by road or a
# cross-border parcel, about half again; from overseas (China, Hong Kong, Taiwan to the US) by
# air freight, about three times, before customs or import duty (a 4U server by air from Hong
# Kong runs $500-800; a card by express courier $50-90).
DEFAULT_FREIGHT_FACTORS = {"region": Decimal("1.5"), "overseas": Decimal(3)}


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
    # a thin server market borrows from this many days, then from its family (evidence lowered)
    pool_window_days: int = 90
    min_seller_feedback: int = 10  # under it: a warning; zero feedback: kept out
    min_seller_positive_pct: Decimal = Decimal(0)  # under it: kept out
    check_discount: float = 0.5  # deeper under the market: "check before buying"
    # Estimated shipping per listing by category when the listing gives none (freight,
    # "not specified", pickup), in the user's currency; marked as estimated wherever shown.
    freight: Mapping[str, Decimal] = field(default_factory=lambda: dict(DEFAULT_FREIGHT))
    # the estimate's factor by where the listing ships from ("region", "overseas"; home is 1)
    freight_factors: Mapping[str, Decimal] = field(
        default_factory=lambda: dict(DEFAULT_FREIGHT_FACTORS)
    )


T = TypeVar("T")


def build_settings(cls: type[T], values: Mapping[str, Any]) -> T:
    """``cls(**values)`` for the keys the settings record knows: keys left out keep the
    record's defaults, and keys other readers use are passed over."""
    known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    return cls(**{k: v for k, v in values.items() if k in known})
