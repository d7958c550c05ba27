"""Benchmark: `rigscout report` on 100,000 listings: time to build, and weight of the page.

Builds the synthetic database of ``bench_rank`` (listings, price observations, sales around
the real clock), then times ``rigscout report`` as a whole fresh process (interpreter start
and imports included, as a user waits for it) and weighs the page it writes: one
self-contained ``index.html``, so its size is everything a browser loads.

Baselines in the same run, on the same data:

- the same report with every ranked listing in the table (no top-N per SKU): the page
  weight a naive "show everything" report would have;
- `rigscout rank --limit 50`, one ranking (the report builds one per profile), to read the
  build time against what the ranker alone costs on this machine at the time;
- the report offering a single profile (``[report] profiles``);
- the price-history charts drawn with matplotlib as SVG files (``rigscout.outputs.charts``, what
  ``rigscout chart history`` draws) against the report's inline SVG: time and bytes.

Targets: under 5 s to build, under 5 MB to load.

    .venv/bin/python -m bench report
"""

from __future__ import annotations

import io
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd
from sqlalchemy import create_engine
from sqlalchemy.orm import Session

from bench.bench_rank import CONFIG, NOW, _database, _fill, _time
from db.migrate import upgrade
from ranking.titles import user_skus
from rigscout.config.load import load_settings
from rigscout.outputs.charts import render_history_chart as matplotlib_history
from rigscout.outputs.report.load import build_report_data
from rigscout.outputs.report.page import render_histories

MB = 1024 * 1024


def run(listings: int = 100_000, observations: int = 1_000_000, repeat: int = 3) -> dict[str, Any]:
    """Build the database, time the report and its baselines, weigh the pages."""
    with _database("sqlite") as url, tempfile.TemporaryDirectory() as tmp:
        engine = create_engine(url)
        upgrade(engine)
        _fill(engine, "sqlite", listings, observations)
        engine.dispose()
        ours = _report(Path(tmp), url, "ours", "", repeat)
        rank = _rank(Path(tmp) / "ours" / "rigscout.toml", repeat)
        one = _report(Path(tmp), url, "one", '[report]\nprofiles = ["llm-inference"]\n', repeat)
        every = _report(Path(tmp), url, "every", "[report]\ntop_per_sku = 1000000\n", 1)
        charts = _charts(Path(tmp) / "ours" / "rigscout.toml")
    return {
        "listings": listings,
        "observations": observations,
        "build_s": ours["min_s"],
        "build_median_s": ours["median_s"],
        "build_peak_rss_mb": ours["peak_rss_mb"],
        "page_mb": ours["mb"],
        "rank_s": rank["min_s"],
        "build_over_rank": round(ours["min_s"] / rank["min_s"], 1),
        "one_profile_build_s": one["min_s"],
        "one_profile_page_mb": one["mb"],
        "deal_rows": ours["rows"],
        "every_listing_build_s": every["min_s"],
        "every_listing_page_mb": every["mb"],
        "every_listing_rows": every["rows"],
        **charts,
        "targets_met": ours["min_s"] < 5 and ours["mb"] < 5,
        "load_1min": os.getloadavg()[0],
    }


def _report(tmp: Path, url: str, name: str, extra: str, repeat: int) -> dict[str, Any]:
    folder = tmp / name
    folder.mkdir()
    config = folder / "rigscout.toml"
    config.write_text(CONFIG.format(url=url) + extra, encoding="utf-8")
    cli = str(Path(os.sys.executable).parent / "rigscout")
    timed = _time([cli, "--config", str(config), "report", "-o", str(folder / "site")],
                  dict(os.environ), repeat)  # fmt: skip
    page = (folder / "site" / "index.html").read_text(encoding="utf-8")
    return {
        **timed,
        "mb": round(len(page.encode()) / MB, 2),
        "rows": page.count("<tr data-profile="),
    }


def _rank(config: Path, repeat: int) -> dict[str, Any]:
    """`rigscout rank` in the same run: what one ranking costs on this machine right now."""
    cli = str(Path(os.sys.executable).parent / "rigscout")
    argv = [cli, "--config", str(config), "rank", "--limit", "50", "--json"]
    return _time(argv, dict(os.environ), repeat)


def _charts(config: Path) -> dict[str, Any]:
    """Inline SVG history charts against matplotlib SVG files for the same SKUs and data."""
    settings = load_settings(config, {})
    engine = create_engine(settings.database_url)
    with Session(engine) as session:
        data = build_report_data(session, user_skus(), settings.rank, settings.report, now=NOW)
    engine.dispose()
    today = NOW.date()
    started = time.perf_counter()
    ours = render_histories(data, since=data.history_since or today, today=today)
    ours_s = time.perf_counter() - started
    ours_bytes = sum(len(str(h.svg).encode()) for h in ours)
    started = time.perf_counter()
    theirs_bytes = 0
    for h in ours:
        buffer = io.BytesIO()
        matplotlib_history(_frame(data, h.sku), title=h.name).savefig(buffer, format="svg")
        theirs_bytes += buffer.tell()
    theirs_s = time.perf_counter() - started
    return {
        "charts": len(ours),
        "inline_svg_s": round(ours_s, 3),
        "inline_svg_mb": round(ours_bytes / MB, 2),
        "matplotlib_svg_s": round(theirs_s, 2),
        "matplotlib_svg_mb": round(theirs_bytes / MB, 2),
    }


def _frame(data: Any, sku: str) -> pd.DataFrame:
    """The price points ``outputs.charts`` draws: sales, and each asking day's low and high."""
    rows = [(p.day, "sold", float(p.price)) for p in data.sold if p.sku == sku]
    for a in data.asking:
        if a.sku == sku:
            rows += [(a.day, "active", float(a.low)), (a.day, "active", float(a.high))]
    frame = pd.DataFrame(rows, columns=["at", "market", "price"])
    frame["at"] = pd.to_datetime(frame["at"], utc=True)
    frame["currency"] = data.currency
    return frame
