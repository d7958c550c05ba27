"""Benchmark: what the first ranking after a daily run costs, against the way it was done before.

On the ``rank`` bench's generated store (100,000 listings, 1,000,000 observations, ~6,000
watched auctions), ranked once so its priced rows, fitted auction model and slice markets are
kept; then a simulated run (1 % new prices, 0.5 % new listings) and its sold page (0.2 % of
the listings sold this week). Steps of the run's own ranking are timed in this process, each
against its baseline, interleaved, best of ``repeat``:

- ``kept model``: after the run's active pages alone, the auction model read back (nothing it
  learns from changed: ``db.auction_rows.load_fit_unchanged``); baseline: the refit below,
  which every save caused before.
- ``refit``: after the sold page, the auction model fitted again, reusing the markets of the
  slices of sales the last fit read (``ranking.market.auction_watch``); baseline: every slice
  computed (the kept markets dropped). Both must give the same model.
- ``digest``: the listings priced against every (SKU, format, market digest), as a ranking
  loads them to price again after a sold page moved every market
  (``db.priced_rows.load_rows_priced_against``), by the index ``ix_priced_sku_digest``;
  baseline: the same with the index dropped.
- ``alerts``: the run's ranking for the starter config's five alert rules, pricing and
  explaining only the listings the rules may match (``RankFilters.may_match``); baseline:
  every listing (the previous design). Both must give the same matches.
- ``duckdb_rules``: what a user might run instead, a DuckDB script (``bench.duck_rank
  --rules``) ranking the store after the run (copied into DuckDB, untimed) by the ranking's core
  and matching the rules that read the ranking alone, timed as a whole process (interpreter and
  imports included, where the ``alerts`` figures are a step inside one); with the share of
  rigscout's matches it finds.

    .venv/bin/python -m bench after-run
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session

from alerts.rules import RuleFacts, Trust, match_rules
from alerts.settings import AlertRule
from bench.bench_rank import (
    CONFIG,
    _fill,
    _simulate_run,
    _simulate_sold_page,
    _time,
    _watched_count,
)
from core.settings import RankSettings
from db.migrate import upgrade
from db.priced_rows import load_digests, load_rows_priced_against
from db.state import load_state, save_state
from ranking.market import model_to_json
from ranking.plan.rules import load_plan_rules
from ranking.titles import user_skus
from rigscout.jobs.deals import MARKETS_STATE, MODEL_STATE, current_auction_model, rank_stored
from rigscout.jobs.pipeline import alert_filters

SETTINGS = RankSettings(
    fx_rates={"USD": Decimal(1), "EUR": Decimal("1.08"), "GBP": Decimal("1.27")},
    min_seller_feedback=10,
)
V100 = ("nvidia-tesla-v100-sxm2-16gb", "nvidia-tesla-v100-sxm2-32gb")
# The starter config's five example rules (rigscout/config/starter.toml).
RULES = (
    AlertRule("cheap-v100-sxm2", ("x",), skus=V100, max_price=Decimal(250), min_discount=0.15),
    AlertRule("any-great-deal", ("x",), min_score=80, max_per_run=5),
    AlertRule("p40-new-low", ("x",), skus=("nvidia-tesla-p40",), new_low_days=30),
    AlertRule("server-price-drop", ("x",), category="server", min_drop=0.1),
    AlertRule(
        "bid-reminder",
        ("x",),
        skus=V100[:1],
        ending_within=timedelta(hours=3),
        max_price=Decimal(200),
    ),
)


def run(listings: int = 100_000, observations: int = 1_000_000, repeat: int = 3) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        engine = create_engine(f"sqlite:///{Path(tmp) / 'bench.db'}")
        upgrade(engine)
        _fill(engine, "sqlite", listings, observations)
        skus = user_skus()
        with Session(engine) as session:  # the ranking before the run: everything kept
            rank_stored(session, skus, SETTINGS, now=datetime.now(UTC))
        changed = _simulate_run(engine, "sqlite", seed=11)
        now = datetime.now(UTC)
        with Session(engine) as session:
            model = load_state(session, MODEL_STATE)
            memo = load_state(session, MARKETS_STATE)
        assert model is not None
        assert memo is not None
        kept = _interleaved({"kept": lambda: _refit(engine, model, memo, now)}, repeat)["kept"]
        sold = _simulate_sold_page(engine, share=0.002, seed=5)
        refit = _interleaved(
            {
                "reusing": lambda: _refit(engine, model, memo, now),
                "from_nothing": lambda: _refit(engine, model, {**memo, "markets": {}}, now),
            },
            repeat,
        )
        with Session(engine) as session:  # the run's changes priced once
            rank_stored(session, skus, SETTINGS, now=now)
        candidates = alert_filters(RULES, None)
        every = replace(candidates, may_match=None)
        alerts = _interleaved(
            {
                "candidates": lambda: _alerts(engine, skus, now, candidates),
                "every_listing": lambda: _alerts(engine, skus, now, every),
            },
            repeat,
        )
        duck = _duckdb_rules(Path(tmp), now, repeat)
        digest = _digest_lookups(engine, repeat)
        watched = _watched_count(engine)
        engine.dispose()
    return {
        "listings": listings,
        "observations": observations,
        "watched_auctions": watched,
        "run_changed_listings": changed,
        "sold_page_sales": sold,
        "model_kept_s": kept[0],  # after the active pages alone: read back, not fitted
        "refit_reusing_s": refit["reusing"][0],
        "refit_from_nothing_s": refit["from_nothing"][0],
        "refit_speedup": round(refit["from_nothing"][0] / refit["reusing"][0], 2),
        "refit_same_model": refit["reusing"][1] == refit["from_nothing"][1],
        "digest_lookups": digest["lookups"],
        "digest_indexed_s": digest["indexed"],
        "digest_scanning_s": digest["scanning"],
        "digest_speedup": round(digest["scanning"] / digest["indexed"], 1),
        "alerts_candidates_s": alerts["candidates"][0],
        "alerts_every_listing_s": alerts["every_listing"][0],
        "alerts_speedup": round(alerts["every_listing"][0] / alerts["candidates"][0], 2),
        "alerts_deals_priced": [alerts["candidates"][1][1], alerts["every_listing"][1][1]],
        "alerts_matches": len(alerts["candidates"][1][0]),
        "alerts_same_matches": alerts["candidates"][1][0] == alerts["every_listing"][1][0],
        **_duck_figures(duck, alerts["candidates"][1][0]),
    }


def _duckdb_rules(tmp: Path, now: datetime, repeat: int) -> dict[str, Any]:
    """The DuckDB baseline (``bench.duck_rank --rules``): the store after the run copied into
    DuckDB (untimed), then the same ranking's core and the rules that read it alone, as a whole
    process, best of ``repeat``; {} when DuckDB is not installed."""
    if importlib.util.find_spec("duckdb") is None:
        return {}
    from bench.duck_rank import copy_to_duckdb

    store = tmp / "bench.db"
    config = tmp / "rigscout.toml"
    config.write_text(CONFIG.format(url=f"sqlite:///{store}"), encoding="utf-8")
    copy_to_duckdb(store, tmp / "store.duckdb")
    argv = [sys.executable, "-m", "bench.duck_rank", str(tmp / "store.duckdb"), str(config)]
    return _time([*argv, now.isoformat(), "--rules"], dict(os.environ), repeat)


def _duck_figures(duck: dict[str, Any], ours: list[Any]) -> dict[str, Any]:
    """The DuckDB baseline's time and how many of its matches are ours (the ranking-only rules:
    rigscout's history rules match nothing here either, their facts left out)."""
    if not duck:
        return {"duckdb": "skipped: not installed (pip install -e '.[bench]')"}
    theirs = {(i, rule) for i, rule in json.loads(duck["stdout"])}
    mine = {(i, rule) for i, rule in ours}
    return {
        "duckdb_rules_s": duck["min_s"],
        "duckdb_rules_peak_rss_mb": duck["peak_rss_mb"],
        "duckdb_rules_matches": len(theirs),
        "duckdb_rules_agreement": f"{len(theirs & mine)}/{len(mine)}",
    }


def _refit(engine: Any, model: dict[str, object], memo: dict[str, object], now: datetime) -> object:
    """The model fitted after the run (the model as kept before it), with ``memo`` kept."""
    with Session(engine) as session:
        save_state(session, MODEL_STATE, model, now)
        save_state(session, MARKETS_STATE, memo, now)
        session.commit()
        return model_to_json(current_auction_model(session, SETTINGS, now=now))


def _alerts(engine: Any, skus: Any, now: datetime, filters: Any) -> tuple[list[object], int]:
    """The run's ranking for the rules and what they match (without history facts)."""
    rules = load_plan_rules()
    with Session(engine) as session:
        ranking = rank_stored(session, skus, SETTINGS, now=now, filters=filters)
    trust = Trust.of(rules)
    matches = match_rules(ranking.deals, RULES, now=now, facts=RuleFacts(), trust=trust)
    return [(m.deal.listing_id, m.rule.name) for m in matches], len(ranking.deals)


def _digest_lookups(engine: Any, repeat: int) -> dict[str, float]:
    """Best of ``repeat`` for the listings of every (SKU, format, digest), by index and by scan."""
    with Session(engine) as session:
        triples = load_digests(session)

        def lookups() -> float:
            started = time.perf_counter()
            load_rows_priced_against(session, triples, basis="")
            return round(time.perf_counter() - started, 3)

        indexed = min(lookups() for _ in range(repeat))
        session.execute(text("DROP INDEX ix_priced_sku_digest"))  # the store's last step
        session.commit()
        scanning = min(lookups() for _ in range(repeat))
    return {"lookups": len(triples), "indexed": indexed, "scanning": scanning}


def _interleaved(steps: dict[str, Any], repeat: int) -> dict[str, tuple[float, Any]]:
    """Each step's best time over ``repeat`` rounds taken in turn, and its (last) answer."""
    best: dict[str, tuple[float, Any]] = {}
    for _ in range(repeat):
        for name, step in steps.items():
            started = time.perf_counter()
            answer = step()
            elapsed = round(time.perf_counter() - started, 3)
            best[name] = (min(elapsed, best.get(name, (elapsed, None))[0]), answer)
    return best
