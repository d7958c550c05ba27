"""Search leases for several ``rigscout run --worker`` processes sharing one PostgreSQL database.

Each day's run has a key; every saved search gets one lease row for it. A worker claims the
next pending row with ``SELECT … FOR UPDATE SKIP LOCKED``, so two workers never take the same
search, and a lease left behind by a killed worker becomes claimable again after ``stale``. A
search that failed is claimable again by any worker that has not tried it yet (a worker
process tries each search once; the next worker started that day retries it).
SQLite has one writer at a time, so the same code is correct there without SKIP LOCKED.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import func, or_, select

from db.models import SearchLeaseRow

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

    from sqlalchemy.orm import Session


def save_lease_rows(session: Session, run_key: str, searches: Sequence[str], now: datetime) -> int:
    """Create the missing lease rows of this run key; returns how many were added. Commits."""
    existing = set(
        session.scalars(select(SearchLeaseRow.search).where(SearchLeaseRow.run_key == run_key))
    )
    added = [
        SearchLeaseRow(run_key=run_key, search=name, status="pending", updated_at=now)
        for name in searches
        if name not in existing
    ]
    session.add_all(added)
    try:
        session.commit()
    except Exception:
        # Another worker created the same rows first (unique run_key+search): theirs stand.
        session.rollback()
        return 0
    return len(added)


def claim_next_search(
    session: Session,
    run_key: str,
    worker: str,
    now: datetime,
    *,
    stale: timedelta = timedelta(hours=2),
    tried: Collection[str] = (),
) -> str | None:
    """Lease the next search of this run for ``worker``; None when all are taken. Commits.

    Pending searches come first, then failed ones this worker has not ``tried`` yet.
    """
    row = session.scalars(
        select(SearchLeaseRow)
        .where(
            SearchLeaseRow.run_key == run_key,
            or_(
                SearchLeaseRow.status == "pending",
                (SearchLeaseRow.status == "leased") & (SearchLeaseRow.updated_at < now - stale),
                (SearchLeaseRow.status == "failed") & SearchLeaseRow.search.not_in(list(tried)),
            ),
        )
        .order_by((SearchLeaseRow.status == "failed").asc(), SearchLeaseRow.id)
        .limit(1)
        .with_for_update(skip_locked=True)
    ).first()
    if row is None:
        session.rollback()
        return None
    row.status, row.worker, row.updated_at = "leased", worker, now
    session.commit()
    return row.search


def save_lease_result(
    session: Session, run_key: str, search: str, *, ok: bool, now: datetime
) -> None:
    """Record a leased search as done or failed. Commits."""
    row = session.scalars(
        select(SearchLeaseRow).where(
            SearchLeaseRow.run_key == run_key, SearchLeaseRow.search == search
        )
    ).one()
    row.status, row.updated_at = ("done" if ok else "failed"), now
    session.commit()


def load_open_lease_count(session: Session, run_key: str) -> int:
    """Searches of this run still pending or leased."""
    return (
        session.scalar(
            select(func.count())
            .select_from(SearchLeaseRow)
            .where(
                SearchLeaseRow.run_key == run_key, SearchLeaseRow.status.in_(("pending", "leased"))
            )
        )
        or 0
    )
