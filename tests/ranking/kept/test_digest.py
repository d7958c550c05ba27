"""A kept price is valid while the digests of what it read are the same: they must not change
between processes (Python salts its string hashes) or with the order the store returns rows,
and must change with what a price reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from decimal import Decimal

from core.settings import RankSettings
from ranking.catalog import load_catalog
from ranking.ignores import Ignores
from ranking.kept.digest import pricing_basis

PROGRAM = """
import json
from core.settings import RankSettings
from ranking.catalog import load_catalog
from ranking.kept.digest import pricing_basis
from ranking.ignores import Ignores
skus = {s.sku: s for s in load_catalog()}
ignores = Ignores(frozenset({"1", "2", "3"}), frozenset({"a", "b"}), frozenset({"x y", "z"}))
print(json.dumps(pricing_basis(RankSettings(), skus, ignores)))
"""


def basis_in_a_process(seed: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    out = subprocess.run(
        [sys.executable, "-c", PROGRAM], env=env, capture_output=True, text=True, check=True
    )
    return str(json.loads(out.stdout))


def test_the_basis_is_the_same_in_every_process():
    assert len({basis_in_a_process(seed) for seed in ("1", "2", "3")}) == 1


def test_the_basis_changes_with_the_settings_the_rates_the_catalog_and_the_ignores():
    skus = {s.sku: s for s in load_catalog()}
    settings = RankSettings()
    base = pricing_basis(settings, skus, None)
    other_rates = replace(settings, fx_rates={"USD": Decimal(1), "EUR": Decimal("1.2")})
    fewer = dict(list(skus.items())[1:])
    changed = [
        pricing_basis(other_rates, skus, None),
        pricing_basis(replace(settings, min_seller_feedback=50), skus, None),
        pricing_basis(settings, fewer, None),
        pricing_basis(settings, skus, Ignores(sellers=frozenset({"gpu_king"}))),
    ]
    assert base not in changed
    assert len(set(changed)) == len(changed)
