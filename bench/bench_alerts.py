"""Benchmark: what matching the alert rules adds to a run, on 100,000 ranked listings.

The run ranks every listing when rules exist (so a rule sees each one); this times the step
after it, ``alerts.rules.match_rules``, on 100,000 deals of a dozen SKUs (a fifth auctions
ending over the next three days; scores and discounts spread as the demo's are: a median
score of 35, the best in the 60s; discounts around the market, one in forty 30 % under it)
against eight rules: the baseline is the ranking-only kinds a
buyer wrote before (SKU, price, discount, score, category), the measured set adds one of each
history kind (``new_low_days``, ``min_drop``, ``ending_within``, ``max_per_run``) with its facts
already loaded. Interleaved (baseline, measured, baseline…), best of ``repeat``.

Loading those facts from the store is a query on the few SKUs and listings the other
conditions of those rules let through (``rigscout/jobs/rule_facts.py``), measured separately in
the README's figures.

    .venv/bin/python -m bench alerts
"""

from __future__ import annotations

import random
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from alerts.rules import RuleFacts, match_rules
from alerts.settings import AlertRule
from core.models import BuyingFormat, Category, Deal

NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)
SKUS = [f"sku-{i}" for i in range(12)]
TARGET_S = 0.2


def deals(n: int, rng: random.Random) -> list[Deal]:
    base = Deal(
        listing_id=0, item_id="0", marketplace="EBAY_US", title="t", url="https://x/0",
        sku="sku-0", sku_name="SKU", category=Category.GPU, quantity=1,
        buying_format=BuyingFormat.BUY_IT_NOW, landed_unit_price=Decimal(0), currency="USD",
        shipping_known=True, score=0.0, reason="",
    )  # fmt: skip
    made = []
    for i in range(n):
        auction = rng.random() < 0.2
        made.append(replace(
            base, listing_id=i, item_id=str(i), sku=rng.choice(SKUS),
            category=Category.SERVER if rng.random() < 0.1 else Category.GPU,
            landed_unit_price=Decimal(rng.randint(5000, 300000)) / 100,
            score=min(max(rng.gauss(35, 12), 0), 100),
            discount=rng.gauss(0, 0.15) if rng.random() < 0.8 else None,
            buying_format=BuyingFormat.AUCTION if auction else BuyingFormat.BUY_IT_NOW,
            end_time=NOW + timedelta(hours=rng.uniform(0, 72)) if auction else None,
        ))  # fmt: skip
    return made


CLASSIC = (
    AlertRule("cheap-v100", ("me",), skus=("sku-1", "sku-2"), max_price=Decimal(250)),
    AlertRule("deep", ("me",), min_discount=0.3),
    AlertRule("great", ("me",), min_score=80),
    AlertRule("servers", ("me",), category="server", max_price=Decimal(1500)),
)
HISTORY = (
    AlertRule("p40-low", ("me",), skus=("sku-3",), new_low_days=30),
    AlertRule("drops", ("me",), category="server", min_drop=0.1),
    AlertRule("bid", ("me",), skus=("sku-4",), ending_within=timedelta(hours=3)),
    AlertRule("capped", ("me",), min_score=50, max_per_run=5),
)


def facts(listed: list[Deal]) -> RuleFacts:
    first = {d.listing_id: d.landed_unit_price * Decimal("1.15") for d in listed[::3]}
    lows = {30: {"sku-3": ((1, Decimal(400)), (2, Decimal(420)))}}
    return RuleFacts(first, lows)


def run(n: int = 100_000, repeat: int = 7) -> dict[str, Any]:
    listed = deals(n, random.Random(7))
    known = facts(listed)
    classic, measured = [], []
    for _ in range(repeat):
        for rules, times in ((CLASSIC, classic), (CLASSIC + HISTORY, measured)):
            started = time.perf_counter()
            matches = match_rules(listed, rules, now=NOW, facts=known)
            times.append(time.perf_counter() - started)
            count = len(matches)
    return {
        "deals": n,
        "rules_baseline": len(CLASSIC),
        "rules_measured": len(CLASSIC) + len(HISTORY),
        "baseline_s": round(min(classic), 3),
        "measured_s": round(min(measured), 3),
        "matches": count,
        "target_s": TARGET_S,
        "met": min(measured) < TARGET_S,
    }
