"""Before anything else starts: are rigscout's packages rigscout's own files?

rigscout installs six top-level packages (``alerts core db ranking rigscout scraper``: the
repository's folders, as the project card asks). Another distribution that ships a ``core/``
or ``db/`` of its own into the same environment overwrites our files, or shadows them from
another path; every command would then die with an ImportError deep inside. This check names
the other package and the fix in one line instead.

Two ways a package stops being ours: it is found in another folder than ``rigscout/``'s (an
earlier path entry, an editable install of something else), or a file the installed wheel
recorded no longer has the hash it was installed with (overwritten, or deleted by another
package's uninstall). Standard library only: it runs before any of our modules is imported.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
from importlib import metadata
from pathlib import Path

OURS = ("alerts", "core", "db", "ranking", "rigscout", "scraper")
FIX = (
    "install rigscout in an environment of its own: `pipx install rigscout`, or a virtual "
    "environment (python3 -m venv .venv && .venv/bin/pip install rigscout)"
)


def foreign_files() -> str | None:
    """One line naming the package of ours that is not our files, whose it is, and the fix;
    None when every package is rigscout's."""
    home = Path(__file__).resolve().parents[2]  # the folder that holds rigscout/
    for name in OURS:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            return f"rigscout cannot start: its package '{name}' is not installed; {FIX}"
        folder = Path(next(iter(spec.submodule_search_locations))).resolve()
        if folder.parent != home:
            owner = _owner(folder / "__init__.py")
            return _line(name, f"{folder} (from {owner})" if owner else str(folder))
    return _changed_file(home)


def _changed_file(home: Path) -> str | None:
    """The first file the installed wheel recorded that no longer has its recorded hash."""
    try:
        files = metadata.distribution("rigscout").files or ()
    except metadata.PackageNotFoundError:  # run from a checkout, not installed
        return None
    for record in files:
        if record.hash is None or record.parts[0] not in OURS or record.suffix != ".py":
            continue  # an editable install records no source file, a wheel records them all
        path = home / Path(*record.parts)
        try:
            digest = hashlib.new(record.hash.mode, path.read_bytes()).digest()
        except FileNotFoundError:
            owner = _owner(home / record.parts[0])
            by = f"; {owner} has files there" if owner else " (another package's uninstall?)"
            return _line(record.parts[0], f"{path} is missing{by}")
        if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != record.hash.value:
            owner = _owner(path)
            return _line(
                record.parts[0], f"{path} was overwritten" + (f" by {owner}" if owner else "")
            )
    return None


def _owner(path: Path) -> str | None:
    """The installed distribution, other than rigscout, that lists ``path`` (or, for a folder,
    a file in it) among its files."""
    wanted = path.resolve()
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if not name or name.lower() == "rigscout":
            continue
        for record in dist.files or ():
            found = Path(str(dist.locate_file(record))).resolve()
            if found == wanted or wanted in found.parents:
                return f"the package '{name}'"
    return None


def _line(package: str, what: str) -> str:
    return (
        f"rigscout cannot start: its package '{package}' is not its own: {what}. Another "
        f"package ships a top-level '{package}' too; {FIX}"
    )
