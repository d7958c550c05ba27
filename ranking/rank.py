"""Rank active listings into deals: pure rules over plain rows, no database.

``rank_rows`` takes the active listings at their latest price and the recent sales (the store
loads both: ``db/rank_rows.py``; the pipeline and the CLI pass them in) and returns the deals,
best first, with every number a buyer checks: the landed unit price (a running auction at its
predicted end, an unknown shipping cost at an estimated freight), the market reference and its
evidence, the value in the profile, the risk flags, and one sentence saying why.

Listings left out are counted by reason in ``Ranking.skipped``; listings with an excluding flag
are kept in ``Ranking.flagged`` (``rank --include-flagged``), for-parts and accessory listings in
``Ranking.parts`` (``rank --include-parts``): nothing is dropped silently.
"""

from __future__ import annotations

import bisect
import heapq
from dataclasses import dataclass, field, replace
from datetime import timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from core import fmt
from core.errors import ConfigError
from core.models import BuyingFormat, Category, Deal, Flag, Kind
from ranking.auction import bucket_until, predict_final
from ranking.explain import ReasonFacts, render_reason
from ranking.flags import flag_listing, load_signals
from ranking.landed import fx_rate, landed_unit_price, landed_with_freight
from ranking.market import score_market
from ranking.profiles import load_profiles
from ranking.scam import load_scam_rules, nearest_sibling_market, new_accounts, scam_reason
from ranking.score import score_deal
from ranking.server_market import ServerReferences, server_references
from ranking.topology import title_topology
from ranking.value import score_sku_value, value_metrics

if TYPE_CHECKING:
    from collections.abc import Callable, Container, Iterable, Mapping, Sequence
    from datetime import datetime

    from core.settings import RankSettings
    from ranking.auction import AuctionPrediction
    from ranking.catalog import Sku
    from ranking.flags import Signals
    from ranking.ignores import Ignores
    from ranking.landed import Landed
    from ranking.market import Market
    from ranking.profiles import Profile, Profiles
    from ranking.rows import ActiveRow, SoldRow
    from ranking.server_market import Reference
    from ranking.shortlist import PlannerView, Population
    from ranking.value import SkuValue

BUYING = ("all", "buy_it_now", "auction")
AUCTION = BuyingFormat.AUCTION.value  # enum member access is slow in the per-listing loops
ITEM, PARTS = Kind.ITEM.value, (Kind.ACCESSORY.value, Kind.FOR_PARTS.value)
PARTS_WORDING = frozenset({"read_description", "as_is", "untested", "no_display", "locked"})
ZERO = Decimal(0)
PCIE_TOPOLOGIES = ("single-root", "split-root")
NO_END = timedelta(days=30)  # an auction whose end time is unknown is treated as far from it


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
    # False: ``Ranking.kept_out`` left empty (only the report reads it; it costs a lookup of
    # every kept-out listing's URL on a large store).
    kept_out: bool = True
    # The rig planner's view: past the first ``explain_top`` deals it needs only the listings a
    # plan can buy, and a ranking from kept rows returns those alone (``ranking.shortlist``);
    # a full ranking returns every listing, and the plans are the same.
    planner: PlannerView | None = None


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
    kept_out: frozenset[str] = frozenset()  # listing URLs


@dataclass(frozen=True, slots=True)
class _Priced:
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

    items: tuple[_Priced, ...]
    parts: tuple[tuple[Decimal, ActiveRow], ...]
    skipped: Mapping[str, int]
    markets: Mapping[str, Market]
    unpriced: Mapping[str, int] = field(default_factory=dict)  # SKU -> listings not priced


def rank_rows(
    active: Sequence[ActiveRow],
    sales: Iterable[SoldRow],
    skus: Mapping[str, Sku],
    settings: RankSettings,
    *,
    now: datetime,
    filters: RankFilters | None = None,
    predict: AuctionPredictor = predict_final,
    profiles: Profiles | None = None,
) -> Ranking:
    """The ranking as of ``now``: deals best first (at most ``filters.limit`` in each view).
    ``profiles``: the workload profiles (default: ``ranking/profiles.toml``)."""
    wanted = eligible_skus(skus, settings, [filters or RankFilters()])
    priced = price_rows(active, sales, skus, settings, now=now, predict=predict, only=wanted)
    return rank_priced(priced, skus, settings, now=now, filters=filters, profiles=profiles)


def eligible_skus(
    skus: Mapping[str, Sku], settings: RankSettings, filters: Iterable[RankFilters]
) -> frozenset[str]:
    """The SKUs some of ``filters``' profiles rank (the others are below a profile's minimum)."""
    profiles = load_profiles()
    wanted: set[str] = set()
    for f in filters:
        profile = profiles.get(f.profile or settings.profile)
        wanted.update(c for c, s in skus.items() if score_sku_value(s, profile, profiles).eligible)
    return frozenset(wanted)


def price_rows(
    active: Sequence[ActiveRow],
    sales: Iterable[SoldRow],
    skus: Mapping[str, Sku],
    settings: RankSettings,
    *,
    now: datetime,
    predict: AuctionPredictor = predict_final,
    only: Container[str] | None = None,
    ignores: Ignores | None = None,
) -> PricedRows:
    """The profile-independent half of ranking: landed prices, auction ends, markets, flags.

    Rank one ``PricedRows`` under several profiles or filters with ``rank_priced``. ``only``:
    the SKUs worth pricing (``eligible_skus``); the others are counted below the profile's
    minimum without the work (their asking prices still make their market). ``ignores``: what
    the user asked never to see; those listings carry the ``ignored`` flag (kept out).
    """
    skipped: dict[str, int] = {}
    items: list[tuple[ActiveRow, Landed]] = []
    parts: list[tuple[Decimal, ActiveRow]] = []
    for row in active:
        landing = land_row(row, skus, settings, now)
        if landing.landed is not None:
            items.append((row, landing.landed))
        elif landing.part_price is not None:
            parts.append((landing.part_price, row))
        else:
            skipped[landing.outcome] = skipped.get(landing.outcome, 0) + 1
    sales = sales if isinstance(sales, list | tuple) else list(sales)
    markets, servers = price_markets(sales, asking_prices(items), skus, settings, now)
    accounts = new_accounts(
        (
            (row.seller, row.seller_feedback, row.quantity, landed.unit_price)
            for row, landed in items
        ),
        settings,
        load_scam_rules(),
    )
    pricer = Pricer(skus, markets, servers, settings, now, predict, accounts, ignores)
    priced = []
    unpriced: dict[str, int] = {}
    for row, landed in items:
        code = str(row.sku)
        if only is None or code in only:
            priced.append(pricer.price(row, landed))
        else:
            unpriced[code] = unpriced.get(code, 0) + 1
    return PricedRows(tuple(priced), tuple(parts), skipped, markets, unpriced)


@dataclass(frozen=True, slots=True)
class Landing:
    """A listing before its market: its landed unit price, a part's price, or why it is left
    out (``outcome``: "priced", "part" or the reason, as ``Ranking.skipped`` counts it)."""

    outcome: str
    landed: Landed | None = None
    part_price: Decimal | None = None


def land_row(
    row: ActiveRow, skus: Mapping[str, Sku], settings: RankSettings, now: datetime
) -> Landing:
    """The first step of pricing a listing: it reads only the listing, the catalog, the
    settings and the time (an auction past its end), not the markets."""
    reason = _skip_reason(row, skus, now)
    if reason == "parts":
        part = landed_unit_price(row.price, row.shipping, row.quantity, row.currency, settings)
        return Landing("part", part_price=part.unit_price) if part else Landing("no_fx_rate")
    if reason is not None:
        return Landing(reason)
    landed = _landed(row, skus, settings)
    return Landing("priced", landed) if landed is not None else Landing("no_fx_rate")


@dataclass(frozen=True, slots=True)
class Pricer:
    """Prices one listing against the markets: what ``price_rows`` does for each, kept apart
    so that a listing can be priced again alone (``rigscout/jobs/priced.py``)."""

    skus: Mapping[str, Sku]
    markets: Mapping[str, Market]
    servers: ServerReferences
    settings: RankSettings
    now: datetime
    predict: AuctionPredictor
    accounts: Mapping[str, str]  # ``new_accounts``
    ignores: Ignores | None
    signals: Signals = field(default_factory=load_signals)

    def price(self, row: ActiveRow, landed: Landed) -> _Priced:
        p = _price(
            row,
            landed,
            self.skus,
            self.markets,
            self.servers,
            self.settings,
            self.signals,
            self.now,
            self.predict,
        )
        if self.accounts:
            p = _with_account_flag(p, self.accounts, self.signals)
        if self.ignores:
            p = _with_ignored_flag(p, self.ignores, self.signals)
        return p


def priced_until(row: ActiveRow, now: datetime) -> datetime | None:
    """Until when a listing's price made at ``now`` holds (an auction's moves with its time
    left, and it ends); None: until the listing or its market changes."""
    if row.buying_format != AUCTION or row.end_time is None:
        return None
    return bucket_until(row.end_time, now)


def asks(row: ActiveRow) -> bool:
    """Whether the listing's price is one of its SKU's asking prices (fixed price, alone)."""
    return row.buying_format != AUCTION and not row.includes


def asking_prices(items: Iterable[tuple[ActiveRow, Landed]]) -> dict[str, list[Decimal]]:
    """Landed unit asking prices of fixed-price listings without included GPUs, per SKU."""
    asking: dict[str, list[Decimal]] = {}
    for row, landed in items:
        if asks(row):
            asking.setdefault(str(row.sku), []).append(landed.unit_price)
    return asking


def price_markets(
    sales: Sequence[SoldRow],
    asking: Mapping[str, Sequence[Decimal]],
    skus: Mapping[str, Sku],
    settings: RankSettings,
    now: datetime,
) -> tuple[dict[str, Market], ServerReferences]:
    """Each SKU's market: a card's or board's own; a server's chassis (its sales with their
    parts taken out, pooled where thin). A server with any sale never uses asking prices."""
    markets = score_market(sales, asking, settings, now=now)
    chassis, servers = server_references(sales, markets, skus, settings, now=now)
    for code in [c for c in markets if c in skus and skus[c].category is Category.SERVER]:
        if code in chassis or markets[code].source != "asking" or code in servers.sold:
            del markets[code]
    markets.update(chassis)
    return markets, servers


def _with_account_flag(p: _Priced, accounts: Mapping[str, str], signals: Signals) -> _Priced:
    """Every listing of a new account with many high-value listings says so."""
    label = accounts.get(p.row.seller or "")
    if label is None:
        return p
    flags = (*p.flags, signals.flag("new_account_pattern", label))
    return replace(p, flags=flags, excluded=_excluded(flags), penalty=signals.penalty(flags))


def _with_ignored_flag(p: _Priced, ignores: Ignores, signals: Signals) -> _Priced:
    label = ignores.reason(p.row.item_id, p.row.seller, p.row.title)
    if label is None:
        return p
    flags = (*p.flags, signals.flag("ignored", label))
    return replace(p, flags=flags, excluded=True, penalty=signals.penalty(flags))


def rank_priced(
    priced: PricedRows,
    skus: Mapping[str, Sku],
    settings: RankSettings,
    *,
    now: datetime,
    filters: RankFilters | None = None,
    profiles: Profiles | None = None,
    population: Population | None = None,
) -> Ranking:
    """The profile's half of ranking: value percentiles, scores, the views a buyer reads.

    ``population``: ``priced`` holds only a shortlist (``ranking.shortlist``); the percentiles
    and counts are then the whole population's, as this gives them.
    """
    filters = filters or RankFilters()
    _check(filters)
    profiles = profiles or load_profiles()
    profile = profiles.get(filters.profile or settings.profile)
    values = {code: score_sku_value(s, profile, profiles) for code, s in skus.items()}
    skipped = dict(priced.skipped)
    for code, count in priced.unpriced.items():
        if values[code].eligible:
            raise ValueError(f"{code} was not priced but this profile ranks it (see eligible_skus)")
        skipped["below_profile_minimum"] = skipped.get("below_profile_minimum", 0) + count
    valued: list[tuple[_Priced, SkuValue, float]] = []
    for p in priced.items:
        value = values[p.sku.sku]
        if not value.eligible:
            skipped["below_profile_minimum"] = skipped.get("below_profile_minimum", 0) + 1
            continue
        chassis = p.chassis
        vpm = value.capability / float(chassis) if chassis > 0 else float("inf")
        valued.append((p, value, vpm))
    by_category = _groups(valued) if population is None else population.groups
    views: dict[bool, list[_Scored]] = {False: [], True: []}
    for p, value, vpm in valued:
        if _wanted(p, filters):
            scored = _score(p, value, vpm, by_category.get(p.sku.category, []), profile)
            views[p.excluded].append(scored)
    skipped["flagged"] = len(views[True])
    kept_out = frozenset(s.priced.row.url for s in views[True]) if filters.kept_out else None
    if population is not None:
        below = skipped.get("below_profile_minimum", 0) + population.below_minimum
        skipped |= {"flagged": population.flagged, "below_profile_minimum": below}
        kept_out = population.kept_out_urls if filters.kept_out else None
    limit, explained = shown(filters)
    # Only the shown deals get their sentence: wording 100,000 listings to show 50 is waste.
    primary = profile.primary_metric
    also = filters.explain_also if filters.explain else None

    def deal(i: int, s: _Scored) -> Deal:
        made = _deal(s, primary, settings, now, explain=i < explained)
        if i >= explained and also is not None and also(made):
            made = _deal(s, primary, settings, now, explain=True)
        return made

    deals = tuple(deal(i, s) for i, s in enumerate(_top(views[False], limit)))
    flagged = tuple(_deal(s, primary, settings, now) for s in _top(views[True], explained))
    wanted_parts = [
        (price, row.listing_id, row) for price, row in priced.parts if _part_wanted(row, filters)
    ]
    parts = tuple(
        _part(row, price, skus, values, settings, now)
        for price, _, row in heapq.nsmallest(explained, wanted_parts)
    )
    return Ranking(
        deals=deals,
        flagged=flagged,
        parts=parts,
        skipped={k: v for k, v in skipped.items() if v},
        markets=priced.markets,
        kept_out=kept_out or frozenset(),
    )


def shown(filters: RankFilters) -> tuple[int, int]:
    """How many deals the ranking shows, and how many of them it explains (and how many of
    the flagged and parts views it shows)."""
    limit = max(filters.limit, 0)
    explained = limit if filters.explain_top is None else min(limit, filters.explain_top)
    return limit, explained if filters.explain else 0


def _groups(valued: Iterable[tuple[_Priced, SkuValue, float]]) -> dict[Category, list[float]]:
    """Each category's values per dollar of the listings ranked (not kept out), sorted."""
    by_category: dict[Category, list[float]] = {}
    for p, _, vpm in valued:
        if not p.excluded:
            by_category.setdefault(p.sku.category, []).append(vpm)
    for group in by_category.values():
        group.sort()
    return by_category


def _top(scored: list[_Scored], limit: int) -> list[_Scored]:
    """The best ``limit``: highest score, then cheapest, then oldest listing id."""
    return heapq.nsmallest(
        limit, scored, key=lambda s: (-s.score, s.priced.landed, s.priced.row.listing_id)
    )


def _check(filters: RankFilters) -> None:
    if filters.buying not in BUYING:
        raise ConfigError(f"buying must be one of {', '.join(BUYING)}, not {filters.buying!r}")
    if filters.category is not None and filters.category not in {c.value for c in Category}:
        raise ConfigError(f"unknown category {filters.category!r} (gpu, server or board)")


def _skip_reason(row: ActiveRow, skus: Mapping[str, Sku], now: datetime) -> str | None:
    if row.sku is None:
        return "unmatched"
    if row.kind in PARTS:
        return "parts" if row.sku in skus else "not_in_catalog"
    if row.kind != ITEM:
        return "not_hardware"
    if row.sku not in skus:
        return "not_in_catalog"
    if row.quantity <= 0 or row.price <= 0:
        return "no_price"
    if row.buying_format == AUCTION and row.end_time and row.end_time <= now:
        return "auction_ended"
    return None


def _landed(row: ActiveRow, skus: Mapping[str, Sku], settings: RankSettings) -> Landed | None:
    """The landed unit price, with the category's estimated freight for unknown shipping."""
    category = skus[str(row.sku)].category.value
    return landed_with_freight(
        row.price,
        row.shipping,
        row.quantity,
        row.currency,
        category,
        settings,
        marketplace=row.marketplace,
        location=row.location,
    )


def _price(
    row: ActiveRow,
    landed: Landed,
    skus: Mapping[str, Sku],
    markets: Mapping[str, Market],
    servers: ServerReferences,
    settings: RankSettings,
    signals: Signals,
    now: datetime,
    predict: AuctionPredictor,
) -> _Priced:
    sku = skus[str(row.sku)]
    market = markets.get(sku.sku)
    included_value, unvalued = _included_value(row, markets)
    baseline = composed = too_few = None
    if sku.category is Category.SERVER:
        composed = servers.reference(sku, row.config, row.includes, market, settings)
        if composed is not None:
            baseline, market = composed.total, composed.market
        else:
            too_few = servers.too_few(sku.sku, settings)
    elif market is not None and not unvalued:
        baseline = market.median + (included_value or ZERO)
    price = landed.unit_price
    auction = current = None
    if row.buying_format == AUCTION:
        current = price
        time_left = (row.end_time - now) if row.end_time else None
        auction = predict(
            current_bid=price,
            bids=row.bids,
            time_left=time_left if time_left is not None else NO_END,
            market=baseline,
            spread=market.spread if baseline is not None and market is not None else None,
        )
        price = max(auction.mid, current)
    discount = None
    if baseline is not None and baseline > 0:
        discount = round(float(1 - price / baseline), 4)
    flags = flag_listing(
        row,
        signals,
        family=sku.family,
        min_seller_feedback=settings.min_seller_feedback,
        min_seller_positive_pct=settings.min_seller_positive_pct,
    )
    check = None
    under, reference = _under_reference(sku, price, market, discount, unvalued, skus, markets)
    scam = None
    if under is not None:
        scam = scam_reason(row, sku, under, reference, settings, load_scam_rules(), flags)
    if scam is not None:
        check = scam.removeprefix("check before buying: ")
        flags = (*flags, signals.flag("scam_pattern", scam))
    elif under is not None and under > settings.check_discount:
        if discount is not None:
            check = _check_reason(row, sku, price, flags, skus, markets, settings)
        else:
            check = f"{round(under * 100)} % under {reference}, and no market of its own yet"
        flags = (*flags, signals.flag("check_before_buying", f"check before buying: {check}"))
    return _Priced(
        row=row,
        sku=sku,
        landed=price,
        shipping_known=landed.shipping_known,
        freight_estimated=landed.freight_estimated,
        market=market,
        baseline=baseline,
        included_value=included_value,
        reference=composed,
        too_few_sales=too_few,
        discount=discount,
        chassis=_value_price(price, included_value),
        flags=flags,
        auction=auction,
        current_bid=current,
        check=check,
        excluded=_excluded(flags),
        penalty=signals.penalty(flags),
    )


def _included_value(row: ActiveRow, markets: Mapping[str, Market]) -> tuple[Decimal | None, bool]:
    """Market value of the GPUs a server comes with; (None, True) when one has no market."""
    if not row.includes:
        return None, False
    total = ZERO
    for item in row.includes:
        market = markets.get(item.sku)
        if market is None:
            return None, True
        total += market.median * item.quantity
    return total, False


def _value_price(landed: Decimal, included_value: Decimal | None) -> Decimal:
    """A server's value is judged on what its chassis costs once included GPUs are priced."""
    if included_value is None:
        return landed
    return max(landed - included_value, ZERO)


def _under_reference(
    sku: Sku,
    price: Decimal,
    market: Market | None,
    discount: float | None,
    unvalued: bool,
    skus: Mapping[str, Sku],
    markets: Mapping[str, Market],
) -> tuple[float | None, str]:
    """How far under its reference the price is (0.73 = 73 %), and the reference in words:
    the card's own market, else, for a card with no market yet, its nearest sibling's."""
    if discount is not None and market is not None:
        return discount, f"the {sku.name} {_evidence_words(market)}"
    if market is not None or unvalued:
        return None, ""
    sibling = nearest_sibling_market(sku, skus, markets)
    if sibling is None or sibling[1].median <= 0:
        return None, ""
    other, its = sibling
    return float(1 - price / its.median), f"{other.name} {_evidence_words(its)}"


def _evidence_words(market: Market) -> str:
    return "sales" if market.source == "sold" else "asking prices"


def _check_reason(
    row: ActiveRow,
    sku: Sku,
    price: Decimal,
    flags: Sequence[Flag],
    skus: Mapping[str, Sku],
    markets: Mapping[str, Market],
    settings: RankSettings,
) -> str:
    """The likeliest reason a price is far under the market, as a buyer would word it."""
    for sibling in _smaller_siblings(sku, skus):
        market = markets.get(sibling.sku)
        if market is not None and market.median * Decimal("0.6") <= price <= market.median * 2:
            return f"the price fits the {sibling.name} (capacity mislabelled?)"
    wording = [f.label for f in flags if f.code in PARTS_WORDING]
    if wording:
        return f"parts wording in the title ({', '.join(wording)})"
    if any(f.code == "ships_from_abroad" for f in flags):
        return "a distant seller, price far under the market"
    return "far under the market: read the listing and the seller's feedback first"


def _smaller_siblings(sku: Sku, skus: Mapping[str, Sku]) -> list[Sku]:
    """Same model family and form factor with less VRAM (an A100 80GB's 40GB sibling)."""
    if not sku.family or not sku.vram_gb:
        return []
    return sorted(
        (
            s
            for s in skus.values()
            if s.family == sku.family
            and s.form_factor == sku.form_factor
            and s.vram_gb
            and s.vram_gb < sku.vram_gb
        ),
        key=lambda s: -(s.vram_gb or 0),
    )


def _excluded(flags: Sequence[Flag]) -> bool:
    return any(f.severity == "exclude" for f in flags)


def _wanted(p: _Priced, filters: RankFilters) -> bool:
    if filters.sku is not None and p.sku.sku != filters.sku:
        return False
    if filters.category is not None and p.sku.category.value != filters.category:
        return False
    if filters.max_price is not None and p.landed > filters.max_price:
        return False
    auction = p.row.buying_format == AUCTION
    if filters.buying == "auction":
        return auction
    return not (filters.buying == "buy_it_now" and auction)


def _part_wanted(row: ActiveRow, filters: RankFilters) -> bool:
    return filters.sku is None or row.sku == filters.sku


@dataclass(frozen=True, slots=True)
class _Scored:
    priced: _Priced
    value: SkuValue
    score: float
    percentile: float
    value_rank: int
    group_size: int


def _score(
    p: _Priced, value: SkuValue, vpm: float, group: Sequence[float], profile: Profile
) -> _Scored:
    """The score, with the value percentile of ``vpm`` (capability per dollar) in ``group``."""
    no_better = bisect.bisect_right(group, vpm)
    percentile = no_better / len(group) if group else 1.0
    discount = None if p.check else p.discount  # no credit until the buyer has checked
    evidence = p.market.weight if p.market else 0.0
    penalty = p.penalty
    if profile.unsupported_penalty and any(f.code == "software_support" for f in p.flags):
        penalty += profile.unsupported_penalty  # this workload prefers supported cards
    score = score_deal(discount, percentile, evidence=evidence, penalty=penalty)
    return _Scored(p, value, round(score, 2), percentile, len(group) - no_better + 1, len(group))


def _deal(
    s: _Scored, primary: str, settings: RankSettings, now: datetime, *, explain: bool = True
) -> Deal:
    """The deal a buyer reads: every number, its flags, and (``explain``) its sentence."""
    p, value = s.priced, s.value
    chassis = p.chassis
    metrics = value_metrics(value, chassis) if chassis > 0 and explain else {}
    metrics["value_percentile"] = round(s.percentile, 4)
    metric = "slots" if value.category is not Category.GPU else primary
    row = p.row
    reason = _sentence(s, value, metric, metrics, settings, now) if explain else ""
    return Deal(
        **_deal_fields(row, p.sku, settings, p.landed, p.shipping_known),
        score=s.score,
        reason=reason,
        discount=p.discount,
        baseline=p.baseline,
        baseline_count=p.market.count if p.market else 0,
        baseline_source=p.market.source if p.market else None,
        metrics=metrics,
        price_basis="predicted" if p.auction else "fixed",
        current_bid=p.current_bid,
        predicted_low=p.auction.low if p.auction else None,
        predicted_high=p.auction.high if p.auction else None,
        evidence=p.market.evidence if p.market else "none",
        flags=p.flags,
        freight_estimated=p.freight_estimated,
        needs_host=p.sku.form_factor if value.needs_host else None,
        config=row.config,
        config_text=_config_text(p),
        gpus_included=sum(i.quantity for i in row.includes),
        reference=p.reference.json_lines if p.reference else (),
    )


def _config_text(p: _Priced) -> str | None:
    """What a server comes with besides its GPUs, as the sentence and the report say it."""
    if p.row.config is None or p.sku.category is not Category.SERVER:
        return None
    return p.row.config.describe(sxm=p.sku.takes_sxm)


def _sentence(
    s: _Scored,
    value: SkuValue,
    metric: str,
    metrics: Mapping[str, float],
    settings: RankSettings,
    now: datetime,
) -> str:
    """Why the deal is there, in one sentence (``ranking/explain.py``)."""
    p, row = s.priced, s.priced.row
    topology, claim = None, None
    if p.sku.category is not Category.GPU:
        topology = p.sku.interconnect
        if topology in PCIE_TOPOLOGIES:  # a board named in the title decides what is shown
            claim = title_topology(row.title)
            topology = claim[0] if claim else topology
    facts = ReasonFacts(
        sku_name=p.sku.name,
        landed=p.landed,
        currency=settings.currency,
        shipping_known=p.shipping_known,
        freight_estimated=p.freight_estimated,
        quantity=row.quantity,
        auction=p.auction is not None,
        current_bid=p.current_bid,
        predicted_low=p.auction.low if p.auction else None,
        predicted_high=p.auction.high if p.auction else None,
        end_time=row.end_time,
        now=now,
        discount=p.discount,
        baseline=p.baseline,
        market=p.market,
        parts_value=p.baseline if p.included_value is not None else None,
        reference=p.reference.describe(lambda x: fmt.money(x, settings.currency))
        if p.reference
        else None,
        config=_config_text(p),
        chassis=p.reference is not None and p.reference.basis == "market",
        too_few_sales=p.too_few_sales,
        weakest=p.reference.weakest if p.reference else None,
        metric=metric,
        metric_basis=value.compute_basis,
        price_per_metric=metrics.get(f"price_per_{metric}"),
        value_rank=s.value_rank,
        group_size=s.group_size,
        devices=value.devices,
        converted_from=None if row.currency == settings.currency else row.currency,
        fx_rate=fx_rate(row.currency, settings) if row.currency != settings.currency else None,
        fx_date=settings.fx_date,
        needs_host=p.sku.form_factor if value.needs_host else None,
        topology=topology,
        topology_claim=claim[1] if claim else None,
        flags=tuple(f.label for f in p.flags),
    )
    return render_reason(facts)


def _part(
    row: ActiveRow,
    price: Decimal,
    skus: Mapping[str, Sku],
    values: Mapping[str, SkuValue],
    settings: RankSettings,
    now: datetime,
) -> Deal:
    """A for-parts or accessory listing of a catalog SKU: shown cheapest first, never a deal."""
    sku = skus[str(row.sku)]
    facts = ReasonFacts(
        sku_name=sku.name,
        landed=price,
        currency=settings.currency,
        shipping_known=row.shipping is not None,
        quantity=row.quantity,
        auction=row.buying_format == AUCTION,
        current_bid=price if row.buying_format == AUCTION else None,
        end_time=row.end_time,
        now=now,
        needs_host=sku.form_factor if values[sku.sku].needs_host else None,
        not_a_deal=row.kind.replace("_", " "),
    )
    return Deal(
        **_deal_fields(row, sku, settings, price, row.shipping is not None),
        score=0.0,
        reason=render_reason(facts),
    )


def _deal_fields(
    row: ActiveRow, sku: Sku, settings: RankSettings, price: Decimal, shipping_known: bool
) -> dict[str, Any]:
    """What every view's Deal says about the listing itself."""
    return {
        "listing_id": row.listing_id,
        "item_id": row.item_id,
        "marketplace": row.marketplace,
        "title": row.title,
        "url": row.url,
        "sku": sku.sku,
        "sku_name": sku.name,
        "category": sku.category,
        "quantity": row.quantity,
        "buying_format": BuyingFormat(row.buying_format),
        "landed_unit_price": price,
        "currency": settings.currency,
        "shipping_known": shipping_known,
        "end_time": row.end_time,
        "image_url": row.image_url,
        "seller": row.seller,
        "seller_feedback": row.seller_feedback,
        "location": row.location,
    }
