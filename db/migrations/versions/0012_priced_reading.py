"""A priced row keeps what its listing's title says (``ranking.rows.TitleReading``):
after a sold page moves every market, the listings priced again are not read again (on a
million listings, a quarter of that ranking's time, profiled). Existing rows have none:
they are read once more the next time they are priced.

Revision ID: 0012_priced_reading
Revises: 0011_sold_points
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision: str = "0012_priced_reading"
down_revision: str | None = "0011_sold_points"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    # Altered in place (not in batch mode): see 0004.
    op.add_column("priced", sa.Column("reading", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("priced", "reading")
