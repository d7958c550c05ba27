"""The ``rigscout`` command's first lines: a Ctrl-C while Python is still importing the CLI
ends it the way a later one does (one line, exit 130), not with an import traceback.

Kept apart from ``rigscout.cli.main`` on purpose, and free of imports but the interpreter's
own modules, so the handler is in place before anything slow is imported.
"""

import os
import signal
import sys

EXIT_INTERRUPTED = 130  # as rigscout.cli.commands.app says for a later Ctrl-C
MESSAGE = "Error: interrupted (nothing was started)\n"


def _early_interrupt(signum: int, frame: object) -> None:
    sys.stderr.write(MESSAGE)
    sys.stderr.flush()
    os._exit(EXIT_INTERRUPTED)  # mid-import: no clean-up could run safely anyway


signal.signal(signal.SIGINT, _early_interrupt)


EXIT_CONFIG = 2  # as rigscout.cli.commands.app says for a configuration error


def main() -> None:
    """Check that rigscout's packages are its own files, import the CLI under the quiet
    handler, then hand Ctrl-C back to it and run it."""
    from rigscout.cli.own_files import foreign_files

    problem = foreign_files()
    if problem is not None:
        sys.stderr.write(f"Error: {problem}\n")
        sys.exit(EXIT_CONFIG)
    from rigscout.cli.interrupts import (
        catch_interrupts,
        end_abandoned_work,
        ignore_interrupts,
        quiet_about_interrupts,
    )
    from rigscout.cli.main import cli

    # Ctrl-C, a cron job's timeout (SIGTERM) or a closed terminal (SIGHUP) stops a command:
    # the run is marked "interrupted", nothing half-saved, exit 130 (the scheduler's daemon
    # sets its own handlers: it finishes the run in progress).
    catch_interrupts()
    sys.unraisablehook = quiet_about_interrupts
    try:
        try:
            cli()
        except KeyboardInterrupt:  # a second Ctrl-C landing while the first was being reported
            ignore_interrupts()
            sys.stderr.write("Error: interrupted\n")
            sys.exit(EXIT_INTERRUPTED)
    except SystemExit as done:  # the command has ended: nothing may keep the process alive
        ignore_interrupts()
        end_abandoned_work(done.code if isinstance(done.code, int) else EXIT_CONFIG)
        raise
