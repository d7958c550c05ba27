"""Each listing row carries ``saved_seq``, a number past every other listing's stamped by
every statement that writes it: the ranking's kept rows find the listings saved since their
last refresh by its index, where they scanned every listing (on a million listings, a fifth
of the first ranking after a run). Existing rows have none: the first ranking after the
upgrade checks every row, as before.

Revision ID: 0013_listing_saved_seq
Revises: 0012_priced_reading
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0013_listing_saved_seq"
down_revision: str | None = "0012_priced_reading"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # Altered in place (not in batch mode): see 0004.
    big = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
    op.add_column("listings", sa.Column("saved_seq", big, nullable=True))
    op.create_index("ix_listings_saved_seq", "listings", ["saved_seq"])


def downgrade() -> None:
    op.drop_index("ix_listings_saved_seq", table_name="listings")
    op.drop_column("listings", "saved_seq")
