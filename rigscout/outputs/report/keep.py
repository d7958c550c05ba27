"""Keeping what a report computed for the next one (its asking days, its sold points)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from db.engine import without_waiting

if TYPE_CHECKING:
    from collections.abc import Callable

    from sqlalchemy import Engine

WAIT_MS = 3000  # a little, for a write of the report's own to finish
log = logging.getLogger(__name__)


def keep_for_next(engine: Engine, save: Callable[[Session], None], what: str) -> None:
    """Run ``save`` in a transaction of its own, waiting a little for the store, never the
    busy timeout a run writing it would cost: a store that refuses the write (read-only, or a
    run writing it) only costs the next report the full computation of ``what``."""
    try:
        with (
            Session(engine) as session,
            session.begin(),
            without_waiting(session, lock_wait_ms=WAIT_MS),
        ):
            save(session)
    except SQLAlchemyError as exc:
        log.debug("the %s were not kept (%s)", what, type(exc).__name__)
