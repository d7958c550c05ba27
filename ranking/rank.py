"""Rank active listings into deals: the database picks and orders them, Python words them.

Settings: ``RankSettings`` (currency, fx_rates, profile, window_days, min_sales, seller
thresholds). Only listings whose status is "active" are ranked; sold ones feed the baseline.
Listings left out are counted by reason in ``Ranking.skipped`` (e.g. "no_fx_rate").
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from typing import TYPE_CHECKING

from db.rank_queries import RankQuery, SpecRow, load_rank_rows, load_skip_counts
from ranking.explain import ReasonFacts, render_reason
from ranking.landed import fx_rate, landed_unit_price
from ranking.market import market_query
from ranking.profiles import load_profiles
from ranking.score import score_deal
from ranking.value import score_sku_value, value_metrics
from rigscout.errors import ConfigError
from rigscout.models import BuyingFormat, Category, Deal

if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import datetime

    from sqlalchemy.orm import Session

    from db.rank_queries import RankRow
    from ranking.catalog import Sku
    from ranking.value import SkuValue
    from rigscout.config import RankSettings

BUYING = ("all", "buy_now", "auction")


@dataclass(frozen=True, slots=True)
class Ranking:
    """The deals, the separate parts/accessories view, and why other listings were left out."""

    deals: tuple[Deal, ...]
    parts: tuple[Deal, ...]
    skipped: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class _Context:
    skus: Mapping[str, Sku]
    values: Mapping[str, SkuValue]
    primary_metric: str
    settings: RankSettings
    now: datetime


def rank_deals(
    session: Session,
    skus: Mapping[str, Sku],
    settings: RankSettings,
    *,
    now: datetime,
    profile: str | None = None,
    sku: str | None = None,
    category: str | None = None,
    max_price: Decimal | None = None,
    limit: int = 50,
    include_parts: bool = False,
    buying: str = "all",
) -> list[Deal]:
    """Active listings as deals, best score first (at most ``limit``).

    ``buying``: "all", "buy_now" (fixed price and best offer) or "auction" (ranked on the
    current bid, with ``end_time``). ``include_parts`` appends up to ``limit`` for-parts and
    accessory listings of catalog SKUs, cheapest first, with score 0: never deals
    (``rank_listings`` keeps them in a separate ``parts`` view).
    """
    ranking = rank_listings(
        session,
        skus,
        settings,
        now=now,
        profile=profile,
        sku=sku,
        category=category,
        max_price=max_price,
        limit=limit,
        include_parts=include_parts,
        buying=buying,
    )
    return [*ranking.deals, *ranking.parts]


def rank_listings(
    session: Session,
    skus: Mapping[str, Sku],
    settings: RankSettings,
    *,
    now: datetime,
    profile: str | None = None,
    sku: str | None = None,
    category: str | None = None,
    max_price: Decimal | None = None,
    limit: int = 50,
    include_parts: bool = False,
    buying: str = "all",
) -> Ranking:
    """Like ``rank_deals`` with the parts view and the skip counts kept apart."""
    if buying not in BUYING:
        raise ConfigError(f"buying must be one of {', '.join(BUYING)}, not {buying!r}")
    if category is not None and category not in {c.value for c in Category}:
        raise ConfigError(f"unknown category {category!r} (gpu, server or board)")
    profiles = load_profiles()
    chosen = profiles.get(profile or settings.profile)
    values = {code: score_sku_value(s, chosen, profiles) for code, s in skus.items()}
    query = RankQuery(
        market=market_query(settings, now),
        specs=[SpecRow(c, v.category.value, v.capability, v.eligible) for c, v in values.items()],
        min_seller_feedback=settings.min_seller_feedback,
        min_seller_positive_pct=settings.min_seller_positive_pct,
        sku=sku,
        category=category,
        max_price=max_price,
        buying=buying,
        limit=limit,
    )
    ctx = _Context(skus, values, chosen.primary_metric, settings, now)
    deals = _deals(load_rank_rows(session, query), ctx, parts=False)
    deals.sort(key=lambda d: (-d.score, d.landed_unit_price, d.listing_id))
    parts: list[Deal] = []
    if include_parts:
        parts = _deals(load_rank_rows(session, replace(query, parts=True)), ctx, parts=True)
    return Ranking(tuple(deals), tuple(parts), load_skip_counts(session, query))


def _deals(rows: list[RankRow], ctx: _Context, *, parts: bool) -> list[Deal]:
    deals = [_deal(row, ctx, parts=parts) for row in rows]
    return [d for d in deals if d is not None]


def _deal(row: RankRow, ctx: _Context, *, parts: bool) -> Deal | None:
    landed = landed_unit_price(row.price, row.shipping, row.quantity, row.currency, ctx.settings)
    if landed is None:
        return None
    baseline = _effective_baseline(row)
    discount = None
    if baseline is not None and baseline > 0:
        discount = round(float(1 - landed.unit_price / baseline), 4)
    value = ctx.values[row.sku]
    chassis = _value_price(landed.unit_price, row.included_value)
    # When the included GPUs alone are worth the asking price, a per-slot price means nothing.
    metrics = value_metrics(value, chassis) if chassis > 0 else {}
    metrics["value_percentile"] = round(row.value_percentile, 4)
    if row.baseline is not None:
        metrics["baseline_iqr"] = float(row.baseline.q3 - row.baseline.q1)
    sku = ctx.skus[row.sku]
    facts = _facts(row, ctx, landed.unit_price, discount, baseline, metrics, parts=parts)
    return Deal(
        listing_id=row.listing_id,
        item_id=row.item_id,
        marketplace=row.marketplace,
        title=row.title,
        url=row.url,
        sku=row.sku,
        sku_name=sku.name,
        category=sku.category,
        quantity=row.quantity,
        buying_format=BuyingFormat(row.buying_format),
        landed_unit_price=landed.unit_price,
        currency=landed.currency,
        shipping_known=landed.shipping_known,
        score=0.0 if parts else score_deal(discount, row.value_percentile),
        reason=render_reason(facts),
        discount=discount,
        baseline=baseline,
        baseline_count=row.baseline.count if row.baseline else 0,
        baseline_source=row.baseline.source if row.baseline else None,
        end_time=row.end_time,
        image_url=row.image_url,
        metrics=metrics,
    )


def _effective_baseline(row: RankRow) -> Decimal | None:
    """The SKU's baseline, plus the included GPUs at market; None when any is unpriced."""
    if row.baseline is None or row.includes_unvalued:
        return None
    return row.baseline.median + (row.included_value or Decimal(0))


def _value_price(landed: Decimal, included_value: Decimal | None) -> Decimal:
    """A server's value is judged on what its chassis costs once included GPUs are priced."""
    if included_value is None:
        return landed
    return max(landed - included_value, Decimal(0))


def _facts(
    row: RankRow,
    ctx: _Context,
    landed: Decimal,
    discount: float | None,
    baseline: Decimal | None,
    metrics: Mapping[str, float],
    *,
    parts: bool,
) -> ReasonFacts:
    value = ctx.values[row.sku]
    metric = "slots" if value.category is not Category.GPU else ctx.primary_metric
    base = row.baseline
    foreign = None if row.currency == ctx.settings.currency else fx_rate(row.currency, ctx.settings)
    return ReasonFacts(
        sku_name=ctx.skus[row.sku].name,
        landed=landed,
        currency=ctx.settings.currency,
        shipping_known=row.shipping is not None,
        quantity=row.quantity,
        auction=row.buying_format == BuyingFormat.AUCTION.value,
        end_time=row.end_time,
        now=ctx.now,
        discount=discount,
        baseline=baseline,
        baseline_count=base.count if base else 0,
        baseline_source=base.source if base else None,
        upper_bound_count=base.upper_bound_count if base else 0,
        presumed_count=base.presumed_count if base else 0,
        window_days=ctx.settings.window_days,
        parts_value=baseline if row.included_value is not None else None,
        metric=None if parts else metric,
        metric_basis=value.compute_basis,
        price_per_metric=metrics.get(f"price_per_{metric}"),
        value_rank=row.value_rank,
        group_size=row.group_size,
        converted_from=None if foreign is None else row.currency,
        fx_rate=foreign,
        fx_date=ctx.settings.fx_date,
        needs_host=ctx.skus[row.sku].form_factor if value.needs_host else None,
        not_a_deal=row.kind.replace("_", " ") if parts else None,
    )
