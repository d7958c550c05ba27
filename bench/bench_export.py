"""Export benchmark: price history of N observations to CSV, chunked vs load-everything.

Each variant runs in its own process so its peak memory (max RSS) is its own. The baseline
reads every observation into one DataFrame with pandas and groups it; rigscout streams
ordered chunks and writes each (SKU, period) group when it is complete.
"""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

SKUS = [f"sku-{i:02d}" for i in range(60)]


def build_database(path: Path, observations: int, listings: int) -> None:
    from decimal import Decimal

    from sqlalchemy import insert

    from db.engine import open_engine
    from db.migrate import upgrade
    from db.models import ListingRow, ObservationRow

    engine = open_engine(f"sqlite:///{path}")
    upgrade(engine)
    rng = random.Random(7)
    t0 = datetime(2025, 11, 20, tzinfo=UTC)
    with engine.begin() as conn:
        conn.execute(
            insert(ListingRow),
            [
                {
                    "id": i + 1,
                    "marketplace": "EBAY_US",
                    "item_id": str(10**11 + i),
                    "title": "t",
                    "url": "u",
                    "buying_format": "buy_it_now",
                    "currency": "USD",
                    "status": "active",
                    "first_seen": t0,
                    "last_seen": t0,
                    "sku": SKUS[i % len(SKUS)],
                    "category": "gpu",
                    "kind": "item",
                    "quantity": 1,
                    "includes": [],
                    "confidence": 1.0,
                }
                for i in range(listings)
            ],
        )
        batch = []
        for n in range(observations):
            batch.append(
                {
                    "listing_id": rng.randrange(listings) + 1,
                    "currency": "USD",
                    "status": "active",
                    "observed_at": t0 + timedelta(minutes=rng.randrange(365 * 24 * 60)),
                    "price": Decimal(f"{rng.uniform(80, 900):.2f}"),
                    "shipping": Decimal(0),
                }
            )
            if len(batch) == 50_000 or n == observations - 1:
                conn.execute(insert(ObservationRow), batch)
                batch = []
    engine.dispose()


def child(variant: str, path: Path) -> dict[str, float]:
    import pandas as pd

    from core.settings import RankSettings
    from db.engine import open_engine
    from rigscout.outputs.export import ExportFilter, export_prices

    engine = open_engine(f"sqlite:///{path}")
    out = io.StringIO()
    before_mb = _current_rss_mb()
    started = time.perf_counter()
    if variant == "chunked":
        rows = export_prices(engine, out, ExportFilter(), RankSettings()).rows
    else:
        frame = pd.read_sql(
            # money columns hold integer cents (db/types.py)
            "SELECT l.sku, o.observed_at AS at,"
            " (o.price + COALESCE(o.shipping, 0)) / 100.0 AS landed "
            "FROM observations o JOIN listings l ON l.id = o.listing_id",
            engine.connect(),
        )
        frame["period"] = pd.to_datetime(frame["at"], format="mixed").dt.date
        summary = frame.groupby(["sku", "period"])["landed"].agg(["count", "min", "median", "max"])
        summary.to_csv(out)
        rows = len(summary)
    seconds = time.perf_counter() - started
    peak_mb = _status_mb("VmHWM")
    return {
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(peak_mb, 1),
        "peak_growth_mb": round(peak_mb - before_mb, 1),
        "rows": rows,
    }


def _current_rss_mb() -> float:
    """Resident memory now (after imports), so the growth during the export can be told apart."""
    return _status_mb("VmRSS")


def _status_mb(field: str) -> float:
    """A memory figure of this process (``/proc/self/status``). The peak is read as ``VmHWM``,
    this program's own: ``ru_maxrss`` carries the peak of the process it was started from
    across ``exec`` on Linux, and the benchmark that starts it holds the generated store."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _run_child(variant: str, path: Path) -> dict[str, float]:
    output = subprocess.run(
        [sys.executable, "-m", "bench.bench_export", "--child", variant, str(path)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return dict(json.loads(output.strip().splitlines()[-1]))


def run(observations: int = 1_000_000, listings: int = 100_000) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.db"
        started = time.perf_counter()
        build_database(path, observations, min(listings, observations))
        built = time.perf_counter() - started
        ours = _run_child("chunked", path)
        baseline = _run_child("baseline", path)
    return {
        "observations": observations,
        "build_seconds": round(built, 1),
        "rigscout": ours,
        "baseline_pandas_load_all": baseline,
        "memory_growth_ratio": round(
            baseline["peak_growth_mb"] / max(ours["peak_growth_mb"], 1.0), 2
        ),
        "time_ratio": round(baseline["seconds"] / ours["seconds"], 2),
    }


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        print(json.dumps(child(sys.argv[2], Path(sys.argv[3]))))
    else:
        size = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
        print(json.dumps(run(size), indent=2))
