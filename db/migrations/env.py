"""Alembic environment: runs on the connection ``db.migrate`` hands over, never from a .ini file.

Batch mode is on for SQLite so later revisions can alter tables there too. To write a new
revision after changing db/models.py, autogenerate it against a database at head:
``command.revision(alembic_config(conn), message="...", autogenerate=True)`` (db.migrate).
"""

from __future__ import annotations

from alembic import context

from core.errors import StoreError
from db.models import Base


def run_migrations() -> None:
    connection = context.config.attributes.get("connection")
    if connection is None:
        raise StoreError("Migrations run only through db.migrate with an open connection.")
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


run_migrations()
