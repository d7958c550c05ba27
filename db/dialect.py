"""INSERT with ON CONFLICT for the store's two databases (both dialects spell it the same way)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy.dialects import postgresql, sqlite

from core.errors import StoreError

if TYPE_CHECKING:
    from sqlalchemy import Table
    from sqlalchemy.orm import Session


def upsert_insert(session: Session, table: Table) -> Any:
    """``INSERT`` into ``table`` that takes ``.on_conflict_do_update``/``_do_nothing``."""
    name = session.get_bind().dialect.name
    if name == "postgresql":
        return postgresql.insert(table)
    if name == "sqlite":
        return sqlite.insert(table)
    raise StoreError(f"Unsupported database {name!r}: rigscout stores to SQLite or PostgreSQL.")
