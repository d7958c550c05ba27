"""The ranking's records: what a caller asks for (``RankFilters``), what pricing makes of each
listing (``Priced``, ``PricedRows``), what a profile's pass scores (``Scored``) and what a buyer
gets (``Ranking``); the rig planner's view and the shortlist's population ride along.

Pricing (``ranking.pricing``), the sentences (``ranking.sentences``), the ranking itself
(``ranking.rank``), the kept ranking (``ranking.kept``) and the planner (``ranking.plan``) all
read these; nothing here computes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from datetime import timedelta
    from decimal import Decimal

    from core.models import Category, Deal, Flag
    from ranking.catalog import Sku
    from ranking.market import AuctionPrediction, Market, Reference
    from ranking.rows import ActiveRow
    from ranking.value import SkuValue


class AuctionPredictor(Protocol):
    def __call__(
        self,
        *,
        current_bid: Decimal,
        bids: int | None,
        time_left: timedelta,
        market: Decimal | None,
        spread: float | None = None,
    ) -> AuctionPrediction: ...


@dataclass(frozen=True, slots=True)
class RankFilters:
    """What the user asked to see; applied after the market and the percentiles are computed."""

    profile: str | None = None  # None: RankSettings.profile
    sku: str | None = None
    category: str | None = None
    max_price: Decimal | None = None  # landed unit price, user's currency
    buying: str = "all"  # "all", "buy_it_now" (fixed price and best offer) or "auction"
    limit: int = 50
    # False: no sentence, no price per metric (``Deal.metrics`` only the percentile), no
    # flagged or parts view: the rig planner's view of every listing, at a fraction of the cost.
    explain: bool = True
    # Only the first ``explain_top`` deals explained (and at most that many flagged and parts):
    # one ranking serves a page of the best deals and the planner's every listing.
    explain_top: int | None = None
    # Deals further down that this says yes to are explained too (the alert rules' matches:
    # a rule sees every ranked listing, and each alert carries its sentence).
    explain_also: Callable[[Deal], bool] | None = None
    # False: ``Ranking.kept_out`` left empty (only the report reads it).
    kept_out: bool = True
    # The rig planner's view: past the first ``explain_top`` deals it needs only the listings a
    # plan can buy, and a ranking from kept rows returns those alone (``ranking.kept.shortlist``);
    # a full ranking returns every listing, and the plans are the same.
    planner: PlannerView | None = None
    # The alert rules' view: past the first ``explain_top`` deals only the listings that meet
    # every bound of one alternative (a rule's conditions on the ranking's figures, loosened by
    # the columns' rounding), and those a risky seller's match is compared with. A ranking from
    # kept rows returns those alone; a full ranking returns every listing; the matches are the
    # same.
    may_match: tuple[tuple[FigureBound, ...], ...] | None = None


@dataclass(frozen=True, slots=True)
class Ranking:
    """The deals, the listings kept out by a flag, the parts view, and what was left out why."""

    deals: tuple[Deal, ...]
    flagged: tuple[Deal, ...] = ()
    parts: tuple[Deal, ...] = ()
    skipped: Mapping[str, int] = field(default_factory=dict)
    markets: Mapping[str, Market] = field(default_factory=dict)
    # Every listing a flag kept out (``flagged`` shows only the first few): no list of the
    # report may feature one.
    kept_out: frozenset[int] = frozenset()  # listing ids


@dataclass(frozen=True, slots=True)
class Priced:
    """One rankable listing once its price, market and flags are known (any profile)."""

    row: ActiveRow
    sku: Sku
    landed: Decimal
    shipping_known: bool
    freight_estimated: bool
    market: Market | None
    baseline: Decimal | None  # the market for this listing (a server: plus its GPUs)
    included_value: Decimal | None
    reference: Reference | None  # a server's: its composite (chassis + parts) or class sales
    too_few_sales: tuple[int, int] | None  # a server's sales (and days) when none is a reference
    discount: float | None
    chassis: Decimal  # the price its value is judged on (a server's, once its GPUs are priced)
    flags: tuple[Flag, ...]
    auction: AuctionPrediction | None = None
    current_bid: Decimal | None = None
    check: str | None = None  # why to check before buying
    excluded: bool = False  # a flag keeps it out of the deals
    penalty: float = 0.0  # score points its warning flags cost


@dataclass(frozen=True, slots=True)
class PricedRows:
    """What every profile's ranking shares: the listings priced, flagged and set against their
    market, the for-parts listings at their landed price, and what was left out why."""

    items: tuple[Priced, ...]
    parts: tuple[tuple[Decimal, ActiveRow], ...]
    skipped: Mapping[str, int]
    markets: Mapping[str, Market]
    unpriced: Mapping[str, int] = field(default_factory=dict)  # SKU -> listings not priced


@dataclass(frozen=True, slots=True)
class PlannerView:
    """A ranking read by the rig planner: past the first ``RankFilters.explain_top`` deals, only
    the listings a plan could buy (``plannable``). The bounds are what the planner may add to a
    listing's price (``ranking.plan.planner_view`` computes them)."""

    slots: int  # the most GPUs a host takes
    heatsink: float  # what a module's heatsink adds to its unit price
    modules: tuple[str, ...]  # the GPU SKUs a heatsink may be bought for
    rare: int = 0  # every listing of a SKU with at most this many (the report's rare hardware)
    trust_margin: float = 0.0  # how much more a risky seller's card weighs (plan.toml [trust])


@dataclass(frozen=True, slots=True)
class FigureBound:
    """A condition on a deal's figure that the kept columns can check before any listing is
    priced: ``field`` ("sku", "category", "landed_unit_price", "score", "discount") ``op``
    ("in" a set, "le", "ge") ``value``."""

    field: str
    op: str
    value: Any  # a set of SKUs or categories, a price, a score, a share


@dataclass(frozen=True, slots=True)
class Population:
    """What the exact pass needs about the listings it does not see."""

    groups: Mapping[Category, Sequence[float]]  # values per dollar of the ranked, sorted
    below_minimum: int  # listings of SKUs the profile does not rank
    flagged: int  # wanted listings a flag kept out
    kept_out: tuple[int, ...]  # their listing ids


@dataclass(frozen=True, slots=True)
class Scored:
    """A priced listing under one profile: its score and where its value per dollar stands
    among the ranked listings of its category (``value_rank`` of ``group_size``)."""

    priced: Priced
    value: SkuValue
    score: float
    percentile: float
    value_rank: int
    group_size: int
