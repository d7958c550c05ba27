"""Benchmark: rank_deals computed in the database vs a pandas load-everything baseline.

Builds a synthetic database (bulk executemany on SQLite, COPY on PostgreSQL), then runs each
method in a fresh process, timing it and reading its peak memory (RSS growth and tracemalloc).

    .venv/bin/python bench/bench_rank.py --listings 100000 --observations 1000000 --backend sqlite
"""

from __future__ import annotations

import argparse
import contextlib
import json
import tempfile
import time
import tracemalloc
import uuid
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session

from db.models import Base
from ranking.catalog import Sku, load_catalog
from ranking.market import PRESUMED_WEIGHT, UPPER_BOUND_WEIGHT
from ranking.profiles import load_profiles
from ranking.rank import rank_deals
from ranking.score import score_deal
from ranking.value import score_sku_value
from rigscout.config import RankSettings
from rigscout.models import Category

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
SETTINGS = RankSettings(
    fx_rates={"USD": Decimal(1), "EUR": Decimal("1.08"), "GBP": Decimal("1.27")},
    min_seller_feedback=10,
)
PROFILE = "llm-inference"
LIMIT = 50


def run(
    listings: int = 100_000,
    observations: int = 1_000_000,
    backend: str = "sqlite",
    repeat: int = 3,
) -> dict[str, Any]:
    """Build the database, time both methods in fresh processes, and compare their top deals."""
    with _database(backend) as url:
        started = time.perf_counter()
        engine = create_engine(url)
        Base.metadata.create_all(engine)
        _fill(engine, backend, listings, observations)
        engine.dispose()
        generated = time.perf_counter() - started
        sql = _in_child(_measure_sql, url, repeat)
        pandas = _in_child(_measure_pandas, url, repeat)
    same = len(set(sql["top"]) & set(pandas["top"]))
    return {
        "backend": backend,
        "listings": listings,
        "observations": observations,
        "generate_s": round(generated, 2),
        "sql_s": sql["best_s"],
        "sql_first_s": sql["first_s"],
        "pandas_s": pandas["best_s"],
        "pandas_first_s": pandas["first_s"],
        "speedup": round(pandas["best_s"] / sql["best_s"], 1),
        "sql_rss_mb": sql["rss_mb"],  # growth of the process's peak RSS while ranking
        "pandas_rss_mb": pandas["rss_mb"],
        "sql_process_peak_rss_mb": sql["rss_peak_mb"],
        "pandas_process_peak_rss_mb": pandas["rss_peak_mb"],
        "sql_py_peak_mb": sql["py_peak_mb"],
        "pandas_py_peak_mb": pandas["py_peak_mb"],
        "top_agreement": f"{same}/{len(sql['top'])}",
    }


class _database:
    """A throw-away database: a temporary SQLite file or a fresh PostgreSQL database."""

    def __init__(self, backend: str) -> None:
        self.backend = backend
        self.tmp = tempfile.TemporaryDirectory()
        self.name = f"rigscout_bench_{uuid.uuid4().hex[:8]}"

    def __enter__(self) -> str:
        if self.backend == "sqlite":
            return f"sqlite:///{Path(self.tmp.name) / 'bench.db'}"
        with create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT").connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{self.name}"'))
        return PG_ADMIN.rsplit("/", 1)[0] + "/" + self.name

    def __exit__(self, *exc: object) -> None:
        self.tmp.cleanup()
        if self.backend != "sqlite":
            with create_engine(PG_ADMIN, isolation_level="AUTOCOMMIT").connect() as conn:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)'))


def _fill(engine: Any, backend: str, n_listings: int, n_obs: int) -> None:
    rng = np.random.default_rng(7)
    skus = list(load_catalog())
    base = np.array([_base_price(s) for s in skus])
    listing_rows, last_price = _listings(rng, skus, base, n_listings)
    obs_rows = _observations(rng, listing_rows, last_price, n_obs)
    sale_rows = _sales(rng, listing_rows, last_price)
    tables = [("listings", listing_rows), ("observations", obs_rows), ("sales", sale_rows)]
    raw = engine.raw_connection()
    try:
        cur = raw.cursor()
        for table, rows in tables:
            _insert(cur, backend, table, rows)
        if backend != "sqlite":
            raw.commit()
            cur.execute("ANALYZE")
        raw.commit()
    finally:
        raw.close()


def _base_price(sku: Sku) -> float:
    if sku.category is Category.GPU:
        vram = (sku.vram_gb or 8) * sku.gpus_per_board
        return 20 + 8 * vram + 0.2 * (sku.mem_bandwidth_gbs or 0)
    return 300.0 + 90 * (sku.gpu_slots or 4)


LISTING_COLS = (
    "id, marketplace, item_id, title, url, buying_format, currency, end_time, status,"
    " first_seen, last_seen, sku, category, kind, quantity, includes, confidence,"
    " seller_feedback, seller_positive_pct"
)
OBS_COLS = "id, listing_id, observed_at, price, shipping, currency, status"
SALE_COLS = "id, listing_id, sold_date, price, shipping, currency, best_offer_accepted, source"
COLUMNS = {"listings": LISTING_COLS, "observations": OBS_COLS, "sales": SALE_COLS}


def _insert(cur: Any, backend: str, table: str, rows: list[tuple[Any, ...]]) -> None:
    cols = COLUMNS[table]
    if backend == "sqlite":
        marks = ", ".join("?" for _ in cols.split(","))
        cur.executemany(f"INSERT INTO {table} ({cols}) VALUES ({marks})", rows)
        return
    with cur.copy(f"COPY {table} ({cols}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def _stamp(moment: datetime) -> str:
    """The text SQLAlchemy stores for a DateTime on SQLite (PostgreSQL parses it as UTC)."""
    return moment.strftime("%Y-%m-%d %H:%M:%S.%f")


def _listings(
    rng: np.random.Generator, skus: list[Any], base: np.ndarray, n: int
) -> tuple[list[tuple[Any, ...]], np.ndarray]:
    pick = rng.integers(0, len(skus), n)
    price = base[pick] * rng.uniform(0.55, 1.5, n)
    status = rng.choice(["active", "sold", "ended"], n, p=[0.6, 0.3, 0.1])
    kind = rng.choice(["item", "accessory", "for_parts", "other"], n, p=[0.85, 0.07, 0.05, 0.03])
    fmt = rng.choice(["buy_it_now", "best_offer", "auction"], n, p=[0.5, 0.3, 0.2])
    currency = rng.choice(["USD", "EUR", "GBP", "JPY"], n, p=[0.85, 0.1, 0.04, 0.01])
    quantity = np.where(rng.random(n) < 0.9, 1, rng.integers(2, 5, n))
    unmatched = (rng.random(n) < 0.05) | (kind == "other")
    end = rng.uniform(-2, 7, n)
    feedback = rng.integers(0, 5000, n)
    rows = []
    for i in range(n):
        sku = skus[pick[i]]
        server = sku.category is not Category.GPU
        includes = '[{"sku": "nvidia-tesla-p40", "quantity": 8}]' if server and i % 3 == 0 else "[]"
        auction = fmt[i] == "auction"
        rows.append((
            i + 1, "EBAY_US", f"{100000000000 + i}", f"{sku.name} listing {i}",
            f"https://www.ebay.com/itm/{100000000000 + i}", fmt[i], currency[i],
            _stamp(NOW + timedelta(days=float(end[i]))) if auction else None, status[i],
            _stamp(NOW - timedelta(days=40)), _stamp(NOW), None if unmatched[i] else sku.sku,
            sku.category.value, kind[i], int(quantity[i]), includes, 0.9,
            int(feedback[i]), 99.5,
        ))  # fmt: skip
        if server and includes != "[]":
            price[i] += 8 * 150
    price *= quantity
    return rows, price


def _observations(
    rng: np.random.Generator, listings: list[tuple[Any, ...]], last: np.ndarray, n_obs: int
) -> list[tuple[Any, ...]]:
    n = len(listings)
    owner = np.concatenate([np.arange(n), rng.integers(0, n, max(n_obs - n, 0))])[:n_obs]
    age = rng.uniform(0, 60, len(owner))
    age[:n] = 0.01  # every listing's latest observation carries its current price
    drift = 1 + age / 200
    ship = np.round(rng.choice([0, 9.99, 19.5, 35], len(owner)), 2)
    no_ship = rng.random(len(owner)) < 0.15
    rows = []
    for j in range(len(owner)):
        lst = listings[owner[j]]
        rows.append((
            j + 1, int(owner[j]) + 1, _stamp(NOW - timedelta(days=float(age[j]))),
            round(float(last[owner[j]] * drift[j]), 2), None if no_ship[j] else float(ship[j]),
            lst[6], lst[8],
        ))  # fmt: skip
    return rows


def _sales(
    rng: np.random.Generator, listings: list[tuple[Any, ...]], last: np.ndarray
) -> list[tuple[Any, ...]]:
    sold = [i for i, row in enumerate(listings) if row[8] == "sold"]
    days = rng.integers(0, 60, len(sold))
    best_offer = rng.random(len(sold)) < 0.15
    presumed = rng.random(len(sold)) < 0.2
    return [
        (k + 1, i + 1, (NOW - timedelta(days=int(days[k]))).date().isoformat(),
         round(float(last[i]), 2), 15.0, listings[i][6], bool(best_offer[k]),
         "presumed" if presumed[k] else "sold_page")
        for k, i in enumerate(sold)
    ]  # fmt: skip


def _in_child(fn: Any, url: str, repeat: int) -> dict[str, Any]:
    """Run ``fn`` in a fresh interpreter so that its peak RSS is its own."""
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        result: dict[str, Any] = pool.submit(fn, url, repeat).result()
        return result


def _status_mb(field: str) -> float:
    """A memory figure of this process from /proc (VmRSS now, VmHWM its peak) in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _reset_peak_rss() -> None:
    """Linux resets VmHWM to the current RSS when "5" is written to clear_refs."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def _measure(method: Any, repeat: int) -> dict[str, Any]:
    _reset_peak_rss()
    rss0 = _status_mb("VmRSS")
    times, top = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        top = method()
        times.append(time.perf_counter() - started)
    rss1 = _status_mb("VmHWM")
    tracemalloc.start()
    method()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "first_s": round(times[0], 3),
        "best_s": round(min(times), 3),
        "rss_mb": round(rss1 - rss0, 1),
        "rss_peak_mb": round(rss1, 1),
        "py_peak_mb": round(peak / 2**20, 1),
        "top": top,
    }


def _catalog() -> dict[str, Any]:
    return {s.sku: s for s in load_catalog()}


def _measure_sql(url: str, repeat: int) -> dict[str, Any]:
    engine = create_engine(url)
    skus = _catalog()

    def method() -> list[int]:
        with Session(engine) as session:
            deals = rank_deals(session, skus, SETTINGS, now=NOW, profile=PROFILE, limit=LIMIT)
        return [d.listing_id for d in deals]

    return _measure(method, repeat)


def _measure_pandas(url: str, repeat: int) -> dict[str, Any]:
    engine = create_engine(url)
    skus = _catalog()
    return _measure(lambda: rank_with_pandas(engine, skus), repeat)


def rank_with_pandas(engine: Any, skus: dict[str, Any]) -> list[int]:
    """The same ranking with every table read into DataFrames (the baseline to beat)."""
    with engine.connect() as conn:
        listings = pd.read_sql("SELECT * FROM listings", conn)
        obs = pd.read_sql("SELECT * FROM observations", conn)
        sales = pd.read_sql("SELECT * FROM sales", conn)
    rates = {k: float(v) for k, v in SETTINGS.fx_rates.items()}
    latest = obs.sort_values(["listing_id", "observed_at", "id"]).drop_duplicates(
        "listing_id", keep="last"
    )
    cur = listings[(listings.status == "active") & listings.sku.notna()].merge(
        latest[["listing_id", "price", "shipping", "currency"]].rename(
            columns={"currency": "obs_currency"}
        ),
        left_on="id",
        right_on="listing_id",
    )
    cur["rate"] = cur.obs_currency.map(rates)
    cur = cur[cur.rate.notna() & (cur.price.astype(float) > 0)]
    cur["landed"] = (
        (cur.price.astype(float) + cur.shipping.astype(float).fillna(0)) / cur.quantity * cur.rate
    )
    cur["bare"] = cur.includes.astype(str).isin(["[]", "None"])
    baseline = _pandas_baseline(listings, sales, cur, rates)
    return _pandas_score(cur, baseline, skus)


def _weighted_stats(df: pd.DataFrame) -> pd.DataFrame:
    df = df.sort_values(["sku", "p"], kind="stable")
    df["cw"] = df.groupby("sku").w.cumsum()
    df["tw"] = df.groupby("sku").w.transform("sum")
    lower = df[df.cw >= df.tw / 2].groupby("sku").p.first()
    upper = df[df.cw > df.tw / 2].groupby("sku").p.first()
    n = df.groupby("sku").size()
    return pd.DataFrame({"median": (lower + upper) / 2, "n": n})


def _pandas_baseline(
    listings: pd.DataFrame, sales: pd.DataFrame, cur: pd.DataFrame, rates: dict[str, float]
) -> pd.Series:
    today = NOW.date()
    since = today - timedelta(days=SETTINGS.window_days)
    s = sales.merge(listings[["id", "sku", "kind", "quantity", "includes"]], left_on="listing_id",
                    right_on="id", suffixes=("", "_l"))  # fmt: skip
    dates = pd.to_datetime(s.sold_date).dt.date
    s = s[(dates > since) & (dates <= today) & (s.kind == "item") & s.sku.notna()]
    s = s[s.includes.astype(str).isin(["[]", "None"]) & s.currency.isin(list(rates))]
    s = s.assign(
        p=(s.price.astype(float) + s.shipping.astype(float).fillna(0)) / s.quantity
        * s.currency.map(rates),
        w=np.where(s.best_offer_accepted.astype(bool), float(UPPER_BOUND_WEIGHT), 1.0)
        * np.where(s.source == "presumed", float(PRESUMED_WEIGHT), 1.0),
    )  # fmt: skip
    sold = _weighted_stats(s[["sku", "p", "w"]])
    sold = sold[sold.n >= SETTINGS.min_sales]
    ask = cur[(cur.kind == "item") & (cur.buying_format != "auction") & cur.bare]
    asking = _weighted_stats(ask.assign(p=ask.landed, w=1.0)[["sku", "p", "w"]])
    asking = asking[~asking.index.isin(sold.index)]
    baseline: pd.Series = pd.concat([sold["median"], asking["median"]])
    return baseline


def _pandas_score(cur: pd.DataFrame, baseline: pd.Series, skus: dict[str, Any]) -> list[int]:
    profiles = load_profiles()
    profile = profiles.get(PROFILE)
    values = {c: score_sku_value(s, profile, profiles) for c, s in skus.items()}
    ok = {c for c, v in values.items() if v.eligible}
    c = cur[(cur.kind == "item") & cur.sku.isin(ok)]
    c = c[c.seller_feedback.fillna(-1) >= SETTINGS.min_seller_feedback]
    end = pd.to_datetime(c.end_time, utc=True)
    c = c[(c.buying_format != "auction") | end.isna() | (end > pd.Timestamp(NOW))].copy()
    included = _pandas_included(c, baseline)
    c["base"] = c.sku.map(baseline) + included.reindex(c.id).fillna(0).to_numpy()
    c.loc[c.id.isin(included[included.isna()].index), "base"] = np.nan
    value_price = (c.landed - included.reindex(c.id).fillna(0).to_numpy()).clip(lower=1)
    c["vpm"] = c.sku.map({k: v.capability for k, v in values.items()}) / value_price
    c["side"] = c.buying_format == "auction"
    c["category_"] = c.sku.map({k: v.category.value for k, v in values.items()})
    c["pct"] = c.groupby(["category_", "side"]).vpm.rank(pct=True, method="max")
    c["discount"] = 1 - c.landed / c.base
    c["score"] = [
        score_deal(None if np.isnan(d) else d, p) for d, p in zip(c.discount, c.pct, strict=True)
    ]
    best = c.sort_values(["score", "landed", "id"], ascending=[False, True, True])
    return [int(i) for i in best.id.head(LIMIT)]


def _pandas_included(c: pd.DataFrame, baseline: pd.Series) -> pd.Series:
    """Market value of the GPUs included with each server listing (NaN when one is unpriced)."""
    rows = c[~c.bare]
    values = {}
    for listing_id, raw in zip(rows.id, rows.includes, strict=True):
        items = json.loads(raw) if isinstance(raw, str) else raw
        prices = [baseline.get(i["sku"], np.nan) * i["quantity"] for i in items]
        values[listing_id] = float(np.sum(prices))
    return pd.Series(values, dtype=float)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listings", type=int, default=100_000)
    parser.add_argument("--observations", type=int, default=1_000_000)
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    result = run(args.listings, args.observations, args.backend, args.repeat)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
