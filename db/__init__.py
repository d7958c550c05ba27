"""Storage: SQLAlchemy 2.x models, Alembic migrations and the save_/load_ functions."""
