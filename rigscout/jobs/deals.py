"""The ranking at the edge: load the rows from the store, hand them to the pure rules."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import TYPE_CHECKING

from db.auction_rows import load_watched_auctions
from db.rank_rows import load_active_rows, load_sold_rows, load_unmatched_count
from ranking.auction_watch import HISTORY_DAYS, fit_watched_model, sales_window_days
from ranking.rank import RankFilters, Ranking, eligible_skus, price_rows, rank_priced
from rigscout.jobs.bulk import collector_paused

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import datetime

    from sqlalchemy.orm import Session

    from core.settings import RankSettings
    from ranking.catalog import Sku
    from ranking.rows import SoldRow


def load_ranking(
    session: Session,
    skus: Mapping[str, Sku],
    settings: RankSettings,
    *,
    now: datetime,
    filters: RankFilters | None = None,
) -> Ranking:
    """Today's ranking of the stored listings (see ``ranking.rank.rank_rows``).

    Running auctions are ranked at the end the auction model predicts, learned from the auctions
    watched to their end in the last ``HISTORY_DAYS`` (the prior where those are few).
    """
    (ranking,) = load_rankings(session, skus, settings, now=now, filters=[filters or RankFilters()])
    return ranking


def load_rankings(
    session: Session,
    skus: Mapping[str, Sku],
    settings: RankSettings,
    *,
    now: datetime,
    filters: Sequence[RankFilters],
    sales: Sequence[SoldRow] | None = None,
) -> tuple[Ranking, ...]:
    """One ranking per ``filters`` (each profile, say), loading the stored rows once.

    ``sales``: recent sales the caller has loaded already, over at least ``window_days``.
    """
    with collector_paused():
        watched = load_watched_auctions(session, since=now - timedelta(days=HISTORY_DAYS))
        if sales is None:
            # One load serves both: the ranker keeps its window, the model reaches back to its
            # sightings.
            days = sales_window_days(watched, now=now, window_days=settings.window_days)
            sales = load_sold_rows(session, now=now, window_days=days)
        model = fit_watched_model(watched, sales, settings)
        active = load_active_rows(session)
        unmatched = load_unmatched_count(session)
        eligible = eligible_skus(skus, settings, filters)
        priced = price_rows(
            active, sales, skus, settings, now=now, predict=model.predict, only=eligible
        )
        rankings = []
        for wanted in filters:
            ranking = rank_priced(priced, skus, settings, now=now, filters=wanted)
            if unmatched:
                ranking = replace(ranking, skipped={**ranking.skipped, "unmatched": unmatched})
            rankings.append(ranking)
        return tuple(rankings)
