"""The kept markets read back equal to the ones computed: cards, server chassis, the
same-configuration sales and the parts' medians, amounts to the last digit; and so do the
steps kept apart (the sales' part, the chassis markets with what they were valued at)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from core.models import Included, ServerConfig
from core.settings import RankSettings
from ranking.catalog import load_catalog
from ranking.kept.market_cache import (
    chassis_from_json,
    chassis_to_json,
    markets_from_json,
    markets_to_json,
    sold_side_from_json,
    sold_side_to_json,
)
from ranking.market import chassis_of, server_valuer, sold_side, with_asking
from ranking.pricing import markets_of, price_markets
from ranking.rows import SoldRow

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
SKUS = {s.sku: s for s in load_catalog()}
BAREBONE = ServerConfig(heatsinks="no", cpus=2, cpu_model="Silver 4114", ram_gb=64)


def sale(sku: str, price: str, days: int, **kw: object) -> SoldRow:
    day = (NOW - timedelta(days=days)).date()
    return SoldRow(sku, 1, Decimal(price), "USD", day, Decimal("0"), False, "sold_page", **kw)  # type: ignore[arg-type]


def test_markets_and_server_references_read_back_equal():
    sales = [sale("nvidia-tesla-v100-sxm2-16gb", f"{120 + i}.33", i) for i in range(9)]
    sales += [
        sale("gigabyte-t181-g20", p, d, config=BAREBONE) for p, d in (("751.29", 2), ("815.29", 5))
    ]
    sales.append(
        sale(
            "gigabyte-t181-g20",
            "2116.00",
            3,
            config=BAREBONE,
            includes=(Included("nvidia-tesla-v100-sxm2-16gb", 4),),
        )
    )
    sales += [
        sale("sxm2-heatsink", p, d, kind="part")
        for p, d in (("38.55", 4), ("41.00", 6), ("36.90", 8))
    ]
    markets, servers = price_markets(sales, {}, SKUS, RankSettings(), NOW)

    again, read = markets_from_json(markets_to_json(markets, servers), SKUS)

    assert again == markets and "gigabyte-t181-g20" in again
    assert servers.twins and read.twins == servers.twins and read.sold == servers.sold
    assert read.valuer.markets == servers.valuer.markets
    assert read.valuer.parts == servers.valuer.parts == {"sxm2-heatsink": Decimal("38.55")}


def test_the_sales_part_and_the_chassis_read_back_equal_and_the_chassis_hold_while_gpus_do():
    v100 = "nvidia-tesla-v100-sxm2-16gb"
    sales = [sale(v100, f"{120 + i}.33", i) for i in range(9)]
    sales += [
        sale("gigabyte-t181-g20", "751.29", 2, config=BAREBONE),
        sale("gigabyte-t181-g20", "2116.00", 3, config=BAREBONE, includes=(Included(v100, 4),)),
        sale("sxm2-heatsink", "38.55", 4, kind="part"),
    ]
    settings = RankSettings()
    side = sold_side(sales, settings, now=NOW)
    valuer = server_valuer(side, with_asking(side.cards, {}, settings), SKUS)
    chassis = chassis_of(sales, valuer, settings, now=NOW)

    assert sold_side_from_json(json.loads(json.dumps(sold_side_to_json(side)))) == side
    assert chassis_from_json(json.loads(json.dumps(chassis_to_json(chassis)))) == chassis
    assert chassis.valued_at == {v100: valuer.markets[v100].median}
    # the steps make what price_markets makes
    assert markets_of(side, valuer, chassis) == price_markets(sales, {}, SKUS, settings, NOW)
    # asking prices of another card leave the chassis as they are; a V100 valued otherwise not
    other = with_asking(side.cards, {"nvidia-tesla-p40": [Decimal(150)] * 5}, settings)
    assert chassis.holds(other)
    cheaper = {v100: replace(side.cards[v100], median=Decimal("99.00"))}
    assert not chassis.holds({**side.cards, **cheaper})
    assert not chassis.holds({})
