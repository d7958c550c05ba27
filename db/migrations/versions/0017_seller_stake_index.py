"""What the new-account pattern reads of the priced rows, read off one index:

``db.priced_rows.load_sellers_under`` reads each priced row's seller, the seller's feedback,
the lot size, the unit price and the account label of the sellers under ``[scam]
vouched_feedback``. By the index on the seller alone it read every such row from the table:
at a million listings (183,000 rows) 0.39 s for all of them, and 0.37 s for the 3,000 sellers
a run's changes touch. An index holding those columns, led by the seller, is read alone: 0.20 s
and 0.07 s. It holds the outcome too (the query reads the priced rows alone). It takes the
place of ``ix_priced_seller``.

Revision ID: 0017_seller_stake_index
Revises: 0016_price_order_indexes
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision: str = "0017_seller_stake_index"
down_revision: str | None = "0016_price_order_indexes"
branch_labels: str | None = None
depends_on: str | None = None

COLUMNS = ["seller", "seller_feedback", "quantity", "unit_price", "account", "outcome"]


def upgrade() -> None:
    op.create_index("ix_priced_seller_stake", "priced", COLUMNS)
    op.drop_index("ix_priced_seller", table_name="priced")


def downgrade() -> None:
    op.create_index("ix_priced_seller", "priced", ["seller"])
    op.drop_index("ix_priced_seller_stake", table_name="priced")
