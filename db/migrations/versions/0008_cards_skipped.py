"""A run records how many cards of its pages could not be read.

A page keeps its readable cards and skips the unreadable ones (each named in a warning line);
``runs.cards_skipped`` counts them, so ``rigscout runs`` and the report show a layout change
before it costs a whole page.

Revision ID: 0008_cards_skipped
Revises: 0007_alert_kind
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0008_cards_skipped"
down_revision: str | None = "0007_alert_kind"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # Altered in place (not in batch mode): see 0004.
    op.add_column(
        "runs", sa.Column("cards_skipped", sa.Integer(), nullable=False, server_default="0")
    )


def downgrade() -> None:
    op.drop_column("runs", "cards_skipped")
