"""A listing's newest price observation, as query pieces the store and the loaders share.

``LATEST`` is the observations table under another name; join it on ``LATEST.id ==
LATEST_ID``, a correlated subquery picking the newest observation of the outer query's
listing, by time and then by insertion order. Kept apart from ``db.store`` so that readers
(``rigscout rank``) do not import the writers' dialect-specific upserts.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import aliased

from db.models import ListingRow, ObservationRow

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
