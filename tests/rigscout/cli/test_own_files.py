"""rigscout installs six top-level packages; another distribution shipping a ``core/`` or a
``db/`` into the same environment is named in one line with the fix, never an ImportError.

The wheel is built from this checkout and installed, without dependencies, into a fresh venv:
the check runs before anything but the standard library is imported, so it needs none."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from typing import TYPE_CHECKING

import pytest

from bench import ROOT

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.slow
BUILD_IGNORED = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".mypy_cache", ".ruff_cache"
)
CHECK = "from rigscout.cli.own_files import foreign_files; print(foreign_files())"


def foreign_wheel(folder: Path) -> Path:
    """A wheel of another project that ships its own ``core/`` and ``db/`` packages."""
    wheel = folder / "othertool-1.0-py3-none-any.whl"
    files = {
        "core/__init__.py": "",
        "core/models.py": "THEIRS = True\n",
        "db/__init__.py": "",
        "othertool-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: othertool\nVersion: 1.0\n",
        "othertool-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = "".join(f"{name},,\n" for name in files) + "othertool-1.0.dist-info/RECORD,,\n"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
        archive.writestr("othertool-1.0.dist-info/RECORD", record)
    return wheel


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with rigscout's wheel, built from a copy of this checkout."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=BUILD_IGNORED)
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, "wheel", "--no-deps", "-w", str(work), str(source)], check=True)
    (ours,) = work.glob("rigscout-*.whl")
    env = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
    install(env, ours)
    return env


def install(env: Path, wheel: Path) -> None:
    """``pip install`` by the venv's own pip (never this environment's: it would uninstall
    the rigscout the tests run)."""
    subprocess.run(
        [env / "bin" / "python", "-m", "pip", "-q", "--disable-pip-version-check", "install",
         "--no-deps", "--no-index", str(wheel)],
        check=True,
    )  # fmt: skip


def run_in(env: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [env / "bin" / "python", *args], capture_output=True, text=True, timeout=60, cwd=env
    )


def test_alone_in_its_environment_every_package_is_its_own(venv: Path) -> None:
    assert run_in(venv, "-c", CHECK).stdout.strip() == "None"


def test_a_package_that_ships_core_and_db_too_is_named_with_the_fix(venv: Path) -> None:
    install(venv, foreign_wheel(venv))

    done = run_in(venv, "-m", "rigscout", "--version")

    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("Error: rigscout cannot start: its package 'core' is not its own")
    assert "othertool" in line and "pipx install rigscout" in line
    assert "Traceback" not in done.stderr
