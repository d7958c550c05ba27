"""The ``ignores`` table: items, sellers and title words the user asked never to see again.

Revision ID: 0003_ignores
Revises: 0002_exact_money
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0003_ignores"
down_revision: str | None = "0002_exact_money"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "ignores",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("value", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("kind", "value", name="uq_ignores_kind_value"),
    )


def downgrade() -> None:
    op.drop_table("ignores")
