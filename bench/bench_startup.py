"""Benchmark: how long a user waits for quick commands, as whole fresh processes.

Each command is timed as ``python -m rigscout ...`` from process start to exit (median of
``repeat`` runs) against ``python -c pass`` in the same run, the floor any Python command
pays. Also timed for scale: ``python -c "import sqlalchemy, alembic, httpx, pandas"``, what
every command paid at start before the CLI imported them only where needed. ``rank`` runs on
a database holding the demo run (``fixtures/demo``). For each quick command the heavy
libraries it imported are listed (none is the target).

    .venv/bin/python -m bench startup
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "fixtures" / "demo"
TITLE = "NVIDIA Tesla P40 24GB GDDR5 GPU Accelerator\n"
HEAVY = ("sqlalchemy", "alembic", "httpx", "pandas", "matplotlib")
TARGETS = {"--version": 0.3, "rank": 0.8}
# Imports the command's entry point, runs it, and reports which heavy libraries it loaded.
PROBE = """
import sys
from rigscout.cli.main import cli
try:
    cli.main(sys.argv[1:], standalone_mode=False)
except SystemExit:
    pass
heavy = sorted({{m.split('.')[0] for m in sys.modules}} & set({heavy!r}))
print(repr(heavy), file=sys.stderr)
"""


def run(repeat: int = 7) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        config = _demo_config(Path(tmp))
        page = next(DEMO.glob("*/active-p1.html"))
        commands: dict[str, tuple[list[str], str | None]] = {
            "--version": (["--version"], None),
            "parse": (["parse", str(page)], None),
            "normalize": (["normalize"], TITLE),
            "catalog": (["catalog"], None),
            "rank": (["--config", str(config), "rank", "--limit", "20"], None),
        }
        floor = _median([sys.executable, "-c", "pass"], None, repeat)
        old = _median([sys.executable, "-c", "import sqlalchemy, alembic, httpx, pandas"], None, 3)
        results: dict[str, Any] = {}
        for name, (args, stdin) in commands.items():
            seconds = _median([sys.executable, "-m", "rigscout", *args], stdin, repeat)
            results[name] = {
                "seconds": round(seconds, 3),
                "over_python": round(seconds - floor, 3),
                "heavy_imports": _heavy_imports(args, stdin) if name != "rank" else "n/a",
                "target_seconds": TARGETS.get(name),
            }
    return {
        "python_c_pass_seconds": round(floor, 3),
        "import_sqlalchemy_alembic_httpx_pandas_seconds": round(old, 3),
        "commands": results,
    }


def _demo_config(tmp: Path) -> Path:
    config = tmp / "rigscout.toml"
    config.write_text(f'[database]\nurl = "sqlite:///{tmp / "demo.db"}"\n', encoding="utf-8")
    for name in sorted(p.name for p in DEMO.iterdir() if p.is_dir()):
        search = f'[[search]]\nname = "{name}"\nquery = "{name}"\nmodes = ["active", "sold"]\n'
        config.write_text(config.read_text(encoding="utf-8") + search, encoding="utf-8")
    demo_run = ["run", "--offline", str(DEMO), "--no-alerts", "--limit", "0"]
    subprocess.run(
        [sys.executable, "-m", "rigscout", "--config", str(config), *demo_run],
        check=True,
        capture_output=True,
    )
    return config


def _median(argv: list[str], stdin: str | None, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(argv, input=stdin, capture_output=True, text=True, check=False)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _heavy_imports(args: list[str], stdin: str | None) -> list[str]:
    probe = PROBE.format(heavy=HEAVY)
    done = subprocess.run(
        [sys.executable, "-c", probe, *args], input=stdin, capture_output=True, text=True
    )
    last = done.stderr.strip().splitlines()[-1]
    return list(json.loads(last.replace("'", '"')))
