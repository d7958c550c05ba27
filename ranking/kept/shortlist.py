"""The shortlist: from every priced listing's score inputs, the few that can make the top.

A ranking shows the best ``limit`` deals, but their value percentiles and scores depend on every
listing of their category. ``shortlist`` computes those over columns (numpy arrays, one entry per
priced listing: ``db/priced_rows.py`` reads them from the ``priced`` table) and returns

- the listings whose score can place them in the top ``limit`` (and the top ``flagged`` of the
  listings a flag kept out): every listing within ``MARGIN`` of the last place, so that the
  exact pass (``ranking.rank.rank_priced`` on these listings priced again, with the score
  rounded as ``score_deal`` rounds it, ties broken by price and listing id) orders them as a
  ranking of every listing would; for the rig planner's view (``RankFilters.planner``), the
  first ``explain_top`` so, then every listing a plan can buy (``plannable``);
- the population that exact pass needs: each category's sorted values per dollar (the
  percentiles), the counts of listings below the profile's minimum and kept out by a flag, and
  which listings a flag kept out.

The score is ``ranking.score.combine``, the same expression ``score_deal`` uses.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np

from core.models import Category
from ranking.records import Population
from ranking.score import clip_discount, combine

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from numpy.typing import NDArray

    from ranking.catalog import Sku
    from ranking.profiles import Profile
    from ranking.records import FigureBound, PlannerView, RankFilters
    from ranking.value import SkuValue

# Scores are shown rounded to 0.01: listings more than this under the last place cannot reach it.
MARGIN = 0.02
# The float columns against a rule's bound: a landed price within a cent, a discount within
# float rounding, may meet it (the priced deal's exact figure decides).
PRICE_SLACK = 0.01
FIGURE_SLACK = 1e-6


@dataclass(frozen=True, slots=True)
class PricedColumns:
    """Every priced listing's score inputs; ``skus`` names the codes in ``sku``."""

    listing_id: NDArray[np.int64]
    sku: NDArray[np.int32]  # index into ``skus``
    skus: tuple[str, ...]
    landed: NDArray[np.float64]  # the price ranked (an auction's predicted end), as a float
    chassis: NDArray[np.float64]  # the price its value is judged on
    discount: NDArray[np.float64]  # NaN: no discount
    evidence: NDArray[np.float64]
    penalty: NDArray[np.float64]
    checked: NDArray[np.bool_]
    software: NDArray[np.bool_]
    excluded: NDArray[np.bool_]
    auction: NDArray[np.bool_]
    risky: NDArray[np.bool_]  # its seller carries a risk flag (plan.toml [trust] seller_risk)
    units: NDArray[np.int64]  # the listing's lot size
    kind: NDArray[np.int64]  # what the planner tells apart besides price (``plan_bom.plan_kind``)

    def __len__(self) -> int:
        return len(self.listing_id)

    @classmethod
    def unpack(
        cls,
        listing_id: Sequence[int] | NDArray[np.int64],
        sku: Sequence[int] | NDArray[np.int32],
        skus: Sequence[str],
        inputs: bytes | NDArray[np.float64],
    ) -> PricedColumns:
        """The columns from each listing's id, SKU index and ``pack_inputs`` (concatenated,
        or as a table of ``WIDTH`` columns)."""
        table = np.frombuffer(inputs, dtype=np.float64).reshape(len(listing_id), WIDTH)
        flag = table[:, 5:10] != 0
        return cls(
            listing_id=np.asarray(listing_id, dtype=np.int64),
            sku=np.asarray(sku, dtype=np.int32),
            skus=tuple(skus),
            landed=table[:, 0],
            chassis=table[:, 1],
            discount=table[:, 2],
            evidence=table[:, 3],
            penalty=table[:, 4],
            checked=flag[:, 0],
            software=flag[:, 1],
            excluded=flag[:, 2],
            auction=flag[:, 3],
            risky=flag[:, 4],
            units=table[:, 10].astype(np.int64),
            kind=table[:, 11].astype(np.int64),
        )


WIDTH = 12  # values packed per listing: five numbers, five flags, the lot size, the kind


def pack_inputs(
    *,
    landed: float,
    chassis: float,
    discount: float | None,
    evidence: float,
    penalty: float,
    checked: bool,
    software: bool,
    excluded: bool,
    auction: bool,
    risky: bool,
    units: int,
    kind: int,
) -> bytes:
    """One listing's score inputs as bytes (``PricedColumns.unpack`` reads them back)."""
    values = (landed, chassis, np.nan if discount is None else discount, evidence, penalty)
    flags = (checked, software, excluded, auction, risky)
    return np.array([*values, *flags, units, kind], dtype=np.float64).tobytes()


# Decimal prices compared as floats: a cent more is kept, so rounding never drops a listing.
CENT = 0.01


def plannable(
    columns: PricedColumns,
    skus: Mapping[str, Sku],
    among: NDArray[np.bool_],
    view: PlannerView,
) -> NDArray[np.bool_]:
    """Which of ``among`` a rig plan or the report's price check can pick; the others never can.

    - GPUs: the planner buys only the cheapest ``slots // lot size`` listings of each SKU, lot
      size and format (``ranking.plan.cheapest``), after adding a heatsink to each module not
      sold with one where the host needs them, and weighing a risky seller's at
      ``1 + view.trust_margin`` times its price: those cheapest both ways are kept, and one
      more of the sellers without a risk flag (the safer card a plan names beside a risky one).
    - Hosts: of the listings alike in SKU, lot, format and class (``plan_bom.host_class``: the
      GPUs, heatsinks and bill of materials), a plan takes the cheapest, or the cheapest from a
      seller without a risk flag when it costs little more (``candidate_hosts``): both kept.
    - Each SKU's cheapest fixed-price listing not to check before buying: the report's best
      price of the day (``rigscout/outputs/report/changes.py``).
    - Every listing of a SKU with at most ``view.rare`` priced: the report's new listings of
      rare hardware, shown with their ranked price.
    """
    n = len(columns)
    keep = np.zeros(n, dtype=bool)
    if not n or not among.any():
        return keep
    codes = columns.skus
    gpu = np.array([c in skus and skus[c].category is Category.GPU for c in codes])[columns.sku]
    landed = columns.landed
    # GPUs: the "slots // units" cheapest of each group, as a host that needs no heatsink
    # bought sees them, and as one that does (a module not sold with one costs one more)
    per_lot = np.where(columns.units > 0, view.slots // np.maximum(columns.units, 1), 0)
    group = among & gpu & (per_lot > 0)
    lots: tuple[NDArray[Any], ...] = (columns.sku, columns.units, columns.auction)
    module = np.array([c in view.modules for c in codes])[columns.sku]
    heatsink = np.where(module & (columns.kind != 1), view.heatsink, 0.0)
    weight = np.where(columns.risky, 1 + view.trust_margin, 1.0)
    trusted = group & ~columns.risky
    for price in (landed, landed + heatsink):
        weighed = price * weight
        keep |= group & (weighed <= _nth_cheapest(weighed, per_lot, group, lots) + CENT)
        keep |= trusted & (price <= _nth_cheapest(price, per_lot + 1, trusted, lots) + CENT)
    # hosts: the cheapest of each group (its bill of materials is the same), and its cheapest
    # from a seller without a risk flag, which a plan buys instead when it costs little more
    group = among & ~gpu
    ones = np.ones(n, dtype=np.int64)
    key = (columns.sku, columns.units, columns.auction, columns.kind)
    keep |= group & (landed <= _nth_cheapest(landed, ones, group, key) + CENT)
    trusted = group & ~columns.risky
    keep |= trusted & (landed <= _nth_cheapest(landed, ones, trusted, key) + CENT)
    # the day's best trusted fixed price per SKU
    group = among & ~columns.auction & ~columns.checked
    keep |= group & (landed <= _nth_cheapest(landed, ones, group, (columns.sku,)) + CENT)
    # rare hardware
    keep |= among & (np.bincount(columns.sku, minlength=len(codes))[columns.sku] <= view.rare)
    return keep


def _nth_cheapest(
    landed: NDArray[np.float64],
    nth: NDArray[np.int64],
    among: NDArray[np.bool_],
    key: tuple[NDArray[Any], ...],
) -> NDArray[np.float64]:
    """For each listing of ``among``, the ``nth``-cheapest price among those sharing its ``key``
    (infinity where the group has fewer); NaN for the others."""
    bound = np.full(len(landed), np.nan)
    rows = np.flatnonzero(among)
    if not len(rows):
        return bound
    keys = [np.asarray(k)[rows] for k in key]
    prices = landed[rows]
    # one sort: by the first key, then the next..., then cheapest first (ties in row order)
    order = np.lexsort((prices, *keys[::-1]))
    first = np.zeros(len(order), dtype=np.bool_)  # where each group starts, in that order
    first[0] = True
    for k in keys:
        ordered = k[order]
        first[1:] |= ordered[1:] != ordered[:-1]
    group = np.cumsum(first) - 1
    starts = np.flatnonzero(first)
    sizes = np.diff(np.r_[starts, len(order)])
    wanted = np.maximum(nth[rows][order][starts], 1)  # every member of a group shares its nth
    cheapest = prices[order]
    at = np.where(wanted <= sizes, cheapest[np.minimum(starts + wanted, len(order)) - 1], np.inf)
    bound[rows[order]] = at[group]
    return bound


@dataclass(frozen=True, slots=True)
class Shortlist:
    deals: tuple[int, ...]  # listing ids that can make the deals' top ``limit``
    flagged: tuple[int, ...]  # and the flagged view's top
    population: Population


def shortlist(
    columns: PricedColumns,
    skus: Mapping[str, Sku],
    values: Mapping[str, SkuValue],
    profile: Profile,
    filters: RankFilters,
    *,
    limit: int,
    flagged: int,
    over_max_price: NDArray[np.bool_] | None = None,
) -> Shortlist:
    """The candidates for the top ``limit`` deals and top ``flagged`` kept-out listings.

    ``over_max_price``: which listings cost more than ``filters.max_price`` (compared exactly
    by the caller: the float column only approximates the Decimal price).
    """
    eligible, vpm, row_category = _value_per_dollar(columns, skus, values)
    ranked = eligible & ~columns.excluded
    groups: dict[Category, NDArray[np.float64]] = {}
    for index, member in enumerate(CATEGORIES):
        in_group = ranked & (row_category == index)
        if in_group.any():
            groups[member] = np.sort(vpm[in_group])
    wanted = eligible & _wanted(columns, skus, filters, over_max_price)
    score = _score(columns, vpm, row_category, groups, profile)
    kept_out = wanted & columns.excluded
    population = Population(
        groups={member: group.tolist() for member, group in groups.items()},
        below_minimum=int((~eligible).sum()),
        flagged=int(kept_out.sum()),
        kept_out=tuple(columns.listing_id[kept_out].tolist()),
    )
    shown = wanted & ~columns.excluded
    if filters.planner is None and filters.may_match is None:
        deals = _best(columns.listing_id, score, shown, limit)
    else:  # the first ``explain_top`` by score, then only what a plan can buy or a rule match
        top = _best(columns.listing_id, score, shown, min(limit, filters.explain_top or 0))
        view = np.zeros(len(columns), dtype=bool)
        if filters.planner is not None:
            view |= plannable(columns, skus, shown, filters.planner)
        if filters.may_match is not None:
            view |= may_match(columns, skus, score, shown, filters.may_match)
        deals = tuple(sorted({*top, *columns.listing_id[view].tolist()}))
    return Shortlist(
        deals=deals,
        flagged=_best(columns.listing_id, score, kept_out, flagged),
        population=population,
    )


def may_match(
    columns: PricedColumns,
    skus: Mapping[str, Sku],
    score: NDArray[np.float64],
    among: NDArray[np.bool_],
    alternatives: Sequence[Sequence[FigureBound]],
) -> NDArray[np.bool_]:
    """The listings among ``among`` that meet every bound of one of ``alternatives`` by their
    columns, loosened by the columns' rounding (the exact figures are checked on the priced
    deals), and every listing of the same SKU and buying kind (auction or fixed price) as a
    risky seller's one among them: what its alert's safer listing is chosen from."""
    hit = np.zeros(len(columns), dtype=bool)
    for bounds in alternatives:
        keep = among.copy()
        for bound in bounds:
            keep &= _meets(bound, columns, skus, score)
        hit |= keep
    risky = hit & columns.risky
    if risky.any():
        group = columns.sku.astype(np.int64) * 2 + columns.auction
        hit |= among & np.isin(group, np.unique(group[risky]))
    return hit


def _meets(
    bound: FigureBound,
    columns: PricedColumns,
    skus: Mapping[str, Sku],
    score: NDArray[np.float64],
) -> NDArray[np.bool_]:
    """Which listings may meet ``bound``; an unknown figure bounds nothing."""
    codes, value = columns.skus, bound.value
    if bound.field in ("sku", "category") and isinstance(value, frozenset | set):
        if bound.field == "sku":
            by_code = [c in value for c in codes]
        else:
            by_code = [c in skus and skus[c].category in value for c in codes]
        return np.array(by_code, dtype=bool)[columns.sku] if codes else np.zeros(len(columns), bool)
    if isinstance(value, int | float | Decimal):
        figure = {
            "landed_unit_price": (columns.landed, PRICE_SLACK),
            "score": (score, MARGIN),
            "discount": (np.nan_to_num(columns.discount, nan=-np.inf), FIGURE_SLACK),
        }.get(bound.field)
        if figure is not None:
            column, slack = figure
            if bound.op == "le":
                return np.asarray(column <= float(value) + slack)
            if bound.op == "ge":
                return np.asarray(column >= float(value) - slack)
    return np.ones(len(columns), dtype=bool)


def _value_per_dollar(
    columns: PricedColumns, skus: Mapping[str, Sku], values: Mapping[str, SkuValue]
) -> tuple[NDArray[np.bool_], NDArray[np.float64], NDArray[np.int_]]:
    """Per listing: whether the profile ranks its SKU, its capability per dollar (of the price
    its value is judged on) and its category's index in ``CATEGORIES``."""
    codes = columns.skus
    eligible_code = np.array([values[c].eligible if c in values else False for c in codes])
    capability = np.array([values[c].capability if c in values else 0.0 for c in codes])
    category = np.array([_category_index(skus[c].category) if c in skus else -1 for c in codes])
    eligible = eligible_code[columns.sku] if len(codes) else np.zeros(0, dtype=bool)
    chassis = columns.chassis
    with np.errstate(divide="ignore", invalid="ignore"):
        vpm = np.where(chassis > 0, capability[columns.sku] / chassis, np.inf)
    row_category = category[columns.sku] if len(codes) else np.zeros(0, dtype=int)
    return eligible, vpm, row_category


def _score(
    columns: PricedColumns,
    vpm: NDArray[np.float64],
    row_category: NDArray[np.int_],
    groups: Mapping[Category, NDArray[np.float64]],
    profile: Profile,
) -> NDArray[np.float64]:
    """Every listing's score: ``combine`` of its discount (none until checked), the percentile
    of its value per dollar in its category's ranked listings, its evidence and penalties."""
    percentile = np.ones(len(columns))
    for index, member in enumerate(CATEGORIES):
        if member in groups:
            rows = np.flatnonzero(row_category == index)
            group = groups[member]
            # looked up in their own order: the search walks the group once, not at random
            order = rows[np.argsort(vpm[rows], kind="stable")]
            percentile[order] = np.searchsorted(group, vpm[order], side="right") / len(group)
    discount = np.where(columns.checked, np.nan, columns.discount)
    part = np.nan_to_num(clip_discount(discount), nan=0.0)
    penalty = columns.penalty
    if profile.unsupported_penalty:
        penalty = penalty + np.where(columns.software, profile.unsupported_penalty, 0.0)
    score: NDArray[np.float64] = combine(part, percentile, columns.evidence, penalty)
    return score


CATEGORIES = tuple(Category)


def _category_index(category: Category) -> int:
    return CATEGORIES.index(category)


def _wanted(
    columns: PricedColumns,
    skus: Mapping[str, Sku],
    filters: RankFilters,
    over_max_price: NDArray[np.bool_] | None,
) -> NDArray[np.bool_]:
    """``ranking.rank._wanted`` over the columns."""
    wanted = np.ones(len(columns), dtype=bool)
    codes = columns.skus
    if filters.sku is not None:
        code = codes.index(filters.sku) if filters.sku in codes else -1
        wanted &= columns.sku == code
    if filters.category is not None:
        matches = np.array(
            [c in skus and skus[c].category.value == filters.category for c in codes]
        )
        wanted &= matches[columns.sku] if len(codes) else wanted
    if filters.max_price is not None and over_max_price is not None:
        wanted &= ~over_max_price
    if filters.buying == "auction":
        wanted &= columns.auction
    elif filters.buying == "buy_it_now":
        wanted &= ~columns.auction
    return wanted


def _best(
    ids: NDArray[np.int64], score: NDArray[np.float64], among: NDArray[np.bool_], limit: int
) -> tuple[int, ...]:
    """The ids among ``among`` whose score is within ``MARGIN`` of the ``limit``-th best."""
    if limit <= 0:
        return ()
    scores = score[among]
    if len(scores) <= limit:
        return tuple(ids[among].tolist())
    last = -np.partition(-scores, limit - 1)[limit - 1]
    return tuple(ids[among & (score >= last - MARGIN)].tolist())
