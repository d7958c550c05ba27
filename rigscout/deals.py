"""The ranking at the edge: load the rows from the store, hand them to the pure rules."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from db.rank_rows import load_active_rows, load_sold_rows, load_unmatched_count
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
    """Today's ranking of the stored listings (see ``ranking.rank.rank_rows``)."""
    ranking = rank_rows(
        load_active_rows(session),
        load_sold_rows(session, now=now, window_days=settings.window_days),
        skus,
        settings,
        now=now,
        filters=filters,
    )
    unmatched = load_unmatched_count(session)
    if not unmatched:
        return ranking
    return replace(ranking, skipped={**ranking.skipped, "unmatched": unmatched})
