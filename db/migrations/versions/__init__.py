"""One module per schema revision; the first one creates the schema of ``db.models``."""
