"""The rig planner at the edge: today's ranked listings from the store, planned into rigs.

The prices are the ranker's (``rank_stored_many`` with its planner view, the listings a plan can
buy: landed, auctions at their predicted end, estimated freight, flags); this module adds what
a server listing comes with and the bill of materials' prices (``load_bom_prices``), and hands
everything to the pure planner (``ranking/plan/search.py``). The HTML report uses the same pieces
(``rigscout/outputs/report/rigs.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.models import EXCLUDE, Category, Included
from db.rank_rows import load_fixed_price_parts, load_includes, load_part_sales
from ranking.catalog import load_catalog
from ranking.landed import landed_with_freight
from ranking.market import part_markets
from ranking.plan import (
    Offer,
    PartOffer,
    PartPrices,
    cheapest_lots,
    load_plan_rules,
    module_heatsink,
    plan_rigs,
    planner_view,
)
from ranking.records import RankFilters
from ranking.titles import load_parts
from rigscout.jobs.bulk import collector_paused
from rigscout.jobs.deals import rank_stored_many

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import datetime

    from sqlalchemy.orm import Session

    from core.models import Deal
    from core.settings import RankSettings
    from ranking.catalog import Sku
    from ranking.plan import Plan, Target
    from ranking.records import PlannerView
    from rigscout.config.load import Settings

EVERY_LISTING = 10**9  # the planner needs every priced listing, not the top 50


def build_plans(
    session: Session,
    settings: Settings,
    target: Target,
    now: datetime,
    *,
    skus: Mapping[str, Sku] | None = None,
) -> list[Plan]:
    """The best rigs for ``target`` from the stored active listings, best first."""
    return build_plans_for(session, settings, [target], now, skus=skus)[0]


def build_plans_for(
    session: Session,
    settings: Settings,
    targets: Sequence[Target],
    now: datetime,
    *,
    skus: Mapping[str, Sku] | None = None,
) -> list[list[Plan]]:
    """The best rigs for each of ``targets``, which share one profile and one workstation:
    the parts' prices and the listings are read and priced once for all of them."""
    if len({(t.profile, t.workstation) for t in targets}) > 1:
        raise ValueError("build_plans_for: the targets must share a profile and a workstation")
    skus = skus if skus is not None else {s.sku: s for s in load_catalog()}
    rules = load_plan_rules()
    first = targets[0]
    with collector_paused():
        under_way = session.in_transaction()
        parts = load_bom_prices(session, settings.rank, now)
        if not under_way:
            session.commit()  # the read ended, so the ranking may keep its priced rows
        workstations = [first.workstation] if first.workstation else []
        view = planner_view(skus, rules, parts, workstations)
        offers = build_offers(session, settings.rank, first.profile, now, skus=skus, planner=view)
        currency = settings.rank.currency
        return [
            plan_rigs(offers, skus, rules, t, currency=currency, now=now, parts=parts)
            for t in targets
        ]


def load_bom_prices(session: Session, rank: RankSettings, now: datetime) -> PartPrices:
    """What a rig's bill of materials is priced with: today's fixed-price listings of each
    part (landed, a parcel's freight where shipping is unknown), the parts' sold medians, and
    the estimates of ``parts.toml``."""
    offers: dict[str, list[PartOffer]] = {}
    for row in load_fixed_price_parts(session):
        if row.quantity <= 0 or row.price <= 0:
            continue  # no price to buy it at
        landed = landed_with_freight(
            row.price,
            row.shipping,
            row.quantity,
            row.currency,
            category=Category.GPU.value,
            settings=rank,
            marketplace=row.marketplace,
            location=row.location,
        )
        if landed is not None:
            offers.setdefault(str(row.sku), []).append(
                PartOffer(
                    row.listing_id,
                    row.item_id,
                    row.url,
                    row.title,
                    str(row.sku),
                    row.quantity,
                    landed.unit_price,
                )
            )
    sales = load_part_sales(session, now=now, days=rank.pool_window_days)
    table = load_parts()
    markets = part_markets(sales, rank, now=now, table=table)
    cheapest = {code: cheapest_lots(found) for code, found in offers.items()}
    return PartPrices(table, cheapest, {code: m.median for code, m in markets.items()})


def build_offers(
    session: Session,
    rank: RankSettings,
    profile: str,
    now: datetime,
    *,
    skus: Mapping[str, Sku],
    planner: PlannerView | None = None,
    kept: bool = True,
) -> list[Offer]:
    """The priced active listings under ``profile`` as offers: every one, or with ``planner``
    those a plan can buy (the same plans, from far fewer listings priced again)."""
    filters = RankFilters(
        profile=profile, limit=EVERY_LISTING, explain=False, kept_out=False, planner=planner
    )
    (ranking,) = rank_stored_many(session, skus, rank, now=now, filters=[filters], kept=kept)
    return offers_from_deals(session, ranking.deals)


def offers_from_deals(session: Session, deals: Sequence[Deal]) -> list[Offer]:
    """The ranker's deals as offers, each server's included GPUs read from the store."""
    includes = load_includes(
        session, [d.listing_id for d in deals if d.category is not Category.GPU]
    )
    return [offer_from_deal(d, includes.get(d.listing_id, ())) for d in deals]


# Flags a plan settles itself, so they are no warning in it: a listing sold without heatsinks
# gets them on the bill of materials wherever its host needs them (``heatsink`` below).
SETTLED_BY_PLAN = frozenset({"no_heatsink"})


def offer_from_deal(deal: Deal, includes: Sequence[Included] = ()) -> Offer:
    """The ranker's deal as a listing the planner may buy, at the ranker's landed price."""
    return Offer(
        listing_id=deal.listing_id,
        item_id=deal.item_id,
        url=deal.url,
        title=deal.title,
        sku=deal.sku,
        units=deal.quantity,
        unit_price=deal.landed_unit_price,
        price_basis=deal.price_basis,
        end_time=deal.end_time,
        freight_estimated=deal.freight_estimated,
        includes=tuple(includes),
        notes=tuple(
            f.label for f in deal.flags if f.severity != EXCLUDE and f.code not in SETTLED_BY_PLAN
        ),
        marketplace=deal.marketplace,
        config=deal.config,
        heatsink=module_heatsink(deal.title, (f.code for f in deal.flags)),
        flags=tuple(f.code for f in deal.flags),
        seller_feedback=deal.seller_feedback,
    )
