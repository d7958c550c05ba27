"""The DuckDB baseline: what a user would write instead of rigscout, one SQL query over a
DuckDB copy of the store.

A competent DuckDB script ranking the same store: each active listing's newest price, landed
per unit in the reference currency; each SKU's market as the median of its window's sales
per unit, with the same outlier cut (three scaled median absolute deviations of log price, and
never within 35 % of the median) and the same evidence tiers (strong, thin, asking, none); the
profile's capability per landed dollar as a percentile within each category; the same score
formula (``ranking.score``); the top ``limit``.

It is a *lower bound* on the time the same work takes in DuckDB, not the same answer: it does
not value servers by their parts, predict what an auction will end at, weigh best-offer and
presumed sales, read a title's flags or seller risk, or explain a deal (an auction is priced at
its current bid or its SKU's market, whichever is higher). Its top list is
compared with rigscout's (``duckdb_top_agreement``) to show how far that simplification goes.

The store is copied into a DuckDB file once, before any timing (``copy_to_duckdb``): a user who
picked DuckDB would keep the store there, and its ``sqlite`` extension cannot be downloaded on
this machine. The timed process opens that file, reads the catalog's capabilities and the
settings' exchange rates (as any script ranking these cards must), runs the query and prints
the ids.

    python -m bench.duck_rank <store.duckdb> <rigscout.toml> <now ISO> [limit | --rules]
"""

from __future__ import annotations

import json
import sqlite3
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

# what the timed process copies out of the SQLite store: the columns the ranking reads
_TABLES = {
    "listings": (
        "id, sku, category, kind, quantity, buying_format, status, seller_feedback,"
        " latest_observation_id, end_time"
    ),
    "observations": "id, listing_id, observed_at, price, shipping, currency",
    "sales": "listing_id, sold_date, price, shipping, currency, best_offer_accepted, source",
}
_CHUNK = 200_000

RANK_SQL = """
WITH fx(currency, rate) AS (VALUES {fx}),
capability(sku, capability, eligible) AS (VALUES {capability}),
cur AS (
  SELECT l.id, l.sku, l.category, l.buying_format, l.seller_feedback, l.end_time,
         (o.price + coalesce(o.shipping, 0)) / 100.0 * fx.rate / l.quantity AS unit
  FROM listings l
  JOIN observations o ON o.id = l.latest_observation_id
  JOIN fx ON fx.currency = o.currency
  WHERE l.status = 'active' AND l.kind = 'item' AND l.sku IS NOT NULL
),
sold AS (
  SELECT l.sku, ln((s.price + coalesce(s.shipping, 0)) / 100.0 * fx.rate / l.quantity) AS lp
  FROM sales s
  JOIN listings l ON l.id = s.listing_id
  JOIN fx ON fx.currency = s.currency
  WHERE l.kind = 'item' AND l.sku IS NOT NULL AND s.sold_date >= $since
    AND s.sold_date < $today
),
centre AS (SELECT sku, median(lp) AS m FROM sold GROUP BY sku),
spread AS (
  SELECT s.sku, median(abs(s.lp - c.m)) AS mad FROM sold s JOIN centre c USING (sku)
  GROUP BY s.sku
),
kept AS (
  SELECT s.sku, s.lp FROM sold s JOIN centre c USING (sku) JOIN spread d USING (sku)
  WHERE abs(s.lp - c.m) <= greatest(3 * 1.4826 * d.mad, ln(1.35))
),
market AS (
  SELECT sku, exp(median(lp)) AS ref, count(*) AS n,
         quantile_cont(exp(lp), 0.75) - quantile_cont(exp(lp), 0.25) AS iqr
  FROM kept GROUP BY sku
),
asking AS (
  SELECT sku, median(unit) AS ref, count(*) AS n FROM cur
  WHERE buying_format <> 'auction' GROUP BY sku
),
reference AS (
  SELECT c.sku,
    CASE WHEN m.n >= $min_sales THEN m.ref WHEN a.n >= $min_sales THEN a.ref END AS ref,
    CASE WHEN m.n >= $strong_sales AND m.iqr <= 0.5 * m.ref THEN 1.0
         WHEN m.n >= $min_sales THEN 0.5
         WHEN a.n >= $min_sales THEN 0.25 ELSE 0.0 END AS evidence
  FROM (SELECT DISTINCT sku FROM cur) c
  LEFT JOIN market m USING (sku) LEFT JOIN asking a USING (sku)
),
priced AS (
  -- an auction will end above its current bid: priced at the market when that is higher
  SELECT c.id, c.sku, c.category, c.seller_feedback, c.buying_format, c.end_time, r.evidence,
         r.ref,
         CASE WHEN c.buying_format = 'auction' THEN greatest(c.unit, coalesce(r.ref, c.unit))
              ELSE c.unit END AS unit
  FROM cur c JOIN reference r USING (sku)
),
valued AS (
  SELECT p.*, 1 - p.unit / p.ref AS discount,
         cume_dist() OVER (PARTITION BY p.category ORDER BY v.capability / p.unit) AS pct
  FROM priced p JOIN capability v USING (sku)
  WHERE v.eligible
),
scored AS (
  SELECT *, 100 * (0.6 * evidence * coalesce(greatest(-1, least(1, discount / 0.5)), 0)
                   + 0.4 * pct)
            - CASE WHEN seller_feedback < $min_feedback THEN 10 ELSE 0 END AS score
  FROM valued
)
"""
TOP_SQL = "SELECT id FROM scored ORDER BY score DESC, id LIMIT $limit"
# The starter config's rules that read the ranking alone (``bench.bench_after_run.RULES``; the
# new-low and price-drop rules need the history facts that bench leaves out too): the matches,
# as (listing id, rule name).
RULES_SQL = """
SELECT id, 'cheap-v100-sxm2' FROM scored
WHERE sku IN ('nvidia-tesla-v100-sxm2-16gb', 'nvidia-tesla-v100-sxm2-32gb')
  AND unit <= 250 AND discount >= 0.15
UNION ALL
(SELECT id, 'any-great-deal' FROM scored WHERE score >= 80 ORDER BY score DESC, id LIMIT 5)
UNION ALL
SELECT id, 'bid-reminder' FROM scored
WHERE sku = 'nvidia-tesla-v100-sxm2-16gb' AND buying_format = 'auction' AND unit <= 200
  AND CAST(end_time AS TIMESTAMP) <= CAST($now AS TIMESTAMP) + INTERVAL 3 HOUR
ORDER BY 2, 1
"""


def copy_to_duckdb(sqlite_path: Path, duck_path: Path) -> None:
    """The store's ranking columns copied into a DuckDB file (untimed set-up)."""
    import duckdb
    import pandas as pd

    source = sqlite3.connect(sqlite_path)
    with duckdb.connect(str(duck_path)) as duck:
        for table, columns in _TABLES.items():
            query = f"SELECT {columns} FROM {table}"
            for number, chunk in enumerate(pd.read_sql_query(query, source, chunksize=_CHUNK)):
                duck.register("chunk", chunk)
                verb = f"CREATE TABLE {table} AS" if number == 0 else f"INSERT INTO {table}"
                duck.execute(f"{verb} SELECT * FROM chunk")
                duck.unregister("chunk")
    source.close()


def rank_with_duckdb(
    duck_path: Path, config: Path, now: datetime, limit: int, *, rules: bool = False
) -> list[Any]:
    """The ids of the top ``limit`` listings by the query above; with ``rules``, the starter
    rules' matches instead."""
    import duckdb

    from ranking.catalog import load_catalog
    from ranking.market import sales_days
    from ranking.profiles import load_profiles
    from ranking.value import score_sku_value
    from rigscout.config.load import load_settings

    rank = load_settings(config, {}).rank
    profiles = load_profiles()
    profile = profiles.get(rank.profile)
    values = [score_sku_value(sku, profile, profiles) for sku in load_catalog()]
    window = sales_days(now.date(), rank.window_days)
    params: dict[str, Any] = {
        # the markets' days (``sales_days``): the day's own sales wait for tomorrow's markets
        "since": window.first.isoformat(),
        "today": window.end.isoformat(),
        "min_sales": rank.min_sales,
        "strong_sales": rank.strong_sales,
        "min_feedback": rank.min_seller_feedback,
    }
    params |= {"now": now.replace(tzinfo=None).isoformat()} if rules else {"limit": limit}
    fx = []
    for n, (currency, rate) in enumerate(rank.fx_rates.items()):
        params |= {f"c{n}": currency, f"r{n}": float(rate)}
        fx.append(f"($c{n}, $r{n})")
    capability = []
    for n, v in enumerate(values):
        params |= {f"s{n}": v.sku, f"v{n}": float(v.capability), f"e{n}": bool(v.eligible)}
        capability.append(f"($s{n}, $v{n}, $e{n})")
    query = RANK_SQL.format(fx=", ".join(fx), capability=", ".join(capability))
    query += RULES_SQL if rules else TOP_SQL
    with duckdb.connect(str(duck_path), read_only=True) as duck:
        found = duck.execute(query, params).fetchall()
    return [[int(row[0]), row[1]] for row in found] if rules else [int(row[0]) for row in found]


if __name__ == "__main__":
    rules = sys.argv[4:] == ["--rules"]
    top = int(sys.argv[4]) if len(sys.argv) > 4 and not rules else 50
    moment = datetime.fromisoformat(sys.argv[3])
    found = rank_with_duckdb(Path(sys.argv[1]), Path(sys.argv[2]), moment, top, rules=rules)
    print(json.dumps(found))
