"""Files written all or nothing: a temporary file beside the target, then a rename."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(target: Path, text: str, *, mode: int = 0o644) -> None:
    """``text`` in ``target``, or (an ``OSError``: a full disk, a read-only folder) the old file
    as it was and no temporary file left behind. ``mode``: the new file's permissions."""
    temporary: Path | None = None
    try:
        fd, name = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.stem}-", suffix=target.suffix
        )
        temporary = Path(name)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        temporary.chmod(mode)  # mkstemp makes it private
        temporary.replace(target)
    finally:
        if temporary is not None:
            temporary.unlink(missing_ok=True)  # moved into place already, or a failed write's
