"""``rigscout --quiet``: silence for cron, which mails whatever a job prints.

Everything the command would print (its output, warnings and log lines) is held back; when it
ends well, nothing is printed at all; when it ends with a non-zero exit code, all of it is
printed to stderr at the end, in order, so the mail says what went wrong and what led to it.
"""

from __future__ import annotations

import io
import sys
from dataclasses import dataclass
from typing import TextIO


@dataclass
class _Held:
    stdout: TextIO
    stderr: TextIO
    buffer: io.StringIO


_held: _Held | None = None


def hold_output() -> None:
    """From now on, stdout and stderr go to a buffer (call before logging is set up)."""
    global _held
    if _held is not None:
        return
    buffer = io.StringIO()
    _held = _Held(sys.stdout, sys.stderr, buffer)
    sys.stdout = sys.stderr = buffer


def release_output(failed: bool) -> None:
    """Put stdout and stderr back; when the command failed, print what was held to stderr."""
    global _held
    if _held is None:
        return
    held, _held = _held, None
    sys.stdout, sys.stderr = held.stdout, held.stderr
    if failed and held.buffer.getvalue():
        held.stderr.write(held.buffer.getvalue())
        held.stderr.flush()
