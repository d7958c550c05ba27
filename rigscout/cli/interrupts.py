"""How the ``rigscout`` process ends: an interrupt (Ctrl-C, SIGTERM, SIGHUP) remembered even
where Python drops the ``KeyboardInterrupt``, and no abandoned worker thread left to keep it
alive. Standard library only: ``rigscout.cli.entry`` imports it first."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading

INTERRUPTED = threading.Event()  # set by every interrupt, even one Python swallowed
STOP_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
_handling = threading.Event()  # set once ``catch_interrupts`` owns this process's signals


def catch_interrupts() -> None:
    """Ctrl-C, a cron job's timeout (SIGTERM) or a closed terminal (SIGHUP) stops a command
    (``as_interrupt``); called by the ``rigscout`` process itself, never inside a test runner."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, as_interrupt)
    _handling.set()


def ignore_interrupts() -> None:
    """The command is ending: a further stop signal has nothing left to stop, and raised
    while the ending is printed or during Python's shutdown it would kill the process (exit
    -2, the command's own code lost). Only in the ``rigscout`` process (``catch_interrupts``)."""
    if _handling.is_set():
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_IGN)


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


def end_abandoned_work(code: int) -> None:
    """End the process now when it could otherwise end with another code than ``code``, or
    not at all. Nothing of ours is left to do: the command has returned, its store is closed
    and its output is flushed here.

    - An interrupt came: CPython may then end the process by sending itself SIGINT (exit -2,
      ``code`` lost) although the ``KeyboardInterrupt`` was handled and stop signals are
      ignored (seen with strace after a Ctrl-C that landed while the CLI was importing).
    - A library's worker thread is still blocked: apprise gives up waiting on a service after
      its timeout but leaves the thread that talks to it running, and a server that never
      finishes its answer would then keep a cron job's process alive for ever (issue #34)."""
    main = threading.main_thread()
    stuck = [t for t in threading.enumerate() if t is not main and t.is_alive() and not t.daemon]
    if not stuck and not INTERRUPTED.is_set():
        return
    if stuck:
        logging.getLogger("rigscout").debug(
            "ending %d abandoned worker thread(s): %s",
            len(stuck),
            ", ".join(t.name for t in stuck),
        )
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    logging.shutdown()
    os._exit(code)
