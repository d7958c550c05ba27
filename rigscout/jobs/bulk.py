"""Building many objects at once (ranking 100,000 listings, building the report), and exiting.

Such a step creates hundreds of thousands of rows, Decimals and dataclasses, none of them in a
reference cycle, and CPython's cyclic collector runs again and again over the growing heap while
they are made: a quarter of ``rigscout rank``'s time on 100,000 listings (``bench rank``). The
step is run with the collector paused; plain reference counting still frees everything, and the
collector resumes (and catches up) when the step ends.
"""

from __future__ import annotations

import atexit
import gc
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector for the block.

    Blocks may nest or run in two threads at once (the daemon's jobs): the collector runs
    again once the first of them to start has ended. One the caller had turned off stays off.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def skip_collection_at_exit() -> None:
    """At exit, leave what is still alive to the operating system instead of collecting it.

    Python's shutdown runs the cyclic collector over every live object several times; after a
    command that loaded SQLAlchemy, pydantic and a ranking that is a fifth of a second spent
    on memory about to be returned anyway. Freezing the heap (``gc.freeze``) in an exit hook
    takes it out of those passes. Files and logs are flushed by their own code, not by the
    collector, so nothing is lost. Calling it again (each command run in one process, as the
    tests do) keeps a single hook.
    """
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
