"""The report's sold points: each sale of the history window at its landed unit price, the
points of its charts and the sales behind its moves and new lows.

The points are kept in the store (``db/sold_points.py``, one per sale) and the report computes
again only the sales that changed since: a sale saved or replaced (a sold page's sale in place
of a presumed one, maybe on another day) after the kept mark, and the sales dated after the
kept day; so a run that brings a week of sold pages computes those sales, not the 90 days
behind the charts. Every sale is computed again when

- the basis changed: the settings (FX rates, freight estimates) or the landed rule;
- the window starts earlier than the kept one, or the report's day is before the kept one;
- a listing moved to another SKU, kind, lot size, set of GPUs or place
  (``listings.history_changed_at``; a report made at the instant of the last move cannot
  tell and is not trusted by the next one).

A store that refuses the write (read-only) only costs the next report the full computation.
Either way the answer is the one the full computation gives
(``tests/rigscout/outputs/report/test_sold_points.py``).
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from db import rank_rows, sold_points
from db.asking_days import load_history_marks
from db.sold_points import (
    KEY,
    load_changed_sales,
    load_item_sales,
    load_kept_points,
    load_sale_mark,
    save_kept_points,
)
from db.state import load_state
from ranking.kept import pricing_basis
from ranking.landed import landed_unit_price
from ranking.market import sale_weight
from rigscout.outputs.report.keep import keep_for_next
from rigscout.outputs.report.records import SoldPoint

if TYPE_CHECKING:
    from collections.abc import Iterable

    from sqlalchemy.orm import Session

    from core.settings import RankSettings
    from ranking.rows import SoldRow


# What a kept point is computed by, besides the ranking rules (``ranking``, ``core``).
CODE = (Path(__file__), Path(sold_points.__file__ or ""), Path(rank_rows.__file__ or ""))


def build_sold_points(
    session: Session, rank: RankSettings, *, since: date, now: datetime, keep: bool = True
) -> tuple[SoldPoint, ...]:
    """Each sale after ``since`` up to ``now``'s day at its landed unit price: the kept points
    where they hold, the changed sales computed again (see the module's docstring). ``keep``
    False: every sale computed now, nothing read or kept."""
    today = now.astimezone(UTC).date()
    if not keep:
        return score_sold_points(
            (row for _, row in load_item_sales(session, since=since, until=today)), rank
        )
    basis = pricing_basis(rank, {}, None, code=CODE)
    mark = load_sale_mark(session)
    _, moved = load_history_marks(session)
    stale = _stale_sales(session, basis, since, today, moved)
    kept: list[SoldPoint] = []
    again: set[int] = set()  # the listings whose kept point is replaced
    if stale is None:  # every sale computed again
        loaded = load_item_sales(session, since=since, until=today)
    else:
        changed, kept_today = stale
        loaded = load_item_sales(session, since=since, until=today, listings=changed)
        if kept_today < today:  # sales dated after the kept day were not there to keep
            loaded += load_item_sales(session, since=max(since, kept_today), until=today)
        again = set(changed) | {listing for listing, _ in loaded}
        points = load_kept_points(session, since=since)
        kept = [SoldPoint(*p[1:]) for p in points if p[0] not in again]
    fresh = {listing: p for listing, row in loaded if (p := _point(row, rank)) is not None}
    if stale is None or again:
        state: dict[str, object] = {
            "basis": basis,
            "start": since.isoformat(),
            "today": today.isoformat(),
            "mark": mark,
            "moved": moved.isoformat() if moved else None,
            # A listing may still move under the same stamp while ``now`` is not past it.
            "settled": moved is None or now > moved,
        }
        rows = [(listing, p.sku, p.day, p.price, p.weight) for listing, p in fresh.items()]
        listings = None if stale is None else again
        save = partial(
            save_kept_points, points=rows, state=state, now=now, listings=listings, before=since
        )
        keep_for_next(session.get_bind().engine, save, "sold points")
    return tuple(sorted([*kept, *fresh.values()]))


def score_sold_points(sales: Iterable[SoldRow], rank: RankSettings) -> tuple[SoldPoint, ...]:
    """Each sale of a SKU alone (not a part's, not a server's sold with GPUs) at its landed
    unit price and weight (``ranking.market.sale_weight``), by SKU, day and price; sales in
    a currency without a rate are left out."""
    return tuple(sorted(p for row in sales if (p := _point(row, rank))))


def _point(row: SoldRow, rank: RankSettings) -> SoldPoint | None:
    if not row.own_market:
        return None
    landed = landed_unit_price(row.price, row.shipping, row.quantity, row.currency, rank)
    if landed is None:
        return None
    weight = sale_weight(best_offer_accepted=row.best_offer_accepted, source=row.source)
    return SoldPoint(row.sku, row.sold_date, landed.unit_price, weight)


def _stale_sales(
    session: Session, basis: str, since: date, today: date, moved: datetime | None
) -> tuple[list[int], date] | None:
    """The listings whose sale changed since the kept points and the kept day, or None when
    every sale must be computed again."""
    state = load_state(session, KEY)
    if state is None or state.get("basis") != basis or state.get("settled") is not True:
        return None
    try:
        start = date.fromisoformat(str(state["start"]))
        kept_today = date.fromisoformat(str(state["today"]))
        mark = int(str(state["mark"]))
    except (KeyError, ValueError):
        return None
    if start > since or kept_today > today:
        return None
    if state.get("moved") != (moved.isoformat() if moved else None):
        return None
    return load_changed_sales(session, mark=mark), kept_today
