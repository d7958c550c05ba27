"""The plain records the report is built from: loaded by ``load.py``, scored by ``changes.py``.

Money is ``Decimal`` in the user's currency (``RankSettings.currency``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, NamedTuple, Protocol

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import date, datetime

    from core.models import Deal
    from db.report_rows import ListingNews
    from db.runs import RunSummary
    from ranking.catalog import Sku
    from ranking.market import Market


class RigPlan(Protocol):
    """What the report needs from one of the planner's rigs (any object with these fields)."""

    @property
    def target(self) -> str: ...  # what it was planned for: "cheapest 64 GB rig"

    @property
    def name(self) -> str: ...  # "4× Tesla V100 SXM2 16GB in a Supermicro SYS-4028GR-TXR"

    @property
    def total_price(self) -> Decimal: ...  # landed, user's currency

    @property
    def currency(self) -> str: ...

    @property
    def figures(self) -> str: ...  # "64 GB VRAM · … · $23.44/GB · NVLink"

    @property
    def summary(self) -> str: ...  # the planner's sentence: why this rig

    @property
    def warnings(self) -> Sequence[str]: ...  # what to check before buying

    @property
    def links(self) -> Sequence[tuple[str, str]]: ...  # (label, listing URL) to buy it


@dataclass(frozen=True, slots=True)
class ProfileDeals:
    """One ranking profile's deals (the ranker's ``Deal`` records, best first)."""

    profile: str
    description: str
    deals: tuple[Deal, ...]
    skipped: Mapping[str, int] = field(default_factory=dict)


class SoldPoint(NamedTuple):
    """One sale as the price history shows it. A NamedTuple rather than a frozen dataclass: a
    report holds one per sale of its window (200,000 at a million listings), and a tuple is
    several times cheaper to build; its order is the page's (SKU, day, price, weight)."""

    sku: str
    day: date
    price: Decimal  # landed unit price
    weight: Decimal = Decimal(1)  # ranking.market.sale_weight: best offers and presumed count less


@dataclass(frozen=True, slots=True)
class AskingDay:
    """The range of landed unit asking prices seen on one day, priced as each deal is."""

    sku: str
    day: date
    low: Decimal
    high: Decimal


@dataclass(frozen=True, slots=True)
class SentAlert:
    sent_at: datetime
    channel: str
    deal: Deal  # the deal as it was sent


@dataclass(frozen=True, slots=True)
class NewListing:
    """A listing first seen recently, of a SKU with few active listings."""

    listing_id: int
    sku: str
    title: str
    url: str
    first_seen: datetime
    price: Decimal  # asking price, listing's currency
    currency: str
    active_of_sku: int  # active listings of this SKU
    # The ranker's view of it (landed price, a running auction's likely end, flags, seller),
    # when ranked; None: shown at its asking price.
    deal: Deal | None = None


@dataclass(frozen=True, slots=True)
class ReportData:
    """Everything one report shows, as of ``now``."""

    now: datetime
    currency: str
    profile: str  # the default profile, shown first
    window_days: int  # the market reference's window
    views: tuple[ProfileDeals, ...]
    markets: Mapping[str, Market]
    skus: Mapping[str, Sku]
    sold: tuple[SoldPoint, ...] = ()
    asking: tuple[AskingDay, ...] = ()
    runs: tuple[RunSummary, ...] = ()
    alerts: tuple[SentAlert, ...] = ()
    new_rare: tuple[NewListing, ...] = ()
    history_since: date | None = None
    plan_deals: Mapping[str, tuple[Deal, ...]] = field(default_factory=dict)  # by profile
    kept_out: tuple[Deal, ...] = ()  # listings a risk flag kept out, with why (all profiles)
    news: Mapping[int, ListingNews] = field(default_factory=dict)  # by listing id
