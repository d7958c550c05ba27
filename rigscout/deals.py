"""The ranking at the edge: load the rows from the store, hand them to the pure rules."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from db.rank_rows import load_active_rows, load_sold_rows, load_unmatched_count
from ranking.rank import RankFilters, Ranking, rank_rows

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import datetime

    from sqlalchemy.orm import Session

    from ranking.catalog import Sku
    from ranking.rows import SoldRow
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
    active = load_active_rows(session)
    if sales is None:
        sales = load_sold_rows(session, now=now, window_days=settings.window_days)
    unmatched = load_unmatched_count(session)
    rankings = []
    for wanted in filters:
        ranking = rank_rows(active, sales, skus, settings, now=now, filters=wanted)
        if unmatched:
            ranking = replace(ranking, skipped={**ranking.skipped, "unmatched": unmatched})
        rankings.append(ranking)
    return tuple(rankings)
