"""Saved-plan alerts say so in a column of their own, not in a prefix of their rule's name.

``alerts.kind`` is "deal" (a ranked listing a rule matched) or "plan" (a saved plan's best rig,
``alerts/plan_outbox.py``). Rows written before it had "plan:NAME" in ``rule``; they become
kind "plan" with rule NAME.

Revision ID: 0007_alert_kind
Revises: 0006_asking_days
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0007_alert_kind"
down_revision: str | None = "0006_asking_days"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # Altered in place (not in batch mode): see 0004.
    op.add_column(
        "alerts", sa.Column("kind", sa.String(length=8), nullable=False, server_default="deal")
    )
    op.execute("UPDATE alerts SET kind = 'plan', rule = substr(rule, 6) WHERE rule LIKE 'plan:%'")


def downgrade() -> None:
    op.execute("UPDATE alerts SET rule = substr('plan:' || rule, 1, 100) WHERE kind = 'plan'")
    op.drop_column("alerts", "kind")
