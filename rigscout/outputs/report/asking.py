"""The report's asking band: per SKU and day, the range of landed asking prices seen.

A range only widens as sightings come: the ranges are kept in the store (``db/asking_days.py``)
with the newest sighting they account for, and a report groups only the sightings saved since
(a daily run sees every listing: at a million listings a million sightings a day, which each
report grouped again while the day lasted), then widens the kept ranges of their days by them.
The days before the kept ``sealed`` day hold every sighting of theirs. The kept ranges hold
while

- the basis is the same: the settings (FX rates, freight estimates) and the landed rule;
- the window starts no earlier than the kept one;
- no listing moved to another SKU, category, kind, lot size or place since
  (``listings.history_changed_at``; a report made at the instant of the last move, as an
  offline replay's is, cannot tell and is not kept);
- no sighting dated before the sealed day was saved after them (an offline replay, a backfill).

Otherwise every day is computed again and kept anew. A store that refuses the write (read-only)
only costs the next report the sightings since the last kept ones. Either way the answer is the
one the full computation gives (``tests/rigscout/outputs/report/test_asking_band.py``). The
collector is paused while a report is built (``rigscout.jobs.bulk``): a sighting saved with a
lower id than one already read, by a writer still running, would not be counted.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from db import asking_days, history
from db.asking_days import (
    KEY,
    load_backdated,
    load_history_marks,
    load_kept_days,
    save_kept_days,
)
from db.history import load_asking_rows
from db.state import load_state
from ranking.kept import pricing_basis
from ranking.landed import landed_with_freight
from rigscout.outputs.report.keep import keep_for_next
from rigscout.outputs.report.records import AskingDay

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    from sqlalchemy.orm import Session

    from core.settings import RankSettings
    from ranking.rows import AskingRow


# What a kept day is computed by, besides the ranking rules (``ranking``, ``core``).
CODE = (Path(__file__), Path(asking_days.__file__ or ""), Path(history.__file__ or ""))


def build_asking_days(
    session: Session,
    rank: RankSettings,
    *,
    since: date,
    now: datetime,
    keep: bool = True,
    later: list[Callable[[], None]] | None = None,
) -> tuple[AskingDay, ...]:
    """Per SKU and day since ``since``, the lowest and highest landed asking price observed:
    the kept ranges where they hold, widened by the sightings saved since (see the module's
    docstring). ``keep`` False: every day computed now, nothing read or kept. ``later``: the
    keeping is appended to it for the caller to run, instead of done now (the report keeps
    them once its rankings have written: at a million listings their writes hold the store
    longer than a keep may wait, and the days were computed again by the next report)."""
    if not keep:
        return score_asking_days(load_asking_rows(session, since=since, read_through=True), rank)
    today = now.astimezone(UTC).date()
    basis = pricing_basis(rank, {}, None, code=CODE)
    newest, moved = load_history_marks(session)
    held = _kept_mark(session, basis, since, moved)
    if held is None:  # every day computed again
        kept: list[AskingDay] = []
        rows = load_asking_rows(session, since=since, read_through=True, through=newest)
    else:  # the kept days, and the sightings saved since they were kept
        sealed, counted = held
        kept = [AskingDay(*day) for day in load_kept_days(session, since=since)]
        rows = load_asking_rows(session, since=max(since, sealed), after=counted, through=newest)
    fresh = score_asking_days(rows, rank)
    days = widen(kept, fresh)
    if held is None or fresh:
        # the days the sightings read may have widened (all of them when none was kept)
        start = None if held is None else held[0]
        state: dict[str, object] = {
            "basis": basis,
            "start": since.isoformat(),
            "sealed": max(today, start or today).isoformat(),
            "newest": newest,
            "moved": moved.isoformat() if moved else None,
            # A listing may still move under the same stamp while ``now`` is not past it.
            "settled": moved is None or now > moved,
        }
        rows_kept = [(d.sku, d.day, d.low, d.high) for d in days if start is None or d.day >= start]
        engine = session.get_bind().engine

        def keep_days() -> None:
            save = partial(save_kept_days, days=rows_kept, state=state, now=now, since=start)
            keep_for_next(engine, save, "asking days")

        if later is None:
            keep_days()
        else:
            later.append(keep_days)
    return days


def widen(*parts: Iterable[AskingDay]) -> tuple[AskingDay, ...]:
    """The ranges of ``parts`` of the same SKU and day made one (the lowest low, the highest
    high), in (SKU, day) order: the band of the sightings behind them all."""
    return _widest((d.sku, d.day, d.low, d.high) for part in parts for d in part)


def _kept_mark(
    session: Session, basis: str, since: date, moved: datetime | None
) -> tuple[date, int] | None:
    """The kept days' sealed day (every day before it holds all its sightings) and the newest
    sighting they account for, when they hold for this window; else None."""
    state = load_state(session, KEY)
    if state is None or state.get("basis") != basis:
        return None
    try:
        start = date.fromisoformat(str(state["start"]))
        sealed = date.fromisoformat(str(state["sealed"]))
        newest = int(str(state["newest"]))
    except (KeyError, ValueError):
        return None
    if start > since or state.get("moved") != (moved.isoformat() if moved else None):
        return None
    if state.get("settled") is not True:
        return None
    before = datetime.combine(sealed, datetime.min.time(), UTC)
    return None if load_backdated(session, after_id=newest, before=before) else (sealed, newest)


def score_asking_days(rows: Iterable[AskingRow], rank: RankSettings) -> tuple[AskingDay, ...]:
    """Per SKU and day, the range of landed unit asking prices (``ranking.landed``'s rule, the
    same as each deal's); rows in a currency without a rate are left out."""
    return _widest(_landed(rows, rank))


def _landed(
    rows: Iterable[AskingRow], rank: RankSettings
) -> Iterator[tuple[str, date, Decimal, Decimal]]:
    """Each row's (SKU, day, landed low, landed high), where its currency has a rate."""
    for row in rows:
        shipping = Decimal(0) if row.shipping_known else None
        ends = [
            landed_with_freight(
                total,
                shipping,
                row.quantity,
                row.currency,
                category=row.category,
                settings=rank,
                marketplace=row.marketplace,
                location=row.location,
            )
            for total in (row.low, row.high)
        ]
        if ends[0] is not None and ends[1] is not None:
            yield row.sku, row.day, ends[0].unit_price, ends[1].unit_price


def _widest(found: Iterable[tuple[str, date, Decimal, Decimal]]) -> tuple[AskingDay, ...]:
    """Per SKU and day of ``found`` (SKU, day, low, high), the lowest low and the highest high,
    in (SKU, day) order."""
    ranges: dict[tuple[str, date], tuple[Decimal, Decimal]] = {}
    for sku, day, low, high in found:
        had = ranges.get((sku, day))
        ranges[sku, day] = (low, high) if had is None else (min(had[0], low), max(had[1], high))
    return tuple(AskingDay(s, d, lo, hi) for (s, d), (lo, hi) in sorted(ranges.items()))
