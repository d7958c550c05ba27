"""Listings whose eBay condition says broken are parts, however plain their titles.

Until this revision the run stored eBay's condition ("For parts or not working", "Als
Ersatzteil / defekt") and never read it, so a card with a plain title and that condition was
stored as a working card: ranked as a deal, and its sale counted in its SKU's market. Each
distinct condition of the stored item listings is read again with the titles' fault words
(``ranking.titles.condition_broken``, as ``Normalizer.normalize`` reads it now), and the listings
whose condition says broken become parts, stamped as a save that changed them is (``changed_at``,
``history_changed_at``, ``saved_seq``), so the kept ranking and the report's kept days take
them up. Nothing else is touched.

Revision ID: 0018_broken_condition
Revises: 0017_seller_stake_index
Create Date: 2026-11-30
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "0018_broken_condition"
down_revision: str | None = "0017_seller_stake_index"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    from ranking.titles import condition_broken

    listings = sa.table(
        "listings",
        sa.column("kind", sa.String),
        sa.column("condition", sa.String),
        sa.column("changed_at", sa.DateTime(timezone=True)),
        sa.column("history_changed_at", sa.DateTime(timezone=True)),
        sa.column("saved_seq", sa.Integer),
    )
    bind = op.get_bind()
    conditions = bind.scalars(
        sa.select(listings.c.condition)
        .where(listings.c.kind == "item", listings.c.condition.is_not(None))
        .distinct()
    ).all()
    broken = [c for c in conditions if c and condition_broken(c)]
    if not broken:
        return
    now = datetime.now(UTC)
    next_saved = sa.select(sa.func.coalesce(sa.func.max(listings.c.saved_seq), 0) + 1)
    bind.execute(
        sa.update(listings)
        .where(listings.c.kind == "item", listings.c.condition.in_(broken))
        .values(
            kind="for_parts",
            changed_at=now,
            history_changed_at=now,
            saved_seq=next_saved.scalar_subquery(),
        )
    )


def downgrade() -> None:
    """Nothing to undo: the condition was read as a run now reads it."""
