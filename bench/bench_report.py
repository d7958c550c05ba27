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
  ``rigscout chart history`` draws) against the report's inline SVG: time and bytes;
- after a simulated run that also brings a sold page (0.2 % of the listings sold, dated up to
  a week back, saved as the store saves a sale), the report that computes again only the
  sales that changed (``rigscout/outputs/report/sold.py``) against the same report computing
  every sale of its 90 days (its kept points forgotten).

The first report on the new store (nothing kept yet) is reported too.

Targets: under 5 s to build, under 5 MB to load.

    .venv/bin/python -m bench report
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session

from bench.bench_rank import (
    CONFIG,
    NOW,
    _database,
    _fill,
    _simulate_run,
    _simulate_sold_page,
    _time,
)
from db.migrate import upgrade
from db.sold_points import KEY as SOLD_POINTS
from ranking.titles import user_skus
from rigscout.config.load import load_settings
from rigscout.outputs.charts import render_history_chart as matplotlib_history
from rigscout.outputs.report.load import build_report_data
from rigscout.outputs.report.page import render_histories

MB = 1024 * 1024


def run(
    listings: int = 100_000, observations: int = 1_000_000, repeat: int = 3, pages: bool = True
) -> dict[str, Any]:
    """Build the database, time the report and its baselines, weigh the pages. ``pages``
    False leaves out the baselines that weigh pages (one profile, every listing: a page of a
    million rows) and the matplotlib charts, as ``report-1m`` does."""
    with _database("sqlite") as url, tempfile.TemporaryDirectory() as tmp:
        engine = create_engine(url)
        upgrade(engine)
        _fill(engine, "sqlite", listings, observations)
        engine.dispose()
        ours = _report(Path(tmp), url, "ours", "", repeat)
        rank = _rank(Path(tmp) / "ours" / "rigscout.toml", repeat)
        weighed: dict[str, Any] = {}
        if pages:
            weighed = _page_baselines(Path(tmp), url, repeat)
        engine = create_engine(url)
        changed = _simulate_run(engine, "sqlite", seed=11)
        sold = _simulate_sold_page(engine, share=0.002, seed=11)
        engine.dispose()
        # The baseline on a copy of the store after the same run: every sale of the 90 days
        # computed again (its kept points forgotten); both pay the same refreshed ranking.
        copy = Path(tmp) / "every-sale.db"
        for suffix in ("", "-wal"):  # the write-ahead log too, should one be left
            source = Path(url.removeprefix("sqlite:///") + suffix)
            if source.exists():
                shutil.copyfile(source, str(copy) + suffix)
        engine = create_engine(f"sqlite:///{copy}")
        with engine.begin() as conn:
            conn.execute(text("DELETE FROM state WHERE key = :key"), {"key": SOLD_POINTS})
        engine.dispose()
        after = _report(Path(tmp), url, "after", "", 1)
        every_sale = _report(Path(tmp), f"sqlite:///{copy}", "every-sale", "", 1)
    return {
        "listings": listings,
        "observations": observations,
        "first_build_s": ours["first_s"],
        "build_s": ours["min_s"],
        "build_median_s": ours["median_s"],
        "build_peak_rss_mb": ours["peak_rss_mb"],
        "page_mb": ours["mb"],
        "rank_s": rank["min_s"],
        "build_over_rank": round(ours["min_s"] / rank["min_s"], 1),
        "deal_rows": ours["rows"],
        **weighed,
        "simulated_run_changes": changed,
        "simulated_sales": sold,
        "after_run_build_s": after["min_s"],
        "after_run_every_sale_build_s": every_sale["min_s"],
        "targets_met": ours["min_s"] < 5 and ours["mb"] < 5,
        "load_1min": os.getloadavg()[0],
    }


def _page_baselines(tmp: Path, url: str, repeat: int) -> dict[str, Any]:
    one = _report(tmp, url, "one", '[report]\nprofiles = ["llm-inference"]\n', repeat)
    every = _report(tmp, url, "every", "[report]\ntop_per_sku = 1000000\n", 1)
    return {
        "one_profile_build_s": one["min_s"],
        "one_profile_page_mb": one["mb"],
        "every_listing_build_s": every["min_s"],
        "every_listing_page_mb": every["mb"],
        "every_listing_rows": every["rows"],
        **_charts(tmp / "ours" / "rigscout.toml"),
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
