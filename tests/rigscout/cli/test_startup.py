"""Quick commands start quickly: ``--version``, ``parse``, ``normalize`` and ``catalog`` import
none of SQLAlchemy, Alembic, httpx, pandas or matplotlib (``bench/bench_startup.py`` times them)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bench.bench_startup import HEAVY, PROBE, TITLE
from tests.support.cli import DEMO


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (["--version"], None),
        (["parse", str(DEMO / "p40" / "active-p1.html")], None),
        (["normalize"], TITLE),
        (["catalog"], None),
        (["catalog", "--json"], None),
        (["rank", "--help"], None),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else "",
)
def test_quick_commands_import_no_heavy_library(args, stdin):
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stderr.strip().splitlines()[-1] == "[]", done.stderr
