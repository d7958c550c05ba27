"""Run the benchmarks: ``python -m bench [name ...] [--quick]``; prints each result as JSON."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time

BENCHMARKS = {
    "parse": ("bench.bench_parse", {}),
    "requests": ("bench.bench_requests", {}),
    "normalize": ("bench.bench_normalize", {}),
    "rank": ("bench.bench_rank", {}),
    "rank-postgres": ("bench.bench_rank", {"backend": "postgres"}),
    "export": ("bench.bench_export", {}),
    "plan": ("bench.bench_plan", {}),
    "plan-store": ("bench.bench_plan", {"function": "run_store"}),
    "auction": ("bench.bench_auction", {}),
    "startup": ("bench.bench_startup", {}),
    "fastlane": ("bench.bench_fastlane", {}),
    "report": ("bench.bench_report", {}),
    "alerts": ("bench.bench_alerts", {}),
}
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
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("names", nargs="*", help=f"some of {', '.join(BENCHMARKS)}; default: all")
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    args = parser.parse_args(argv)
    unknown = set(args.names) - set(BENCHMARKS)
    if unknown:
        parser.error(f"unknown benchmarks: {', '.join(sorted(unknown))}")
    for name in args.names or list(BENCHMARKS):
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


if __name__ == "__main__":
    sys.exit(main())
