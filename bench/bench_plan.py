"""Benchmark: the rig planner over 100,000 listings, checked against an exhaustive search.

Synthetic listings of every catalog GPU and server (lots of 1-8, a sixth of them running
auctions, some servers sold with GPUs) at prices around realistic levels. Times
``ranking.plan.plan_rigs`` (best of 3) for a few targets on all of them, then runs the planner
and ``bench.plan_exhaustive.plan_rigs_exhaustive`` (every host with every set of GPU
listings) on a small case and reports whether their plans are equal.

    .venv/bin/python -m bench plan
"""

from __future__ import annotations

import json
import random
import time
from decimal import Decimal
from typing import Any

from bench.plan_exhaustive import plan_rigs_exhaustive
from core.models import Category, Included, ServerConfig
from ranking.catalog import load_catalog
from ranking.plan import Offer, Target, load_plan_rules, plan_rigs

TARGETS = {
    "vram 64": Target(vram_gb=64),
    "vram 128, training, max 1 auction": Target(vram_gb=128, profile="training", max_auctions=1),
    "vram 96, budget 3000, pcie": Target(vram_gb=96, budget=Decimal(3000), form_factor="pcie"),
}


# What server listings come with (a barebone without heatsinks, one with CPUs and RAM, one ready
# to run) and what module listings say of their heatsink: the bill of materials runs on each.
CONFIGS = (
    ServerConfig(heatsinks="no"),
    ServerConfig(heatsinks="unknown", cpus=2, ram_gb=128),
    ServerConfig(heatsinks="yes", cpus=2, ram_gb=192, power_shelf=True),
)
HEATSINK = ("yes", "no", "unknown")

SMALL_CASE = (
    "gigabyte-t181-g20",
    "asus-esc4000-g3",
    "supermicro-sys-4028gr-trt2",
    "nvidia-tesla-v100-sxm2-16gb",
    "nvidia-tesla-v100-pcie-16gb",
    "nvidia-tesla-p100-pcie-16gb",
    "nvidia-rtx-3090",
)


def make_offers(
    n: int, rng: random.Random, *, hosts_share: float = 0.1, only: tuple[str, ...] = ()
) -> list[Offer]:
    """``n`` listings: about ``hosts_share`` servers, the rest GPUs, random lots and auctions."""
    skus = [s for s in load_catalog() if not only or s.sku in only]
    gpus = [s for s in skus if s.category is Category.GPU]
    servers = [s for s in skus if s.category is Category.SERVER]
    offers = []
    for i in range(n):
        server = rng.random() < hosts_share
        sku = rng.choice(servers if server else gpus)
        base = 300 + 60 * (sku.gpu_slots or 0) if server else 20 * (sku.vram_gb or 8) + 50
        includes: tuple[Included, ...] = ()
        if server and rng.random() < 0.2:
            fitting = [g for g in gpus if g.form_factor == sku.gpu_form_factor]
            gpu = rng.choice(fitting)
            includes = (Included(gpu.sku, sku.gpu_slots or 1),)
            base += 20 * (gpu.vram_gb or 8) * (sku.gpu_slots or 1)
        units = 1 if server else rng.choice([1, 1, 1, 1, 2, 4, 8])
        offers.append(
            Offer(
                listing_id=i,
                item_id=str(10**11 + i),
                url=f"https://www.ebay.com/itm/{10**11 + i}",
                title=sku.name,
                sku=sku.sku,
                units=units,
                unit_price=Decimal(round(base * rng.uniform(0.6, 1.6), 2)).quantize(
                    Decimal("0.01")
                ),
                price_basis="predicted" if rng.random() < 1 / 6 else "fixed",
                includes=includes,
                config=rng.choice(CONFIGS) if server else None,
                heatsink=rng.choice(HEATSINK),
            )
        )
    return offers


def _answer(plans: list[Any]) -> list[tuple[str, str, Decimal]]:
    return [(p.host.sku, p.gpu_sku, p.total) for p in plans]


def run(listings: int = 100_000, small: int = 28, seed: int = 11) -> dict[str, Any]:
    rng = random.Random(seed)
    skus = {s.sku: s for s in load_catalog()}
    rules = load_plan_rules()
    offers = make_offers(listings, rng)
    timings: dict[str, float] = {}
    for name, target in TARGETS.items():
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            plans = plan_rigs(offers, skus, rules, target)
            best = min(best, time.perf_counter() - started)
        timings[name] = round(best, 3)
        assert plans, f"no plan for {name}"
    case = make_offers(small, random.Random(seed), hosts_share=0.2, only=SMALL_CASE)
    target = Target(vram_gb=64, limit=10, max_auctions=1)
    started = time.perf_counter()
    fast = plan_rigs(case, skus, rules, target)
    fast_s = time.perf_counter() - started
    started = time.perf_counter()
    slow = plan_rigs_exhaustive(case, skus, rules, target)
    slow_s = time.perf_counter() - started
    return {
        "listings": listings,
        "planner_seconds": timings,
        "small_case_listings": small,
        "small_case_plans": len(fast),
        "planner_small_seconds": round(fast_s, 4),
        "exhaustive_small_seconds": round(slow_s, 3),
        "equal_answers": _answer(fast) == _answer(slow),
    }


def run_store(
    listings: int = 100_000, observations: int = 300_000, repeat: int = 3
) -> dict[str, Any]:
    """``rigscout plan --vram 64 --json`` as a whole process on a SQLite store of ``listings``
    (bench_rank's synthetic data), next to ``rigscout rank --limit 50 --json`` on the same
    store: the planner reuses the ranking, so the difference is what planning adds."""
    import os
    import sys
    import tempfile
    from pathlib import Path

    from sqlalchemy import create_engine

    from bench.bench_rank import CONFIG, _database, _fill, _time
    from db.migrate import upgrade

    with _database("sqlite") as url, tempfile.TemporaryDirectory() as tmp:
        engine = create_engine(url)
        upgrade(engine)
        _fill(engine, "sqlite", listings, observations)
        engine.dispose()
        config = Path(tmp) / "rigscout.toml"
        config.write_text(CONFIG.format(url=url), encoding="utf-8")
        cli = [str(Path(sys.executable).parent / "rigscout"), "--config", str(config)]
        env = dict(os.environ)
        rank = _time([*cli, "rank", "--limit", "50", "--json"], env, repeat)
        plan = _time([*cli, "plan", "--vram", "64", "--json"], env, repeat)
    return {
        "listings": listings,
        "observations": observations,
        "rank_s": rank["min_s"],
        "plan_s": plan["min_s"],
        "plan_peak_rss_mb": plan["peak_rss_mb"],
        "plans": len(json.loads(plan["stdout"])),
    }
