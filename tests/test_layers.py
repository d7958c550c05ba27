"""The house is built in floors: a package imports only the floors below it, never one above,
so no two packages import each other and the pipeline reads bottom to top. Inside ``ranking``
and ``rigscout`` the folders (wings) stand on floors of their own; a wing is entered through
its ``__init__``; and no module imports itself back through others, not even for type hints."""

from __future__ import annotations

import ast
from functools import cache
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
PRODUCTION = ("core", "scraper", "ranking", "db", "alerts", "rigscout")

# The floors inside a package, lowest first: each entry names modules or folders (a name
# covers everything under it). Every module of the package stands on exactly one floor.
INNER_FLOORS: dict[str, tuple[tuple[str, ...], ...]] = {
    "ranking": (
        ("ranking", "ranking.rows", "ranking.catalog", "ranking.profiles", "ranking.score"),
        ("ranking.titles",),  # what a title says
        ("ranking.landed", "ranking.value", "ranking.ignores", "ranking.topology"),
        ("ranking.market",),  # what the market says a SKU is worth
        ("ranking.records", "ranking.pricing", "ranking.sentences", "ranking.rank"),
        ("ranking.kept",),  # the kept ranking
        ("ranking.plan",),  # the rig planner
    ),
    "rigscout": (
        ("rigscout",),
        ("rigscout.config",),
        ("rigscout.jobs",),
        ("rigscout.outputs",),
        ("rigscout.cli", "rigscout.__main__"),
    ),
}
# Folders the floors above may enter only through their ``__init__``.
WINGS = ("ranking.titles", "ranking.market", "ranking.kept", "ranking.plan")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def exported(package: str) -> frozenset[str]:
    """The names a package's ``__init__`` binds by importing them (a wing's ``shortlist`` is
    the function it exports, not the module of that name)."""
    init = ROOT.joinpath(*package.split("."), "__init__.py")
    if not init.exists():
        return frozenset()
    tree = ast.parse(init.read_text(encoding="utf-8"))
    return frozenset(
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    )


def imported_modules(path: Path) -> set[str]:
    """Every module path one module imports, at run time or for typing (``from a.b import c``
    counts as ``a.b``, and as ``a.b.c`` where that may be a module)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            names = {alias.name for alias in node.names} - exported(node.module)
            found |= {f"{node.module}.{name}" for name in names}
    return found


def imported_packages(path: Path) -> set[str]:
    """The top-level packages of ours that one module imports, at run time or for typing."""
    return {name.split(".")[0] for name in imported_modules(path)} & FLOOR.keys()


@cache
def graph() -> dict[str, set[str]]:
    """Our production modules and the modules of ours each imports."""
    paths = {module_name(p): p for package in PRODUCTION for p in (ROOT / package).rglob("*.py")}
    return {name: imported_modules(path) & paths.keys() - {name} for name, path in paths.items()}


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


def inner_floor(module: str, floors: tuple[tuple[str, ...], ...]) -> int | None:
    """The floor of the longest name covering ``module``; None: no floor names it."""
    best: tuple[int, int] | None = None
    for i, floor in enumerate(floors):
        for name in floor:
            covers = module == name or (module.startswith(name + ".") and name.count(".") > 0)
            if covers and (best is None or len(name) > best[1]):
                best = (i, len(name))
    return None if best is None else best[0]


@pytest.mark.parametrize("package", list(INNER_FLOORS))
def test_every_module_of_a_package_stands_on_one_of_its_floors(package: str) -> None:
    floors = INNER_FLOORS[package]
    unplaced = [m for m in graph() if m.split(".")[0] == package and inner_floor(m, floors) is None]
    assert unplaced == []


def pointing_up(package: str, edges: dict[str, set[str]]) -> list[str]:
    floors = INNER_FLOORS[package]
    found = []
    for module, imported in edges.items():
        if module.split(".")[0] != package:
            continue
        own = inner_floor(module, floors)
        for other in imported:
            theirs = inner_floor(other, floors) if other.split(".")[0] == package else None
            if own is not None and theirs is not None and theirs > own:
                found.append(f"{module} imports {other}")
    return sorted(found)


@pytest.mark.parametrize("package", list(INNER_FLOORS))
def test_inside_a_package_no_import_points_up_a_floor(package: str) -> None:
    assert pointing_up(package, graph()) == []


def test_the_inner_check_sees_a_record_importing_the_planner() -> None:
    edges = {"ranking.records": {"ranking.plan.search"}, "ranking.plan.search": set()}
    assert pointing_up("ranking", edges) == ["ranking.records imports ranking.plan.search"]


def side_doors(edges: dict[str, set[str]]) -> list[str]:
    """Imports of a wing's inner modules from outside the wing."""
    return sorted(
        f"{module} imports {other}"
        for module, imported in edges.items()
        for other in imported
        for wing in WINGS
        if other.startswith(wing + ".") and not module.startswith(wing + ".") and module != wing
    )


def test_a_wing_is_entered_through_its_init() -> None:
    assert side_doors(graph()) == []


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every set of modules that import one another round (Tarjan's strongly connected
    components with more than one module)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while (w := stack.pop()) != v:
                component.append(w)
            if component:
                found.append(sorted([v, *component]))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found)


def test_no_module_imports_itself_back_through_others() -> None:
    assert circles(graph()) == []


def test_the_circle_check_sees_a_circle_of_type_hints() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(edges) == [["a", "b", "c"]]


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


def test_ranking_keeps_its_top_floor_small() -> None:
    """Fifteen files or fewer at ``ranking/``'s top: a new rule goes into its wing."""
    top = sorted(p.name for p in (ROOT / "ranking").glob("*.py"))
    assert len(top) <= 15, top


STAND_INS = {"tests.support.fake_ebay", "tests.support.memory_store"}


def test_the_benchmarks_borrow_only_the_tests_stand_ins_for_outside_services() -> None:
    """What benchmarks and tests both measure with lives in ``bench``; the tests import it."""
    borrowed = {
        f"{path.relative_to(ROOT)} imports {name}"
        for path in (ROOT / "bench").rglob("*.py")
        for name in imported_modules(path)
        if name.split(".")[0] == "tests" and name not in STAND_INS and name.count(".") <= 2
    }
    assert sorted(borrowed) == []


# Modules that each implement one shared protocol: their names repeat by design.
PROTOCOL_MODULES = ("alerts/channels/", "scraper/layouts/", "db/migrations/versions/")


def repeated_names() -> dict[str, list[str]]:
    """Public functions and classes defined in more than one production module."""
    homes: dict[str, list[str]] = {}
    for package in PRODUCTION:
        for path in sorted((ROOT / package).rglob("*.py")):
            where = str(path.relative_to(ROOT))
            if where.startswith(PROTOCOL_MODULES):
                continue
            for node in ast.parse(path.read_text(encoding="utf-8")).body:
                if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name[0] != "_":
                    homes.setdefault(node.name, []).append(where)
    return {name: found for name, found in homes.items() if len(found) > 1}


def test_a_public_name_has_one_home() -> None:
    """Two ``score_value_points`` with different signatures read as one and are not."""
    assert repeated_names() == {}
