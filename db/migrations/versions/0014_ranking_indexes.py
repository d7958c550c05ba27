"""Two lookups of every ranking, by index:

- the active listings no SKU matched (``db.rank_rows.load_unmatched_count``): by the index on
  (sku, kind) it read each unmatched listing's row for its status (0.08 s at a million
  listings); a partial index of the unmatched listings' status counts them by the index alone;
- a seller's listings (``db.priced_rows.load_sellers_under``): a ranking counts again the
  new-account label of the sellers whose listings were saved since the last one, not of every
  seller (which read every priced listing's seller).

Revision ID: 0014_ranking_indexes
Revises: 0013_listing_saved_seq
Create Date: 2026-11-29
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
    op.create_index("ix_listings_seller", "listings", ["seller"])


def downgrade() -> None:
    op.drop_index("ix_listings_seller", table_name="listings")
    op.drop_index("ix_listings_unmatched", table_name="listings")
