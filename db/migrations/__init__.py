"""Alembic migrations of the rigscout schema, run programmatically by ``db.migrate``."""
