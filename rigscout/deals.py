"""The ranking at the edge: load the rows from the store, hand them to the pure rules."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from typing import TYPE_CHECKING

from db.auction_rows import load_watched_auctions
from db.rank_rows import load_active_rows, load_sold_rows, load_unmatched_count
from ranking.auction_watch import HISTORY_DAYS, fit_watched_model, sales_window_days
from ranking.rank import RankFilters, Ranking, rank_rows

if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import datetime

    from sqlalchemy.orm import Session

    from ranking.catalog import Sku
    from rigscout.config import RankSettings


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
    watched = load_watched_auctions(session, since=now - timedelta(days=HISTORY_DAYS))
    # One load serves both: the ranker keeps its window, the model reaches back to its sightings.
    days = sales_window_days(watched, now=now, window_days=settings.window_days)
    sales = load_sold_rows(session, now=now, window_days=days)
    model = fit_watched_model(watched, sales, settings)
    ranking = rank_rows(
        load_active_rows(session),
        sales,
        skus,
        settings,
        now=now,
        filters=filters,
        predict=model.predict,
    )
    unmatched = load_unmatched_count(session)
    if not unmatched:
        return ranking
    return replace(ranking, skipped={**ranking.skipped, "unmatched": unmatched})
