"""The report's kept price history: each day's landed asking range per SKU.

``asking_days`` holds, for each day, the range the report would compute from that day's
sightings up to the ``state`` row's ``newest`` one (every sighting, for a day before its
``sealed`` day); ``rigscout/outputs/report/asking.py`` decides when it still holds. The rows
are only as good as that check: a sighting dated before the sealed day and saved after
(``load_backdated``), or a listing that moved to another SKU, lot or place
(``listings.history_changed_at``), computes them all again.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from sqlalchemy import delete, func, insert, select

from db.models import AskingDayRow, ListingRow, ObservationRow
from db.state import save_state

if TYPE_CHECKING:
    from collections.abc import Iterable
    from datetime import date, datetime

    from sqlalchemy.orm import Session

KEY = "asking_days"  # the ``state`` row: basis, start, sealed day, the store's marks

KeptDay = tuple[str, "date", Decimal, Decimal]  # sku, day, low, high


def load_history_marks(session: Session) -> tuple[int, datetime | None]:
    """The newest observation's id and the newest ``history_changed_at``: a sighting saved or
    a listing moved since they were read changes one of them."""
    newest = session.scalar(select(func.max(ObservationRow.id))) or 0
    moved = session.scalar(select(func.max(ListingRow.history_changed_at)))
    return int(newest), moved


def load_backdated(session: Session, *, after_id: int, before: datetime) -> bool:
    """Whether a sighting saved after observation ``after_id`` is dated before ``before``."""
    # In the order of the ids, so the search starts at ``after_id`` (by the index on the day
    # it read every older sighting, none of them after the id, on each report).
    stmt = (
        select(ObservationRow.id)
        .where(ObservationRow.id > after_id, ObservationRow.observed_at < before)
        .order_by(ObservationRow.id)
        .limit(1)
    )
    return session.scalar(stmt) is not None


def load_kept_days(session: Session, *, since: date) -> list[KeptDay]:
    """The kept ranges from ``since`` on."""
    stmt = select(AskingDayRow.sku, AskingDayRow.day, AskingDayRow.low, AskingDayRow.high).where(
        AskingDayRow.day >= since
    )
    return [
        (sku, day, Decimal(low), Decimal(high)) for sku, day, low, high in session.execute(stmt)
    ]


def save_kept_days(
    session: Session,
    days: Iterable[KeptDay],
    state: dict[str, object],
    now: datetime,
    *,
    since: date | None,
) -> None:
    """Put ``days`` in place of the kept ones from ``since`` on (None: of every kept one), and
    the state they hold under (flushed, not committed)."""
    dropped = delete(AskingDayRow)
    session.execute(dropped if since is None else dropped.where(AskingDayRow.day >= since))
    values = [{"sku": s, "day": d, "low": str(lo), "high": str(hi)} for s, d, lo, hi in days]
    if values:
        session.execute(insert(AskingDayRow), values)
    save_state(session, KEY, state, now)
