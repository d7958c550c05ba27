"""Two runs at once: the second one waits or stops with a clear message."""

from __future__ import annotations

import threading
import time

import pytest

from core.errors import LockedError
from db.lock import run_lock


def test_a_second_run_is_refused_while_the_first_holds_the_lock(engine):
    with (
        run_lock(engine),
        pytest.raises(LockedError, match="another rigscout run"),
        run_lock(engine),
    ):
        pass
    with run_lock(engine):  # released: a later run goes ahead
        pass


def test_a_waiting_run_starts_when_the_first_finishes(engine):
    order: list[str] = []

    def second() -> None:
        with run_lock(engine, wait=True):
            order.append("second")

    with run_lock(engine):
        thread = threading.Thread(target=second)
        thread.start()
        time.sleep(0.3)
        order.append("first done")
    thread.join(timeout=10)
    assert order == ["first done", "second"]
