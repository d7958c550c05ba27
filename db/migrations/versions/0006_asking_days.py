"""The report's price history, kept: each finished day's asking range per SKU.

``listings.history_changed_at`` says when a field that places a listing's prices in the
history last changed (its SKU, category, kind, lot size or where it ships from); the
``asking_days`` table keeps the landed asking range of each SKU on each day that has ended, so
the report reads today's sightings alone (``rigscout/outputs/report/asking.py``). It starts
empty: the first report fills it.

Revision ID: 0006_asking_days
Revises: 0005_priced
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0006_asking_days"
down_revision: str | None = "0005_priced"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # Altered in place (not in batch mode): see 0004.
    op.add_column(
        "listings", sa.Column("history_changed_at", sa.DateTime(timezone=True), nullable=True)
    )
    op.create_index("ix_listings_history_changed_at", "listings", ["history_changed_at"])
    op.create_table(
        "asking_days",
        sa.Column("sku", sa.String(length=64), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("low", sa.Text(), nullable=False),
        sa.Column("high", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("sku", "day"),
    )


def downgrade() -> None:
    op.drop_table("asking_days")
    op.drop_index("ix_listings_history_changed_at", table_name="listings")
    op.drop_column("listings", "history_changed_at")
