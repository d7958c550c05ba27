"""How a command is interrupted (Ctrl-C, SIGTERM, SIGHUP), remembered even where Python drops
the ``KeyboardInterrupt``. Standard library only: ``rigscout.cli.entry`` imports it first."""

from __future__ import annotations

import sys
import threading

INTERRUPTED = threading.Event()  # set by every interrupt, even one Python swallowed


def as_interrupt(signum: int, frame: object) -> None:
    """The signal handler: a ``KeyboardInterrupt``, and the flag. The exception can land in a
    finaliser (``__del__``), where Python prints and drops it; the flag is how later code (the
    daemon's start) still knows it came."""
    INTERRUPTED.set()
    raise KeyboardInterrupt


def quiet_about_interrupts(unraisable: sys.UnraisableHookArgs) -> None:
    """``sys.unraisablehook``: an interrupt that landed in a finaliser is not printed as a
    traceback (``INTERRUPTED`` carries it on); anything else is reported as Python does."""
    if unraisable.exc_type is not None and issubclass(unraisable.exc_type, KeyboardInterrupt):
        return
    sys.__unraisablehook__(unraisable)
