"""The rig planner at the edge: today's ranked listings from the store, planned into rigs.

The prices are the ranker's (``load_ranking``: landed, auctions at their predicted end,
estimated freight, flags); this module only adds what a server listing comes with and hands
everything to the pure planner (``ranking/plan.py``). The HTML report calls ``load_plans``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.models import Category, Included
from db.rank_rows import load_includes
from ranking.catalog import load_catalog
from ranking.plan import Offer, plan_rigs
from ranking.plan_rules import load_plan_rules
from ranking.rank import RankFilters
from rigscout.jobs.bulk import collector_paused
from rigscout.jobs.deals import load_ranking

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import datetime

    from sqlalchemy.orm import Session

    from core.models import Deal
    from ranking.catalog import Sku
    from ranking.plan import Plan, Target
    from rigscout.config.load import Settings

EVERY_LISTING = 10**9  # the planner needs every priced listing, not the top 50


def load_plans(
    session: Session,
    settings: Settings,
    target: Target,
    now: datetime,
    *,
    skus: Mapping[str, Sku] | None = None,
) -> list[Plan]:
    """The best rigs for ``target`` from the stored active listings, best first."""
    skus = skus if skus is not None else {s.sku: s for s in load_catalog()}
    with collector_paused():
        offers = load_offers(session, settings, target.profile, now, skus=skus)
        return plan_rigs(
            offers, skus, load_plan_rules(), target, currency=settings.rank.currency, now=now
        )


def load_offers(
    session: Session, settings: Settings, profile: str, now: datetime, *, skus: Mapping[str, Sku]
) -> list[Offer]:
    """Every priced active listing under ``profile`` as an offer (one ranking of them all)."""
    filters = RankFilters(profile=profile, limit=EVERY_LISTING, explain=False)
    ranking = load_ranking(session, skus, settings.rank, now=now, filters=filters)
    hosts = [d.listing_id for d in ranking.deals if d.category is not Category.GPU]
    includes = load_includes(session, hosts)
    return [offer_from_deal(d, includes.get(d.listing_id, ())) for d in ranking.deals]


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
        notes=tuple(f.label for f in deal.flags if f.severity == "warn"),
        marketplace=deal.marketplace,
    )
