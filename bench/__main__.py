"""Run the benchmarks: ``python -m bench [name ...] [--quick]``; prints each result as JSON."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path

_MILLION = {"listings": 1_000_000, "observations": 10_000_000, "repeat": 2, "pandas": False}
BENCHMARKS = {
    "parse": ("bench.bench_parse", {}),
    "requests": ("bench.bench_requests", {}),
    "normalize": ("bench.bench_normalize", {}),
    "accuracy": ("bench.bench_accuracy", {}),
    "rank": ("bench.bench_rank", {}),
    "rank-postgres": ("bench.bench_rank", {"backend": "postgres"}),
    # Ten times the size, against the full recompute only (the pandas baselines need 8 GB).
    "rank-1m": ("bench.bench_rank", _MILLION),
    "rank-1m-postgres": ("bench.bench_rank", {**_MILLION, "backend": "postgres"}),
    "export": ("bench.bench_export", {}),
    "plan": ("bench.bench_plan", {}),
    "plan-store": ("bench.bench_plan", {"function": "run_store"}),
    "auction": ("bench.bench_auction", {}),
    "startup": ("bench.bench_startup", {}),
    "fastlane": ("bench.bench_fastlane", {}),
    "report": ("bench.bench_report", {}),
    "report-1m": (
        "bench.bench_report",
        {"listings": 1_000_000, "observations": 10_000_000, "pages": False},
    ),
    "alerts": ("bench.bench_alerts", {}),
    "after-run": ("bench.bench_after_run", {}),
    "after-run-1m": (
        "bench.bench_after_run",
        {"listings": 1_000_000, "observations": 10_000_000, "repeat": 1},
    ),
}
ON_REQUEST = {
    "rank-1m",
    "rank-1m-postgres",
    "after-run-1m",
    "report-1m",
}  # half an hour each: run by name only
QUICK = {
    "normalize": {"n": 100_000},
    "rank": {"listings": 10_000, "observations": 100_000},
    "rank-postgres": {"listings": 10_000, "observations": 100_000, "backend": "postgres"},
    "export": {"observations": 100_000},
    "plan": {"listings": 10_000},
    "plan-store": {"listings": 10_000, "observations": 30_000},
    "auction": {"folds": 5},
    "startup": {"repeat": 3},
    "fastlane": {"days": 5, "seeds": 2},
    "report": {"listings": 10_000, "observations": 100_000, "repeat": 1},
    "alerts": {"n": 10_000, "repeat": 3},
    "after-run": {"listings": 10_000, "observations": 100_000, "repeat": 1},
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("names", nargs="*", help=f"some of {', '.join(BENCHMARKS)}; default: all")
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    args = parser.parse_args(argv)
    unknown = set(args.names) - set(BENCHMARKS)
    if unknown:
        parser.error(f"unknown benchmarks: {', '.join(sorted(unknown))}")
    _compile_project()
    for name in args.names or [n for n in BENCHMARKS if n not in ON_REQUEST]:
        module_name, kwargs = BENCHMARKS[name]
        if args.quick:
            kwargs = {**kwargs, **QUICK.get(name, {})}
        started = time.perf_counter()
        kwargs = dict(kwargs)
        function = kwargs.pop("function", "run")
        result = getattr(importlib.import_module(module_name), function)(**kwargs)
        result["wall_seconds"] = round(time.perf_counter() - started, 2)
        print(json.dumps({"benchmark": name, **result}, default=str), flush=True)
    return 0


def _compile_project() -> None:
    """Write the project's bytecode before anything is timed, as any Python does on a command's
    first run: this machine sets PYTHONDONTWRITEBYTECODE, so every process would otherwise
    compile each of the project's modules again (about 0.3 s of every command here), a cost no
    user's machine pays twice. Installed libraries already have theirs."""
    import compileall

    root = Path(__file__).resolve().parents[1]
    for package in ("core", "rigscout", "scraper", "ranking", "db", "alerts", "bench"):
        compileall.compile_dir(root / package, quiet=1)


if __name__ == "__main__":
    sys.exit(main())
