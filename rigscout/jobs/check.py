"""``rigscout check ITEM``: one listing as the ranking and the planner see it today.

The stored listing (or, with ``fetch_page``, the item page fetched and read when the store has
none) is ranked with every other stored listing, by the same code as ``rank`` and ``plan``:
its reading, its reference and evidence, its flags, its score, its place among today's deals
and among its model's, and the plans it is part of. A fetched item is ranked inside the
session's transaction and rolled back: checking a listing stores nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from core.errors import RigscoutError
from core.marketplaces import item_url, marketplace_of_host
from db.items import StoredItem, load_item
from db.store import save_listings
from ranking.plan import Target
from ranking.records import RankFilters
from ranking.titles import user_normalizer, user_skus
from rigscout.jobs.deals import rank_stored_many
from rigscout.jobs.plans import build_plans_for

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from datetime import datetime

    from sqlalchemy.orm import Session

    from core.models import Deal, Normalized
    from ranking.catalog import Sku
    from ranking.plan import Plan
    from rigscout.config.load import Settings

EVERY = 1_000_000  # a limit no store reaches: the whole ranking, unexplained
PLAN_TARGETS = (32.0, 64.0, 128.0)  # GB of VRAM: the rigs the README's examples plan
PLANS_LOOKED_AT = 5


class NotFoundError(RigscoutError):
    """The item is not in the store and could not be fetched."""


@dataclass(frozen=True, slots=True)
class PlanHit:
    vram_gb: float
    place: int  # 1: the first plan shown
    plan: Plan
    role: str  # "host" or "gpu"


@dataclass(frozen=True, slots=True)
class ItemCheck:
    item_id: str
    title: str
    url: str
    status: str  # "active", "ended", "sold", …
    fetched: bool  # read from its item page just now (not in the store)
    reading: Normalized
    profile: str
    view: str  # "deal", "flagged", "part" or "none"
    deal: Deal | None  # the ranking's entry for it, with its sentence and flags
    place: int | None  # among today's deals (1: the top)
    deals: int
    place_in_model: int | None
    model_deals: int
    plans: tuple[PlanHit, ...]


def check_item(
    session: Session,
    settings: Settings,
    item_id: str,
    *,
    now: datetime,
    profile: str | None = None,
    fetch_page: Callable[[str], str] | None = None,
) -> ItemCheck:
    """The check of ``item_id``; ``fetch_page(url)`` is the item page's HTML (None: offline,
    the stored listing only)."""
    stored = load_item(session, item_id)
    fetched = False
    if stored is None:
        if fetch_page is None:
            raise NotFoundError(
                f"item {item_id} is not in the store (seen by no search yet); without "
                "--offline, check fetches its page"
            )
        stored = _fetch_and_stage(session, settings, item_id, now, fetch_page)
        fetched = True
    try:
        return _check(session, settings, stored, now=now, profile=profile, fetched=fetched)
    finally:
        if fetched:
            session.rollback()  # checking stores nothing


def _fetch_and_stage(
    session: Session,
    settings: Settings,
    item_id: str,
    now: datetime,
    fetch_page: Callable[[str], str],
) -> StoredItem:
    """The item page read and saved in the session's transaction (rolled back after)."""
    from scraper.item_page import parse_item_page

    base = settings.collector.base_url
    url = f"{base.rstrip('/')}/itm/{item_id}" if base else item_url("EBAY_US", item_id)
    marketplace = marketplace_of_host(urlsplit(url).hostname or "")
    page = parse_item_page(fetch_page(url), url=url, marketplace=marketplace)
    normalizer = user_normalizer(settings.catalog_extra)
    reading = normalizer.normalize(
        page.listing.title, specifics=page.specifics, condition=page.listing.condition
    )
    save_listings(session, [(page.listing, reading)], search=None, run_id=None, now=now)
    session.flush()
    staged = load_item(session, page.listing.item_id)
    assert staged is not None
    return staged


def _check(
    session: Session,
    settings: Settings,
    stored: StoredItem,
    *,
    now: datetime,
    profile: str | None,
    fetched: bool,
) -> ItemCheck:
    skus = user_skus(settings.catalog_extra)
    reading = user_normalizer(settings.catalog_extra).normalize(
        stored.title, category_id=stored.category_id, condition=stored.condition
    )
    name = profile or settings.rank.profile

    def is_it(deal: Deal) -> bool:
        return deal.item_id == stored.item_id

    everything = RankFilters(profile=name, limit=EVERY, explain_top=0, explain_also=is_it)
    asked = [everything]
    if stored.sku is not None:  # its model's listings, flagged and parts views explained
        asked.append(RankFilters(profile=name, sku=stored.sku, limit=10_000, kept_out=False))
    rankings = rank_stored_many(session, skus, settings.rank, now=now, filters=asked)
    overall = rankings[0].deals
    model = rankings[1] if len(rankings) > 1 else None
    place = next((i for i, d in enumerate(overall, 1) if is_it(d)), None)
    view, deal = "none", None
    if model is not None:
        views = {"deal": model.deals, "flagged": model.flagged, "part": model.parts}
        found = ((v, d) for v, entries in views.items() for d in entries if is_it(d))
        view, deal = next(found, (view, deal))
    model_deals = model.deals if model is not None else ()
    return ItemCheck(
        item_id=stored.item_id,
        title=stored.title,
        url=stored.url,
        status=stored.status,
        fetched=fetched,
        reading=reading,
        profile=name,
        view=view,
        deal=deal,
        place=place,
        deals=len(overall),
        place_in_model=next((i for i, d in enumerate(model_deals, 1) if is_it(d)), None),
        model_deals=len(model_deals),
        plans=(
            _plans_with(session, settings, stored.item_id, name, now, skus)
            if view == "deal"
            else ()
        ),
    )


def _plans_with(
    session: Session,
    settings: Settings,
    item_id: str,
    profile: str,
    now: datetime,
    skus: Mapping[str, Sku],
) -> tuple[PlanHit, ...]:
    """Where the listing sits in today's best plans for the README's VRAM targets (the
    listings read and priced once for all of them)."""
    targets = [Target(vram_gb=v, profile=profile, limit=PLANS_LOOKED_AT) for v in PLAN_TARGETS]
    hits: list[PlanHit] = []
    for target, plans in zip(
        targets, build_plans_for(session, settings, targets, now, skus=skus), strict=True
    ):
        for place, plan in enumerate(plans, 1):
            parts: Sequence[tuple[str, str | None]] = [
                ("host", plan.host.item_id),
                *(("gpu", g.item_id) for g in plan.gpus),
            ]
            role = next((r for r, item in parts if item == item_id), None)
            if role is not None:
                hits.append(PlanHit(target.vram_gb, place, plan, role))
    return tuple(hits)
