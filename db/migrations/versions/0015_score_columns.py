"""The priced rows' score inputs kept as columns (``db/score_columns.py``).

Every ranking read the score inputs of every priced row (450,000 at a million listings: 0.5 s
of row-by-row fetching). A base holding them all as arrays, and after it a row per save with
what the save changed, are read in a few blobs instead; each save of the ``priced`` table
appends its change in the same transaction. (The packed rows are counted by the index on the
outcome: a partial index of them made SQLite read the priced table through it, row by row,
wherever a query named them.)

Revision ID: 0015_score_columns
Revises: 0014_ranking_indexes
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0015_score_columns"
down_revision: str | None = "0014_ranking_indexes"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "score_columns",
        sa.Column("seq", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("base", sa.Boolean(), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("ids", sa.LargeBinary(), nullable=False),
        sa.Column("removed", sa.LargeBinary(), nullable=False),
        sa.Column("skus", sa.Text(), nullable=False),
        sa.Column("codes", sa.LargeBinary(), nullable=False),
        sa.Column("inputs", sa.LargeBinary(), nullable=False),
    )
    if op.get_bind().dialect.name == "postgresql":
        # stored as they are: compressing 43 MB of floats took longer than it saved
        for column in ("ids", "removed", "codes", "inputs"):
            op.execute(f"ALTER TABLE score_columns ALTER COLUMN {column} SET STORAGE EXTERNAL")


def downgrade() -> None:
    op.drop_table("score_columns")
