"""INSERT with ON CONFLICT for the store's two databases (both dialects spell it the same way)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.errors import StoreError

if TYPE_CHECKING:
    from sqlalchemy import Table
    from sqlalchemy.orm import Session


def upsert_insert(session: Session, table: Table) -> Any:
    """``INSERT`` into ``table`` that takes ``.on_conflict_do_update``/``_do_nothing``."""
    name = session.get_bind().dialect.name
    # Each dialect imported by the store that uses it: PostgreSQL's brings every driver module
    # it knows (asyncpg's brings asyncio), 30-45 ms that a SQLite store's commands need not pay.
    if name == "postgresql":
        from sqlalchemy.dialects import postgresql

        return postgresql.insert(table)
    if name == "sqlite":
        from sqlalchemy.dialects import sqlite

        return sqlite.insert(table)
    raise StoreError(f"Unsupported database {name!r}: rigscout stores to SQLite or PostgreSQL.")
