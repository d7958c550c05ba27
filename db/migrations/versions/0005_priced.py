"""Incremental ranking: each listing's current state, and the ranker's priced rows.

``listings.latest_observation_id`` points at the newest observation (kept by every save),
``listings.changed_at`` says when a field the ranking reads last changed, and ``priced`` keeps
each active listing as the ranker priced it, so ``rank`` prices again only what changed.
Existing listings get their newest observation here; ``priced`` starts empty (the first
``rank`` fills it).

Revision ID: 0005_priced
Revises: 0004_server_config
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0005_priced"
down_revision: str | None = "0004_server_config"
branch_labels: str | None = None
depends_on: str | None = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    # Altered in place (not in batch mode): see 0004.
    op.add_column("listings", sa.Column("latest_observation_id", _ID, nullable=True))
    op.add_column("listings", sa.Column("changed_at", sa.DateTime(timezone=True), nullable=True))
    op.execute(
        "UPDATE listings SET changed_at = last_seen, latest_observation_id = ("
        " SELECT o.id FROM observations o WHERE o.listing_id = listings.id"
        " ORDER BY o.observed_at DESC, o.id DESC LIMIT 1)"
    )
    op.create_table(
        "priced",
        sa.Column("listing_id", sa.Integer(), nullable=False),
        sa.Column("observation_id", _ID, nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("basis", sa.String(length=64), nullable=False),
        sa.Column("digest", sa.String(length=64), nullable=False),
        sa.Column("valid_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("account", sa.Text(), nullable=True),
        sa.Column("outcome", sa.String(length=24), nullable=False),
        sa.Column("sku", sa.String(length=64), nullable=True),
        sa.Column("unit_price", sa.Text(), nullable=True),
        sa.Column("asking", sa.Boolean(), nullable=False),
        sa.Column("landed", sa.Text(), nullable=True),
        sa.Column("excluded", sa.Boolean(), nullable=False),
        sa.Column("auction", sa.Boolean(), nullable=False),
        sa.Column("inputs", sa.LargeBinary(), nullable=True),
        sa.ForeignKeyConstraint(["listing_id"], ["listings.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("listing_id"),
    )
    # The store's fingerprint reads the newest sighting and change (max, from an index); a
    # ranking reads the expired prices and counts the outcomes.
    op.create_index("ix_listings_last_seen", "listings", ["last_seen"])
    op.create_index("ix_listings_changed_at", "listings", ["changed_at"])
    op.create_index("ix_priced_valid_until", "priced", ["valid_until"])
    op.create_index("ix_priced_outcome", "priced", ["outcome"])


def downgrade() -> None:
    op.drop_index("ix_listings_changed_at", table_name="listings")
    op.drop_index("ix_listings_last_seen", table_name="listings")
    op.drop_table("priced")
    op.drop_column("listings", "changed_at")
    op.drop_column("listings", "latest_observation_id")
