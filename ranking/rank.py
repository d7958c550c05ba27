"""Rank priced listings into deals under a profile: pure rules over plain rows, no database.

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
from typing import TYPE_CHECKING, Any

from core.errors import ConfigError
from core.models import BuyingFormat, Category, Deal
from ranking.market import predict_final
from ranking.pricing import AUCTION, eligible_skus, price_rows
from ranking.profiles import load_profiles
from ranking.records import RankFilters, Ranking, Scored
from ranking.score import score_deal
from ranking.sentences import config_text, deal_sentence, part_sentence
from ranking.value import score_sku_value, value_metrics

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from datetime import datetime
    from decimal import Decimal

    from core.settings import RankSettings
    from ranking.catalog import Sku
    from ranking.profiles import Profile, Profiles
    from ranking.records import AuctionPredictor, Population, Priced, PricedRows
    from ranking.rows import ActiveRow, SoldRow
    from ranking.value import SkuValue

BUYING = ("all", "buy_it_now", "auction")


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

    ``population``: ``priced`` holds only a shortlist (``ranking.kept.shortlist``); the percentiles
    and counts are then the whole population's, as this gives them.
    """
    filters = filters or RankFilters()
    _check(filters)
    profiles = profiles or load_profiles()
    profile = profiles.get(filters.profile or settings.profile)
    values = {code: score_sku_value(s, profile, profiles) for code, s in skus.items()}
    skipped = dict(priced.skipped)
    valued = _valued(priced, values, skipped)
    by_category = _groups(valued) if population is None else population.groups
    views: dict[bool, list[Scored]] = {False: [], True: []}
    for p, value, vpm in valued:
        if _wanted(p, filters):
            scored = _score(p, value, vpm, by_category.get(p.sku.category, []), profile)
            views[p.excluded].append(scored)
    skipped["flagged"] = len(views[True])
    kept_out = frozenset(s.priced.row.listing_id for s in views[True]) if filters.kept_out else None
    if population is not None:
        below = skipped.get("below_profile_minimum", 0) + population.below_minimum
        skipped |= {"flagged": population.flagged, "below_profile_minimum": below}
        kept_out = frozenset(population.kept_out) if filters.kept_out else None
    limit, explained = shown(filters)
    # Only the shown deals get their sentence: wording 100,000 listings to show 50 is waste.
    primary = profile.primary_metric
    also = filters.explain_also if filters.explain else None

    def deal(i: int, s: Scored) -> Deal:
        made = _deal(s, primary, settings, now, explain=i < explained)
        if i >= explained and also is not None and also(made):
            made = _deal(s, primary, settings, now, explain=True)
        return made

    wanted_parts = [
        (price, row.listing_id, row) for price, row in priced.parts if _part_wanted(row, filters)
    ]
    return Ranking(
        deals=tuple(deal(i, s) for i, s in enumerate(_top(views[False], limit))),
        flagged=tuple(_deal(s, primary, settings, now) for s in _top(views[True], explained)),
        parts=tuple(
            _part(row, price, skus[str(row.sku)], values, settings=settings, now=now)
            for price, _, row in heapq.nsmallest(explained, wanted_parts)
        ),
        skipped={k: v for k, v in skipped.items() if v},
        markets=priced.markets,
        kept_out=kept_out or frozenset(),
    )


def _valued(
    priced: PricedRows, values: Mapping[str, SkuValue], skipped: dict[str, int]
) -> list[tuple[Priced, SkuValue, float]]:
    """The listings the profile ranks, with their value per dollar (``skipped`` counts the
    others below the profile's minimum)."""
    below = 0
    for code, count in priced.unpriced.items():
        if values[code].eligible:
            raise ValueError(f"{code} was not priced but this profile ranks it (see eligible_skus)")
        below += count
    valued: list[tuple[Priced, SkuValue, float]] = []
    for p in priced.items:
        value = values[p.sku.sku]
        if not value.eligible:
            below += 1
            continue
        chassis = p.chassis
        vpm = value.capability / float(chassis) if chassis > 0 else float("inf")
        valued.append((p, value, vpm))
    if below:
        skipped["below_profile_minimum"] = skipped.get("below_profile_minimum", 0) + below
    return valued


def shown(filters: RankFilters) -> tuple[int, int]:
    """How many deals the ranking shows, and how many of them it explains (and how many of
    the flagged and parts views it shows)."""
    limit = max(filters.limit, 0)
    explained = limit if filters.explain_top is None else min(limit, filters.explain_top)
    return limit, explained if filters.explain else 0


def _groups(valued: Iterable[tuple[Priced, SkuValue, float]]) -> dict[Category, list[float]]:
    """Each category's values per dollar of the listings ranked (not kept out), sorted."""
    by_category: dict[Category, list[float]] = {}
    for p, _, vpm in valued:
        if not p.excluded:
            by_category.setdefault(p.sku.category, []).append(vpm)
    for group in by_category.values():
        group.sort()
    return by_category


def _top(scored: list[Scored], limit: int) -> list[Scored]:
    """The best ``limit``: highest score, then cheapest, then oldest listing id."""
    return heapq.nsmallest(
        limit, scored, key=lambda s: (-s.score, s.priced.landed, s.priced.row.listing_id)
    )


def _check(filters: RankFilters) -> None:
    if filters.buying not in BUYING:
        raise ConfigError(f"buying must be one of {', '.join(BUYING)}, not {filters.buying!r}")
    if filters.category is not None and filters.category not in {c.value for c in Category}:
        raise ConfigError(f"unknown category {filters.category!r} (gpu, server or board)")


def _wanted(p: Priced, filters: RankFilters) -> bool:
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


def _score(
    p: Priced, value: SkuValue, vpm: float, group: Sequence[float], profile: Profile
) -> Scored:
    """The score, with the value percentile of ``vpm`` (capability per dollar) in ``group``."""
    no_better = bisect.bisect_right(group, vpm)
    percentile = no_better / len(group) if group else 1.0
    discount = None if p.check else p.discount  # no credit until the buyer has checked
    evidence = p.market.weight if p.market else 0.0
    penalty = p.penalty
    if profile.unsupported_penalty and any(f.code == "software_support" for f in p.flags):
        penalty += profile.unsupported_penalty  # this workload prefers supported cards
    score = score_deal(discount, percentile, evidence=evidence, penalty=penalty)
    return Scored(p, value, round(score, 2), percentile, len(group) - no_better + 1, len(group))


def _deal(
    s: Scored, primary: str, settings: RankSettings, now: datetime, *, explain: bool = True
) -> Deal:
    """The deal a buyer reads: every number, its flags, and (``explain``) its sentence."""
    p, value = s.priced, s.value
    chassis = p.chassis
    metrics = value_metrics(value, chassis) if chassis > 0 and explain else {}
    metrics["value_percentile"] = round(s.percentile, 4)
    metric = "slots" if value.category is not Category.GPU else primary
    row = p.row
    reason = deal_sentence(s, metric, metrics, settings=settings, now=now) if explain else ""
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
        config_text=config_text(p),
        gpus_included=sum(i.quantity for i in row.includes),
        reference=p.reference.json_lines if p.reference else (),
    )


def _part(
    row: ActiveRow,
    price: Decimal,
    sku: Sku,
    values: Mapping[str, SkuValue],
    *,
    settings: RankSettings,
    now: datetime,
) -> Deal:
    """A for-parts or accessory listing of a catalog SKU: shown cheapest first, never a deal."""
    reason = part_sentence(
        row,
        sku,
        price,
        needs_host=values[sku.sku].needs_host,
        currency=settings.currency,
        now=now,
    )
    return Deal(
        **_deal_fields(row, sku, settings, price, row.shipping is not None),
        score=0.0,
        reason=reason,
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
