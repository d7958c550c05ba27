"""A ranking finds the priced rows whose market moved by (SKU, auction, market digest)
(``db.priced_rows.load_ids_priced_against``, once per stale digest): without an index each
lookup scanned every priced row (184 lookups 3.2 s on 100,000 listings; 0.23 s with it).

Revision ID: 0010_priced_digest_index
Revises: 0009_item_index
Create Date: 2026-11-29
"""

from __future__ import annotations

from alembic import op

revision: str = "0010_priced_digest_index"
down_revision: str | None = "0009_item_index"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_index("ix_priced_sku_digest", "priced", ["sku", "auction", "digest"])


def downgrade() -> None:
    op.drop_index("ix_priced_sku_digest", table_name="priced")
