"""The record of collection runs: started, finished with counts and errors, or interrupted.

Unlike ``db.store``, these functions commit at once: a run that is killed must still show up
as "running" and be marked "interrupted" by the next one. Call them on a Session that has no
``session.begin()`` block open.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy import func, select, update

from core.errors import StoreError
from core.secrets import redact
from db.models import RunRow

if TYPE_CHECKING:
    from datetime import datetime

    from sqlalchemy import CursorResult
    from sqlalchemy.orm import Session

# A daily run takes minutes; one still "running" after this long has surely died.
STALE_AFTER = timedelta(hours=3)


@dataclass(frozen=True, slots=True)
class RunCounts:
    """What a run did, as shown by ``rigscout runs``."""

    searches: int = 0
    requests: int = 0
    listings_seen: int = 0
    listings_new: int = 0
    observations_new: int = 0
    alerts_sent: int = 0
    cards_skipped: int = 0  # unreadable cards its pages had (each page kept the rest)


@dataclass(frozen=True, slots=True)
class RunSummary:
    """One run as stored; ``duration`` is None while it runs or if it was interrupted."""

    id: int
    source: str
    status: str
    started_at: datetime
    finished_at: datetime | None
    searches: int
    requests: int
    listings_seen: int
    listings_new: int
    observations_new: int
    alerts_sent: int
    errors: tuple[dict[str, object], ...]
    cards_skipped: int = 0

    @property
    def duration(self) -> timedelta | None:
        return None if self.finished_at is None else self.finished_at - self.started_at

    @property
    def counts(self) -> RunCounts:
        return RunCounts(
            searches=self.searches,
            requests=self.requests,
            listings_seen=self.listings_seen,
            listings_new=self.listings_new,
            observations_new=self.observations_new,
            alerts_sent=self.alerts_sent,
            cards_skipped=self.cards_skipped,
        )


def start_run(session: Session, *, source: str, now: datetime) -> int:
    """Record a run as "running" and commit at once; returns its id."""
    row = RunRow(started_at=now, source=source, status="running", errors=[])
    session.add(row)
    session.flush()
    run_id = row.id
    session.commit()
    return run_id


def finish_run(
    session: Session,
    run_id: int,
    *,
    counts: RunCounts,
    errors: list[dict[str, object]],
    now: datetime,
) -> None:
    """Store a run's counts and errors and commit; status is ok, partial or failed.

    A run with errors is "failed" when it saw no listing at all, else "partial".
    """
    row = session.get(RunRow, run_id)
    if row is None:
        raise StoreError(f"Cannot finish run {run_id}: no such run in the database.")
    for name, value in asdict(counts).items():
        setattr(row, name, value)
    row.errors = [_masked(error) for error in errors]
    row.finished_at = now
    row.status = _status(counts, errors)
    session.commit()


def save_run_interrupted(
    session: Session, run_id: int, *, now: datetime, counts: RunCounts | None = None
) -> None:
    """Mark a run stopped by the user (Ctrl-C) "interrupted" at ``now``, with what it had done
    by then (``counts``), and commit."""
    done = asdict(counts) if counts is not None else {}
    session.execute(
        update(RunRow)
        .where(RunRow.id == run_id)
        .values(status="interrupted", finished_at=now, **done)
    )
    session.commit()


def load_requests_since(session: Session, *, source: str, since: datetime) -> int:
    """The requests runs from ``source`` made since ``since`` (a day's budget spent so far)."""
    stmt = select(func.coalesce(func.sum(RunRow.requests), 0)).where(
        RunRow.source == source, RunRow.started_at >= since
    )
    return int(session.execute(stmt).scalar_one())


def load_runs(session: Session, limit: int = 20) -> list[RunSummary]:
    """The latest ``limit`` runs, newest first."""
    rows = session.scalars(select(RunRow).order_by(RunRow.started_at.desc(), RunRow.id.desc()))
    return [_summary(row) for row in rows.fetchmany(limit)]


def save_interrupted_runs(
    session: Session, now: datetime, *, stale_after: timedelta = timedelta(0)
) -> int:
    """Mark runs still "running" that started ``stale_after`` or more before ``now`` "interrupted".

    Returns how many were marked, and commits. The default suits a run holding the run lock,
    for which no other run can be alive; lock-free workers pass ``stale_after=STALE_AFTER``.
    A run wrongly marked gets its real status back from ``finish_run``.
    """
    result = session.execute(
        update(RunRow)
        .where(RunRow.status == "running", RunRow.started_at <= now - stale_after)
        .values(status="interrupted")
        .execution_options(synchronize_session="fetch")
    )
    session.commit()
    return cast("CursorResult[Any]", result).rowcount


def _masked(error: dict[str, object]) -> dict[str, object]:
    """An error as stored: every text in it with the secrets masked."""
    return {k: redact(v) if isinstance(v, str) else v for k, v in error.items()}


def _status(counts: RunCounts, errors: list[dict[str, object]]) -> str:
    if not errors:
        return "ok"
    return "partial" if counts.listings_seen else "failed"


def _summary(row: RunRow) -> RunSummary:
    return RunSummary(
        id=row.id,
        source=row.source,
        status=row.status,
        started_at=row.started_at,
        finished_at=row.finished_at,
        searches=row.searches,
        requests=row.requests,
        listings_seen=row.listings_seen,
        listings_new=row.listings_new,
        observations_new=row.observations_new,
        alerts_sent=row.alerts_sent,
        errors=tuple(row.errors or ()),
        cards_skipped=row.cards_skipped,
    )
