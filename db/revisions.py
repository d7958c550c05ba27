"""The schema revision a database is at, and the newest one shipped, without importing Alembic.

Read-only commands use this to skip Alembic (a fifth of their start-up) when the database is
already current; anything else goes through ``db.migrate``.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

if TYPE_CHECKING:
    from sqlalchemy import Engine

VERSIONS = Path(__file__).resolve().with_name("migrations") / "versions"
_REVISION = re.compile(r"^revision(?::[^=]*)?=\s*['\"]([^'\"]+)['\"]", re.M)
_DOWN = re.compile(r"^down_revision(?::[^=]*)?=\s*(.+)$", re.M)


@cache
def shipped_head() -> str | None:
    """The single head revision of the packaged migrations, or None when it is not plain."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in VERSIONS.glob("*.py"):
        source = path.read_text(encoding="utf-8")
        revision = _REVISION.search(source)
        if revision is None:
            continue
        revisions.add(revision.group(1))
        down = _DOWN.search(source)
        parents.update(re.findall(r"['\"]([^'\"]+)['\"]", down.group(1)) if down else ())
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


def stored_revision(engine: Engine) -> str | None:
    """The revision recorded in the database, or None when rigscout never initialised it."""
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT version_num FROM alembic_version")).all()
    except DBAPIError:
        return None
    return rows[0][0] if len(rows) == 1 else None
