"""Two reads of every report and ranking served in order by an index, not sorted:

- the cheapest for-parts and accessory listings each ranking shows, the ``count`` cheapest
  priced rows with the "part" outcome (``db.priced_rows.load_part_prices``): without an index
  on their price both its queries sorted or scanned every such row (67,000 at a million
  listings: 0.17 s a ranking, 0.27 s a report); by one on their unit price as a float they
  read the first few hundred entries (4 ms). Partial, of those rows alone, stated on SQLite
  as "+outcome", which no other index serves (without statistics SQLite takes the outcome's
  index for any "outcome ="); led by the outcome, it was the index SQLite took to read every
  priced listing, in price order, row by row (the asking prices of a ranking after a run:
  0.7 s to 2.4 s);
- the report's kept sold points, read in (SKU, day) order (``db.sold_points
  .load_kept_points``): SQLite sorted all of them (218,000 at a million listings) on every
  report; a covering index in that order is read straight through (0.50 s to 0.27 s).

Revision ID: 0016_price_order_indexes
Revises: 0015_score_columns
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0016_price_order_indexes"
down_revision: str | None = "0015_score_columns"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_index(
        "ix_priced_part_price",
        "priced",
        [sa.text("CAST(unit_price AS FLOAT)")],
        sqlite_where=sa.text("+outcome = 'part'"),
        postgresql_where=sa.text("outcome = 'part'"),
    )
    op.create_index(
        "ix_sold_points_sku_day", "sold_points", ["sku", "day", "listing_id", "price", "weight"]
    )


def downgrade() -> None:
    op.drop_index("ix_sold_points_sku_day", table_name="sold_points")
    op.drop_index("ix_priced_part_price", table_name="priced")
