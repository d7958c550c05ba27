"""Exact money: amounts become integer cents and percentages integer tenths, on both backends.

NUMERIC(14, 2) kept exact decimals on PostgreSQL but floats (REAL) on SQLite. Each amount is
converted by rounding its value times 100 to the nearest integer, which recovers the exact cents
of every float SQLite held (14 significant digits fit a double). SQLite recreates the money
tables in batch mode; ``listings`` is altered in place instead (add, fill, drop, rename the
column), because recreating it would drop the parent of ON DELETE CASCADE keys and with foreign
keys on SQLite would delete every observation, sale and alert with it.

Revision ID: 0002_exact_money
Revises: 0001_initial
Create Date: 2026-11-25
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0002_exact_money"
down_revision: str | None = "0001_initial"
branch_labels: str | None = None
depends_on: str | None = None

# table -> (column, nullable) of every money column
MONEY_COLUMNS: dict[str, tuple[tuple[str, bool], ...]] = {
    "observations": (("price", False), ("price_max", True), ("shipping", True)),
    "sales": (("price", False), ("shipping", True)),
    "alerts": (("landed_unit_price", False),),
}
NUMERIC_MONEY = sa.Numeric(precision=14, scale=2)
NUMERIC_PCT = sa.Numeric(precision=5, scale=1)


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for table, columns in MONEY_COLUMNS.items():
            _sqlite_scale(table, [c for c, _ in columns], "CAST(ROUND({c} * 100) AS INTEGER)")
            with op.batch_alter_table(table) as batch:
                for column, nullable in columns:
                    batch.alter_column(
                        column, type_=sa.Integer(), existing_type=NUMERIC_MONEY,
                        existing_nullable=nullable,
                    )  # fmt: skip
        _sqlite_swap_pct(sa.Integer(), "CAST(ROUND(seller_positive_pct * 10) AS INTEGER)")
        return
    for table, columns in MONEY_COLUMNS.items():
        for column, nullable in columns:
            op.alter_column(
                table, column, type_=sa.BigInteger(), existing_type=NUMERIC_MONEY,
                existing_nullable=nullable, postgresql_using=f"round({column} * 100)::bigint",
            )  # fmt: skip
    op.alter_column(
        "listings", "seller_positive_pct", type_=sa.Integer(), existing_type=NUMERIC_PCT,
        existing_nullable=True, postgresql_using="round(seller_positive_pct * 10)::integer",
    )  # fmt: skip


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for table, columns in MONEY_COLUMNS.items():
            with op.batch_alter_table(table) as batch:
                for column, nullable in columns:
                    batch.alter_column(
                        column, type_=NUMERIC_MONEY, existing_type=sa.Integer(),
                        existing_nullable=nullable,
                    )  # fmt: skip
            _sqlite_scale(table, [c for c, _ in columns], "{c} / 100.0")
        _sqlite_swap_pct(NUMERIC_PCT, "seller_positive_pct / 10.0")
        return
    for table, columns in MONEY_COLUMNS.items():
        for column, nullable in columns:
            op.alter_column(
                table, column, type_=NUMERIC_MONEY, existing_type=sa.BigInteger(),
                existing_nullable=nullable, postgresql_using=f"{column} / 100.0",
            )  # fmt: skip
    op.alter_column(
        "listings", "seller_positive_pct", type_=NUMERIC_PCT, existing_type=sa.Integer(),
        existing_nullable=True, postgresql_using="seller_positive_pct / 10.0",
    )  # fmt: skip


def _sqlite_scale(table: str, columns: list[str], expression: str) -> None:
    """Rewrite every value of ``columns`` with ``expression`` (``{c}`` is the column)."""
    sets = ", ".join(f"{c} = {expression.format(c=c)}" for c in columns)
    op.execute(f"UPDATE {table} SET {sets}")


def _sqlite_swap_pct(new_type: sa.types.TypeEngine[Any], expression: str) -> None:
    """Give listings.seller_positive_pct ``new_type`` without recreating the table."""
    op.add_column("listings", sa.Column("seller_positive_new", new_type, nullable=True))
    op.execute(f"UPDATE listings SET seller_positive_new = {expression}")
    op.drop_column("listings", "seller_positive_pct")
    op.alter_column("listings", "seller_positive_new", new_column_name="seller_positive_pct")
