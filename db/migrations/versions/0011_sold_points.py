"""The report's sold points, kept: each sale of the history window at its landed unit price.

``sales.change_seq`` rises past every other sale's on each insert and update, so the report
finds the sales that changed since it kept them (``db/sold_points.py``) and computes those
alone. ``sold_points`` starts empty: the first report fills it. ``listings.first_seen`` is
indexed: the report's new listings of rare hardware are found by it, not by grouping every
active listing by SKU.

Revision ID: 0011_sold_points
Revises: 0010_priced_digest_index
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0011_sold_points"
down_revision: str | None = "0010_priced_digest_index"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # Altered in place (not in batch mode): see 0004.
    op.add_column("sales", sa.Column("change_seq", sa.Integer(), nullable=True))
    op.create_index(op.f("ix_sales_change_seq"), "sales", ["change_seq"])
    op.create_table(
        "sold_points",
        sa.Column("listing_id", sa.Integer(), nullable=False),
        sa.Column("sku", sa.String(length=64), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("price", sa.Text(), nullable=False),
        sa.Column("weight", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("listing_id"),
    )
    op.create_index(op.f("ix_sold_points_day"), "sold_points", ["day"])
    op.create_index(op.f("ix_listings_first_seen"), "listings", ["first_seen"])


def downgrade() -> None:
    op.drop_index(op.f("ix_listings_first_seen"), table_name="listings")
    op.drop_index(op.f("ix_sold_points_day"), table_name="sold_points")
    op.drop_table("sold_points")
    op.drop_index(op.f("ix_sales_change_seq"), table_name="sales")
    op.drop_column("sales", "change_seq")
