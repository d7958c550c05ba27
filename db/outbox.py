"""The alerts outbox as stored: one row per listing per channel, moving pending -> sending ->
sent. The claim, sent and release steps commit, so a crash leaves an honest record behind.
What is worth enqueueing is ``alerts.outbox``'s rule; this module only reads and moves rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import delete, func, select

from core.secrets import redact
from db.models import AlertRow, ListingRow

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from datetime import datetime

    from sqlalchemy.orm import Session

PENDING, SENDING, SENT = "pending", "sending", "sent"
OPEN = (PENDING, SENDING)
ERROR_LIMIT = 2000
# What a row alerts about (``AlertRow.kind``): saved-plan alerts (alerts/plan_outbox.py) share
# the outbox, not the deals' once-per-listing rule.
DEAL, PLAN = "deal", "plan"


@dataclass(frozen=True, slots=True)
class Claim:
    """The rows one channel is about to send; ``in_flight`` were left "sending" by a killed run."""

    rows: tuple[AlertRow, ...]
    in_flight: int


def load_open_alert(session: Session, listing_id: int, channel: str) -> AlertRow | None:
    """The pending or in-flight row for this listing on this channel, if any."""
    query = select(AlertRow).where(
        AlertRow.listing_id == listing_id, AlertRow.channel == channel, AlertRow.status.in_(OPEN)
    )
    query = query.where(AlertRow.kind == DEAL)
    return session.scalars(query.order_by(AlertRow.id).limit(1)).first()


def load_last_sent(session: Session, listing_id: int, channel: str) -> AlertRow | None:
    """The most recent row actually sent for this listing on this channel."""
    query = select(AlertRow).where(
        AlertRow.listing_id == listing_id, AlertRow.channel == channel, AlertRow.status == SENT
    )
    query = query.where(AlertRow.kind == DEAL)
    return session.scalars(query.order_by(AlertRow.sent_at.desc(), AlertRow.id.desc())).first()


def load_open_alerts(session: Session, channel: str) -> list[AlertRow]:
    """Every pending or in-flight row of ``channel``, oldest first (reads only)."""
    query = select(AlertRow).where(AlertRow.channel == channel, AlertRow.status.in_(OPEN))
    return list(session.scalars(query.order_by(AlertRow.id)))


def load_open_channels(session: Session) -> dict[str, int]:
    """The channels that have something pending or in flight, with how many alerts."""
    query = (
        select(AlertRow.channel, func.count())
        .where(AlertRow.status.in_(OPEN))
        .group_by(AlertRow.channel)
    )
    return {str(row[0]): int(row[1]) for row in session.execute(query)}


def load_claim(session: Session, channel: str) -> Claim:
    """The channel's open rows, oldest first, locked for this run (``FOR UPDATE SKIP LOCKED``
    on PostgreSQL). Rows already "sending" were claimed by a run that died before recording
    the outcome of that one message: they may have been delivered (``in_flight``)."""
    rows = session.scalars(
        select(AlertRow)
        .where(AlertRow.channel == channel, AlertRow.status.in_(OPEN))
        .order_by(AlertRow.id)
        .with_for_update(skip_locked=True)
    ).all()
    in_flight = sum(1 for row in rows if row.status == SENDING)
    return Claim(tuple(rows), in_flight)


def save_sending(session: Session, rows: Sequence[AlertRow]) -> None:
    """Mark the rows of the one message about to go out "sending" and COMMIT, before the
    network call: a crash from here on leaves exactly these rows "sending", never rows that
    were delivered still "pending", nor rows of later messages "sending"."""
    for row in rows:
        row.status = SENDING
        row.attempts += 1
    session.commit()


def save_sent(session: Session, rows: Sequence[AlertRow], *, now: datetime) -> None:
    """Record ``rows`` as delivered and COMMIT."""
    for row in rows:
        row.status = SENT
        row.sent_at = now
        row.last_error = None
    session.commit()


def save_released(session: Session, rows: Sequence[AlertRow], error: str) -> None:
    """Put ``rows`` back to pending with the reason, and COMMIT; the next run retries them."""
    for row in rows:
        row.status = PENDING
        row.last_error = redact(error)[:ERROR_LIMIT]
    session.commit()


def load_latest_plan_alert(
    session: Session, name: str, channel: str, statuses: Sequence[str]
) -> AlertRow | None:
    """The newest row of the saved plan ``name`` on ``channel`` in one of ``statuses``."""
    query = select(AlertRow).where(
        AlertRow.kind == PLAN,
        AlertRow.rule == name,
        AlertRow.channel == channel,
        AlertRow.status.in_(statuses),
    )
    return session.scalars(query.order_by(AlertRow.id.desc()).limit(1)).first()


def save_dropped_for(session: Session, covered: Callable[[str, str | None, str], bool]) -> int:
    """Delete the open alerts of listings ``covered(item_id, seller, title)`` says yes to (an
    ignore the user just added); how many were dropped."""
    rows = session.execute(
        select(AlertRow.id, ListingRow.item_id, ListingRow.seller, ListingRow.title)
        .join(ListingRow, ListingRow.id == AlertRow.listing_id)
        .where(AlertRow.status.in_(OPEN))
    ).all()
    doomed = [
        alert_id for alert_id, item_id, seller, title in rows if covered(item_id, seller, title)
    ]
    if doomed:
        session.execute(delete(AlertRow).where(AlertRow.id.in_(doomed)))
    return len(doomed)
