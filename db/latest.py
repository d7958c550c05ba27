"""A listing's newest price observation: the rule that picks it, and the column that keeps it.

``LATEST_ID`` is the rule: a correlated subquery picking the newest observation of the outer
query's listing, by time and then by insertion order. Every save stores its answer in
``listings.latest_observation_id`` (``save_latest``), so readers join ``LATEST`` (the
observations table under another name) on ``LATEST.id == ListingRow.latest_observation_id``
by primary key instead of running the subquery once per listing. Kept apart from
``db.store`` so that readers (``rigscout rank``) do not import the writers' upserts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import func, select, update
from sqlalchemy.orm import aliased

from db.batches import batches
from db.models import ListingRow, ObservationRow

if TYPE_CHECKING:
    from collections.abc import Iterable
    from datetime import datetime

    from sqlalchemy import ColumnElement, ScalarSelect
    from sqlalchemy.orm import Session

CHUNK = 500  # ids per IN (...) list: SQLite allows 999 parameters

LATEST = aliased(ObservationRow, name="latest")
_NEWER = aliased(ObservationRow, name="newer")
LATEST_ID = (
    select(_NEWER.id)
    .where(_NEWER.listing_id == ListingRow.id)
    .order_by(_NEWER.observed_at.desc(), _NEWER.id.desc())
    .limit(1)
    .correlate(ListingRow)
    .scalar_subquery()
)
# The join condition of every reader: the kept newest observation.
IS_LATEST = LATEST.id == ListingRow.latest_observation_id


def save_latest(session: Session, listing_ids: Iterable[int]) -> None:
    """Point each of these listings at its newest observation (after adding observations)."""
    for chunk in batches(sorted(set(listing_ids)), CHUNK):
        _point(session, ListingRow.id.in_(chunk))


def save_latest_observed_at(session: Session, observed_at: datetime) -> None:
    """``save_latest`` for the listings observed at ``observed_at`` (a save's ``now``): one
    statement, whatever the batch's size."""
    seen = select(ObservationRow.listing_id).where(ObservationRow.observed_at == observed_at)
    _point(session, ListingRow.id.in_(seen))


def next_saved() -> ScalarSelect[int]:
    """Past every listing's ``saved_seq``: what each statement writing a listing stamps on it
    (saves take turns, ``db.lock.save_in_turn``, so no two draw at once)."""
    return select(func.coalesce(func.max(ListingRow.saved_seq), 0) + 1).scalar_subquery()


def load_last_saved(session: Session) -> int | None:
    """The newest ``saved_seq`` (None: no listing saved since the column came)."""
    return session.scalar(select(func.max(ListingRow.saved_seq)))


def _point(session: Session, which: ColumnElement[bool]) -> None:
    session.execute(
        update(ListingRow)
        .where(which)
        .values(latest_observation_id=LATEST_ID, saved_seq=next_saved())
        .execution_options(synchronize_session=False)
    )
