"""Listings keep what a server comes with (``config``) and which priced part an accessory is
(``part``), so a server is compared with machines like it and a rig is priced complete.

Existing server, board and accessory listings are read again from their titles, so a store
upgraded in place loses nothing (its sales keep their configuration).

Revision ID: 0004_server_config
Revises: 0003_ignores
Create Date: 2026-11-28
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0004_server_config"
down_revision: str | None = "0003_ignores"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # Altered in place, never in batch mode: recreating ``listings`` on SQLite would drop the
    # parent of ON DELETE CASCADE keys and delete every observation and sale with it.
    op.add_column("listings", sa.Column("config", sa.JSON(), nullable=True))
    op.add_column("listings", sa.Column("part", sa.String(length=40), nullable=True))
    op.create_index("ix_listings_part", "listings", ["part"])
    _backfill()


def downgrade() -> None:
    op.drop_index("ix_listings_part", table_name="listings")
    op.drop_column("listings", "part")
    op.drop_column("listings", "config")


def _backfill() -> None:
    from ranking.titles import default_normalizer

    normalizer = default_normalizer()
    listings = sa.table(
        "listings",
        sa.column("id", sa.Integer),
        sa.column("title", sa.Text),
        sa.column("category", sa.String),
        sa.column("kind", sa.String),
        sa.column("quantity", sa.Integer),
        sa.column("config", sa.JSON),
        sa.column("part", sa.String),
    )
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(listings.c.id, listings.c.title).where(
            sa.or_(listings.c.category.in_(("server", "board")), listings.c.kind == "accessory")
        )
    ).all()
    updates = []
    for listing_id, title in rows:
        norm = normalizer.normalize(title)
        if norm.config is not None:
            updates.append({"i": listing_id, "c": norm.config.as_json(), "p": None, "q": None})
        elif norm.part is not None:
            updates.append({"i": listing_id, "c": None, "p": norm.part, "q": norm.quantity})
    if updates:
        stmt = (
            sa.update(listings)
            .where(listings.c.id == sa.bindparam("i"))
            .values(
                config=sa.bindparam("c"),
                part=sa.bindparam("p"),
                quantity=sa.func.coalesce(sa.bindparam("q", type_=sa.Integer), listings.c.quantity),
            )
        )
        bind.execute(stmt, updates)
