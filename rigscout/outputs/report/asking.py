"""The report's asking band: per SKU and day, the range of landed asking prices seen.

A day that has ended does not change: its range is kept in the store (``db/asking_days.py``)
and the report reads today's sightings alone, where it used to group every sighting of the
history window (most of a report's time on a large store). The kept days hold while

- the basis is the same: the settings (FX rates, freight estimates) and the landed rule;
- the window starts no earlier than the kept one;
- no listing moved to another SKU, category, kind, lot size or place since
  (``listings.history_changed_at``; a report made at the instant of the last move, as an
  offline replay's is, cannot tell and is not kept);
- no sighting dated before the sealed day was saved after them (an offline replay, a backfill).

Otherwise every day is computed again and kept anew. A store that refuses the write (read-only)
only costs the next report the full computation. Either way the answer is the
one the full computation gives (``tests/rigscout/outputs/report/test_asking_band.py``).
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
    from collections.abc import Callable, Iterable

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
    the ended days from the kept ones where they hold, then the days since (see the module's
    docstring). ``keep`` False: every day computed now, nothing read or kept. ``later``: the
    keeping is appended to it for the caller to run, instead of done now (the report keeps
    them once its rankings have written: at a million listings their writes hold the store
    longer than a keep may wait, and the days were computed again by the next report)."""
    if not keep:
        return score_asking_days(load_asking_rows(session, since=since, read_through=True), rank)
    today = now.astimezone(UTC).date()
    basis = pricing_basis(rank, {}, None, code=CODE)
    newest, moved = load_history_marks(session)
    sealed = _sealed(session, basis, since, moved)
    kept = [AskingDay(*day) for day in load_kept_days(session, since=since)] if sealed else []
    fresh = score_asking_days(
        load_asking_rows(session, since=max(since, sealed or since), read_through=sealed is None),
        rank,
    )
    ended = [d for d in fresh if d.day < today]
    if sealed is None or ended:
        state: dict[str, object] = {
            "basis": basis,
            "start": since.isoformat(),
            "sealed": max(today, sealed or today).isoformat(),
            "newest": newest,
            "moved": moved.isoformat() if moved else None,
            # A listing may still move under the same stamp while ``now`` is not past it.
            "settled": moved is None or now > moved,
        }
        rows = [(d.sku, d.day, d.low, d.high) for d in ended]
        engine, replace = session.get_bind().engine, sealed is None

        def keep_days() -> None:
            save = partial(save_kept_days, days=rows, state=state, now=now, replace=replace)
            keep_for_next(engine, save, "asking days")

        if later is None:
            keep_days()
        else:
            later.append(keep_days)
    return tuple(sorted([*kept, *fresh], key=lambda d: (d.sku, d.day)))


def _sealed(session: Session, basis: str, since: date, moved: datetime | None) -> date | None:
    """The day before which the kept days hold for this window, or None."""
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
    return None if load_backdated(session, after_id=newest, before=before) else sealed


def score_asking_days(rows: Iterable[AskingRow], rank: RankSettings) -> tuple[AskingDay, ...]:
    """Per SKU and day, the range of landed unit asking prices (``ranking.landed``'s rule, the
    same as each deal's); rows in a currency without a rate are left out."""
    ranges: dict[tuple[str, date], tuple[Decimal, Decimal]] = {}
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
        if ends[0] is None or ends[1] is None:
            continue
        key = (row.sku, row.day)
        low, high = ranges.get(key, (ends[0].unit_price, ends[1].unit_price))
        ranges[key] = (min(low, ends[0].unit_price), max(high, ends[1].unit_price))
    return tuple(AskingDay(s, d, lo, hi) for (s, d), (lo, hi) in sorted(ranges.items()))
