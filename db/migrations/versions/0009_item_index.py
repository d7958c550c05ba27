"""Listings are found by their item number alone: an item seen on two marketplaces is one
listing to the ranking, the plans and the alerts (``db.ranked``), which looks it up by item.

Revision ID: 0009_item_index
Revises: 0008_cards_skipped
Create Date: 2026-11-29
"""

from __future__ import annotations

from alembic import op

revision: str = "0009_item_index"
down_revision: str | None = "0008_cards_skipped"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_index("ix_listings_item_id", "listings", ["item_id"])


def downgrade() -> None:
    op.drop_index("ix_listings_item_id", table_name="listings")
