"""Two reads of every ranking made narrow:

- the active listings no SKU matched (``db.rank_rows.load_unmatched_count``): by the index on
  (sku, kind) it read each unmatched listing's row for its status (0.08 s at a million
  listings); a partial index of the unmatched listings' status counts them by the index alone;
- what the new-account pattern reads of every priced listing (``db.priced_rows
  .load_sellers_under``): its seller, the seller's feedback and the lot size, kept on the
  priced row, which is written again whenever the listing changes; read through the listings
  (a join by id for each priced row) it cost 0.56 s at a million listings with sellers.
  Existing priced rows have none: the first ranking after the upgrade prices every listing
  again anyway (the code it is priced by changed). Indexed by seller: when auctions end
  between two rankings, only their sellers are counted again.

Revision ID: 0014_ranking_indexes
Revises: 0013_listing_saved_seq
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0014_ranking_indexes"
down_revision: str | None = "0013_listing_saved_seq"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    unmatched = sa.text("sku IS NULL")
    op.create_index(
        "ix_listings_unmatched",
        "listings",
        ["status"],
        sqlite_where=unmatched,
        postgresql_where=unmatched,
    )
    # Altered in place (not in batch mode): see 0004.
    op.add_column("priced", sa.Column("seller", sa.String(200), nullable=True))
    op.add_column("priced", sa.Column("seller_feedback", sa.Integer(), nullable=True))
    op.add_column("priced", sa.Column("quantity", sa.Integer(), nullable=True))
    op.create_index("ix_priced_seller", "priced", ["seller"])


def downgrade() -> None:
    op.drop_index("ix_priced_seller", table_name="priced")
    op.drop_column("priced", "quantity")
    op.drop_column("priced", "seller_feedback")
    op.drop_column("priced", "seller")
    op.drop_index("ix_listings_unmatched", table_name="listings")
