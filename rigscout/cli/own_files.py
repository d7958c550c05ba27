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

import importlib.util
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
    """The first file the installed wheel recorded (its ``RECORD``, read directly: importing
    importlib.metadata would cost every start-up) that no longer has its recorded hash. An
    editable install or a checkout has no such record beside the packages."""
    import csv

    for record in home.glob("rigscout-*.dist-info/RECORD"):
        with record.open(encoding="utf-8", newline="") as lines:
            for name, hashed, *_ in csv.reader(lines):
                top = name.partition("/")[0]
                if top not in OURS or not name.endswith(".py") or "=" not in hashed:
                    continue
                problem = _check(home / name, hashed, top)
                if problem is not None:
                    return problem
    return None


def _check(path: Path, hashed: str, package: str) -> str | None:
    """None when ``path`` has the ``RECORD`` hash ("sha256=…"), else the line saying why."""
    import base64
    import hashlib

    mode, _, value = hashed.partition("=")
    try:
        digest = hashlib.new(mode, path.read_bytes()).digest()
    except FileNotFoundError:
        owner = _owner(path.parent)
        by = f"; {owner} has files there" if owner else " (another package's uninstall?)"
        return _line(package, f"{path} is missing{by}")
    if base64.urlsafe_b64encode(digest).rstrip(b"=").decode() != value:
        owner = _owner(path)
        return _line(package, f"{path} was overwritten" + (f" by {owner}" if owner else ""))
    return None


def _owner(path: Path) -> str | None:
    """The installed distribution, other than rigscout, that lists ``path`` (or, for a folder,
    a file in it) among its files."""
    from importlib import metadata

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
