"""A kept price is valid while the digests of what it read are the same: they must not change
between processes (Python salts its string hashes) or with the order the store returns rows,
and must change with what a price reads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from core.models import Included, ServerConfig
from core.settings import RankSettings
from ranking.catalog import load_catalog
from ranking.ignores import Ignores
from ranking.kept.digest import MarketDigests, pricing_basis
from ranking.market import SalePoint, ServerReferences
from ranking.pricing import price_markets
from ranking.rows import SoldRow

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


# A server's kept price reads its family's markets, the priced parts', the sales of its own
# configurations and its pool's sale counts; a card's market that none of its sales came with
# does not move it (so a sale of another card does not price every server again).
T181, C4140, C4140_PCIE = "gigabyte-t181-g20", "dell-poweredge-c4140", "dell-poweredge-c4140-pcie"
TR, TRT = "supermicro-sys-4028gr-tr", "supermicro-sys-4028gr-trt"
V100, P40 = "nvidia-tesla-v100-sxm2-16gb", "nvidia-tesla-p40"
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
BAREBONE = ServerConfig(heatsinks="no", cpus=2, cpu_model="Silver 4114", ram_gb=64)
SKUS = {s.sku: s for s in load_catalog()}


def _sale(sku: str, price: str, days: int, **kw: object) -> SoldRow:
    day = (NOW - timedelta(days=days)).date()
    return SoldRow(sku, 1, Decimal(price), "USD", day, Decimal("0"), False, "sold_page", **kw)  # type: ignore[arg-type]


def _store() -> list[SoldRow]:
    found = [_sale(V100, f"{120 + i}.33", i) for i in range(9)]
    found += [_sale(P40, f"{150 + i}.00", i) for i in range(9)]
    found += [_sale(T181, p, d, config=BAREBONE) for p, d in (("751.29", 2), ("815.29", 5))]
    found.append(_sale(T181, "2116.00", 3, config=BAREBONE, includes=(Included(V100, 4),)))
    found += [_sale(C4140, p, d) for p, d in (("900.00", 1), ("940.00", 2), ("980.00", 3))]
    found += [_sale(TRT, p, d) for p, d in (("1200.00", 1), ("1260.00", 2), ("1300.00", 4))]
    found += [_sale("sxm2-heatsink", p, d, kind="part") for p, d in (("38.55", 4), ("41", 6))]
    return found


def _digests(sales: list[SoldRow]) -> MarketDigests:
    markets, servers = price_markets(sales, {}, SKUS, RankSettings(), NOW)
    return MarketDigests(markets, servers, SKUS, model="model")


def _of(digests: MarketDigests, sku: str, *, includes: bool = False) -> str:
    return digests.of(sku, auction=False, includes=includes)


def test_a_server_is_priced_again_when_the_markets_its_reference_reads_move_and_only_then():
    before = _digests(_store())
    more_p40 = _digests([*_store(), _sale(P40, "99.00", 1)])
    assert _of(more_p40, T181) == _of(before, T181)  # no T181 sale came with a P40
    assert _of(more_p40, T181, includes=True) != _of(before, T181, includes=True)
    more_v100 = _digests([*_store(), _sale(V100, "99.00", 1)])
    assert _of(more_v100, T181) != _of(before, T181)  # a sale of four V100s values its chassis
    sibling = _digests([*_store(), _sale(C4140, "955.00", 1)])  # the same family, another form
    assert _of(sibling, C4140_PCIE) != _of(before, C4140_PCIE)
    assert _of(sibling, T181) == _of(before, T181)


def test_a_server_is_priced_again_when_its_parts_twins_or_pool_counts_move():
    markets, servers = price_markets(_store(), {}, SKUS, RankSettings(), NOW)

    def of(sku: str, references: ServerReferences) -> str:
        return _of(MarketDigests(markets, references, SKUS, model="model"), sku)

    twin = (T181, BAREBONE, ())
    twins = replace(servers, twins={**servers.twins, twin: [SalePoint(Decimal(790), Decimal(1))]})
    assert of(T181, twins) != of(T181, servers)
    assert of(C4140, twins) == of(C4140, servers)  # another model's configuration
    parts = replace(servers.valuer, parts={**servers.valuer.parts, "sxm2-heatsink": Decimal(44)})
    assert of(T181, replace(servers, valuer=parts)) != of(T181, servers)
    pool = replace(servers, sold={**servers.sold, TRT: 7})
    assert of(TR, pool) != of(TR, servers)  # TRT is in the 4028GR pool
    assert of(T181, pool) == of(T181, servers)


V100_32, V100_PCIE = "nvidia-tesla-v100-sxm2-32gb", "nvidia-tesla-v100-pcie-16gb"


def test_a_card_with_a_market_is_priced_again_when_its_own_or_a_smaller_sibling_s_moves():
    """A card's price reads its own market, and its smaller siblings' (a price that fits one
    of theirs reads as a mislabelled capacity); a card with no market of its own reads its
    nearest sibling's, so any of its family's."""
    store = [*_store(), *(_sale(V100_32, f"{300 + i}.00", i) for i in range(9))]
    before = _digests(store)
    assert V100_PCIE not in {s.sku for s in store}  # no market of its own
    more_32 = _digests([*store, _sale(V100_32, "280.00", 1)])
    assert _of(more_32, V100) == _of(before, V100)  # a larger sibling's sale
    assert _of(more_32, V100_32) != _of(before, V100_32)
    assert _of(more_32, V100_PCIE) != _of(before, V100_PCIE)  # its nearest sibling may move
    more_16 = _digests([*store, _sale(V100, "99.00", 1)])
    assert _of(more_16, V100) != _of(before, V100)
    assert _of(more_16, V100_32) != _of(before, V100_32)  # its smaller sibling moved
    assert _of(more_16, P40) == _of(before, P40)  # another family


def test_a_card_with_only_asking_prices_reads_its_family_s_markets():
    """An asking market may be too thin once the listing's own price is taken out of it; the
    nearest sibling's then stands in, so any of the family's sales may move it."""
    asking = {V100_PCIE: [Decimal(p) for p in ("210", "220", "230", "240")]}

    def digests(sales: list[SoldRow]) -> MarketDigests:
        markets, servers = price_markets(sales, asking, SKUS, RankSettings(), NOW)
        assert markets[V100_PCIE].source == "asking"
        return MarketDigests(markets, servers, SKUS, model="model")

    before = digests(_store())
    assert _of(digests([*_store(), _sale(V100, "99.00", 1)]), V100_PCIE) != _of(before, V100_PCIE)
