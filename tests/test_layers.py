"""The house is built in floors: a package imports only the floors below it, never one above,
so no two packages import each other and the pipeline reads bottom to top."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Lowest first. A package may import its own floor's modules and any floor below; scraper and
# ranking share a floor but do not import each other (both turn raw input into records).
FLOORS: tuple[tuple[str, ...], ...] = (
    ("core",),
    ("scraper", "ranking"),
    ("db",),
    ("alerts",),
    ("rigscout",),
    ("bench",),
)
FLOOR = {package: i for i, floor in enumerate(FLOORS) for package in floor}


def imported_packages(path: Path) -> set[str]:
    """The top-level packages of ours that one module imports, at run time or for typing."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found |= {name.split(".")[0] for name in names} & FLOOR.keys()
    return found


def upward_or_sideways(package: str) -> list[str]:
    own = FLOOR[package]
    return sorted(
        f"{path.relative_to(ROOT)} imports {other}"
        for path in (ROOT / package).rglob("*.py")
        for other in imported_packages(path)
        if other != package and FLOOR[other] >= own
    )


@pytest.mark.parametrize("package", list(FLOOR))
def test_a_package_imports_only_the_floors_below_it(package: str) -> None:
    assert upward_or_sideways(package) == []


def test_the_check_sees_an_import_that_points_up(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("from rigscout.config.load import Settings\nimport core.models\n")
    assert imported_packages(module) == {"rigscout", "core"}


SQL_BUILDERS = {"select", "insert", "update", "delete", "text", "func", "union_all", "literal"}


def sql_built_outside_db() -> list[str]:
    """Modules outside db/ that import SQLAlchemy's statement builders."""
    found = []
    for package in FLOOR.keys() - {"db", "bench"}:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "sqlalchemy"
                ):
                    names = {alias.name for alias in node.names} & SQL_BUILDERS
                    found += [f"{path.relative_to(ROOT)} imports {name}" for name in sorted(names)]
    return sorted(found)


def test_sql_is_written_only_in_db() -> None:
    assert sql_built_outside_db() == []
