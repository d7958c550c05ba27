"""A server is judged against machines like it: sales of the same configuration, else its
chassis (every sale with its parts taken out) plus the parts it comes with, thin markets
pooled over a longer window and the model's family, never asking prices where sales exist.

Guide 000 prices a T181-G20 node part by part ("barebones server", V100s "around $150",
"Xeon Gold 6132: $20-30", "DDR4-2133 RDIMMs: $90-120 for 96GB", external 12 V power); these
tests hold the ranker to that arithmetic.
"""

from __future__ import annotations

import random
from datetime import timedelta
from decimal import Decimal
from typing import TYPE_CHECKING

from core.settings import RankSettings
from ranking.catalog import load_catalog
from ranking.market import sold_side, sold_side_with
from ranking.market.auction import MARKET_CEILING
from ranking.rank import rank_rows
from ranking.records import RankFilters
from ranking.titles.server_config import parse_server_config
from tests.support.rows import NOW, active, sales, sold

if TYPE_CHECKING:
    from ranking.rows import SoldRow

CATALOG = {s.sku: s for s in load_catalog()}
USD = RankSettings()
T181 = "gigabyte-t181-g20"
V100 = "nvidia-tesla-v100-sxm2-16gb"
P40 = "nvidia-tesla-p40"
TR, TRT, TR2, TRT2 = (
    "supermicro-sys-4028gr-tr",
    "supermicro-sys-4028gr-tr",
    "supermicro-sys-4028gr-tr2",
    "supermicro-sys-4028gr-trt2",
)
X9 = "supermicro-sys-4027gr-tr"
BAREBONE = "Gigabyte T181-G20 OCP 1U 4x SXM2 GPU Server Barebone 2x LGA3647"
HEATSINKS = "Gigabyte T181-G20 OCP Server Node 12V Bus Bar - includes 4x SXM2 heatsinks"
LOADED = "Gigabyte T181-G20 1U 4-GPU SXM2 Server 2x Xeon Gold 6130 256GB 2x 1.6TB NVMe"
V100_MARKET = sales(V100, "190", "195", "200", "201", "205", "210", "220", "240")  # median 203
# three lots of four: the $50 a heatsink a part's market needs three sales for
HEATSINK_LOTS = [
    sold("sxm2-heatsink", "200", kind="part", quantity=4, days_ago=d) for d in (2, 4, 6)
]


def rank(active_rows, sold_rows=(), **filters):
    return rank_rows(active_rows, sold_rows, CATALOG, USD, now=NOW, filters=RankFilters(**filters))


def server(sku: str, price: str, title: str, **kw):
    return active(sku, price, title=title, config=parse_server_config(title), **kw)


def test_a_barebone_is_judged_by_barebone_sales_not_by_units_with_heatsinks_and_cpus():
    bare_sales = sales(T181, "760", "780", "800", title=BAREBONE)
    richer = [
        *sales(T181, "1128", "1150", title=HEATSINKS),
        sold(T181, "1496", title=LOADED),
    ]
    (deal,) = rank([server(T181, "700", BAREBONE)], bare_sales + richer + HEATSINK_LOTS).deals

    assert deal.baseline == Decimal("780.00")  # the three identical sales, nothing else
    assert "under the median of 3 sales of the same configuration, $780.00" in deal.reason
    assert deal.config_text == "barebone: no CPUs, RAM or heatsinks"
    assert "(barebone: no CPUs, RAM or heatsinks) at $700.00" in deal.reason
    assert deal.reference == (("3 sales of the same configuration", Decimal("780.00"), "sales"),)


def test_with_too_few_identical_sales_the_chassis_takes_every_sale_with_its_parts_out():
    history = [
        *sales(T181, "760", "800", title=BAREBONE),
        *sales(T181, "1128", "1150", title=HEATSINKS),  # 4 heatsinks at $50: chassis 928, 950
        sold(T181, "1496", title=LOADED),  # 2 CPUs $50 + 256 GB $281.60: chassis 1,164.40
        *HEATSINK_LOTS,
    ]
    (deal,) = rank([server(T181, "700", BAREBONE)], history).deals

    # chassis median $928 (760, 800, 928, 950, 1,164.40), moved toward the two identical
    # sales (median $780; each counts as much as the composite): (780 x 2 + 928) / 3
    assert deal.baseline == Decimal("829.33")
    assert "the chassis median of $928.00, moved toward the same configuration's sales at " in (
        deal.reason
    )
    assert "$760.00–$800.00" in deal.reason
    assert "5 sales in 30 days, their parts taken out" in deal.reason
    assert deal.baseline < Decimal("1128")  # the old, mixed reference


def test_the_composite_shows_its_sum_part_by_part():
    history = [*sales(T181, "760", "780", "800", title=BAREBONE), *HEATSINK_LOTS]
    (deal,) = rank([server(T181, "850", HEATSINKS)], history).deals

    # the heatsinks' price rests on three sales, and the sentence says so (issue #33)
    assert "chassis $780.00 + 4 heatsinks (3 sales) $200.00 = $980.00" in deal.reason
    assert deal.reference == (
        ("chassis", Decimal("780.00"), "market"),
        ("4 heatsinks (3 sales)", Decimal("200.00"), "market"),
    )
    assert deal.baseline == Decimal("980.00")


def test_a_loaded_server_adds_its_gpus_power_shelf_cpus_and_ram_each_from_its_source():
    title = "Gigabyte T181-G20 w/ 4x V100 16GB SXM2 + OCP 12V power shelf 2x Gold 6138 192GB"
    history = [*sales(T181, "760", "780", "800", title=BAREBONE), *V100_MARKET]
    row = server(T181, "1900", title, includes=((V100, 4),))
    (deal,) = rank([row], history).deals

    assert deal.reference == (
        ("chassis", Decimal("780.00"), "market"),
        ("4x V100 SXM2 16GB", Decimal("812.00"), "market"),
        ("power shelf", Decimal("270"), "estimate"),  # no shelf sold in the store
        ("2 CPUs", Decimal("50"), "estimate"),  # guide 000: Xeon Gold $20-30
        ("192 GB RAM", Decimal("211.20"), "estimate"),  # guide 000: $90-120 for 96 GB
    )
    assert deal.baseline == Decimal("2123.20")
    assert "power shelf $270.00 (estimate)" in deal.reason


def test_a_thin_market_borrows_ninety_days_and_says_so():
    old = sales(TRT, "700", "720", "740", days_ago=60, title="Supermicro 4028GR-TRT Barebone")
    (deal,) = rank([server(TRT, "600", "Supermicro 4028GR-TRT Barebone")], old).deals

    assert deal.evidence == "thin"
    assert "3 sales in 90 days" in deal.reason


def test_the_4028gr_family_is_pooled_with_each_model_s_own_level():
    history = [
        sold(TR, "700", title="Supermicro SYS-4028GR-TR Barebone"),
        sold(TRT, "800", title="Supermicro SYS-4028GR-TRT Barebone"),
        sold(TR2, "900", title="Supermicro SYS-4028GR-TR2 Barebone"),
        sold(TRT2, "1000", title="Supermicro SYS-4028GR-TRT2 Barebone"),
    ]
    tr, trt2 = (
        server(TR, "650", "Supermicro SYS-4028GR-TR Barebone No CPU"),
        server(TRT2, "650", "Supermicro SYS-4028GR-TRT2 Barebone No CPU"),
    )
    deals = {d.sku: d for d in rank([tr, trt2], history).deals}

    # family median $850; one sale of its own moves a model a third of the way (1 / (1 + 2))
    assert deals[TR].evidence == deals[TRT2].evidence == "pooled"
    assert Decimal("700") < deals[TR].baseline < Decimal("850")
    assert Decimal("850") < deals[TRT2].baseline < Decimal("1000")
    assert "4 sales of its family in 90 days" in deals[TR].reason


def test_a_server_with_any_sale_never_falls_back_to_asking_prices():
    one_sale = [sold(X9, "443", title="Supermicro SYS-4027GR-TRT 4U GPU Server Barebone")]
    asking = [server(X9, p, "Supermicro SYS-4027GR-TRT 4U Barebone") for p in ("600", "650", "700")]
    deals = rank(asking, one_sale).deals

    assert {d.evidence for d in deals} == {"none"}
    assert all(d.baseline is None for d in deals)
    assert "no market price yet: 1 sale of it or its family in 90 days, too few" in deals[0].reason
    # No sale at all: the other listings' asking prices are all there is. A listing's own
    # price never enters its own reference, so each of three sees only two (too few)...
    assert {d.evidence for d in rank(asking).deals} == {"none"}
    # ...and of four, each sees the three others: $650 is judged against 600, 700 and 750.
    fourth = server(X9, "750", "Supermicro SYS-4027GR-TRT 4U Barebone")
    unsold = {d.landed_unit_price: d for d in rank([*asking, fourth]).deals}
    assert {d.evidence for d in unsold.values()} == {"asking"}
    judged = next(d for price, d in unsold.items() if price < Decimal("660"))
    assert "the asking median of $700.00" in judged.reason  # never called a chassis
    assert "parts taken out" not in judged.reason


def test_a_server_auction_is_bounded_by_its_composite():
    title = "Supermicro SYS-4028GR-TR 8x NVIDIA Tesla P40 24GB 2x E5-2650 v4 256GB AI Server"
    p40 = sales(P40, "180", "190", "200", "200", "210", "215", "220", "230")  # median 205
    chassis = sales(TR, "700", "720", "740", title="Supermicro SYS-4028GR-TR Barebone")
    row = server(
        TR,
        "2638",
        title,
        includes=((P40, 8),),
        buying_format="auction",
        bids=12,
        ends_in=timedelta(days=6),
        shipping=None,
    )
    (deal,) = rank([row], p40 + chassis).deals

    # chassis $720 + 8 P40s $1,640 + 2 CPUs $40 + 256 GB RAM $281.60
    assert deal.baseline == Decimal("2681.60")
    assert deal.predicted_high is not None  # the range above it is the uncertainty, not capped
    assert deal.landed_unit_price <= deal.baseline * Decimal(str(MARKET_CEILING))
    assert deal.predicted_high > deal.landed_unit_price


def test_freight_from_overseas_costs_more_than_from_home_and_warns_of_duty():
    def landed(location: str) -> tuple[Decimal, list[str]]:
        row = server(T181, "700", BAREBONE, shipping=None, location=location)
        (deal,) = rank([row]).deals
        return deal.landed_unit_price, [f.label for f in deal.flags]

    home, _ = landed("Dallas, TX")
    near, _ = landed("Toronto, Canada")
    far, far_flags = landed("Hong Kong")
    assert (home, near, far) == (Decimal("900.00"), Decimal("1000.00"), Decimal("1300.00"))
    assert "ships from Hong Kong (overseas: customs or import duty may apply)" in far_flags


def test_drives_a_sale_came_with_are_taken_out_of_its_chassis_too():
    nvme = "Gigabyte T181-G20 1U 4-GPU SXM2 Server 2x 1.6TB NVMe"
    history = [*sales(T181, "760", "780", title=BAREBONE), sold(T181, "972", title=nvme)]
    (deal,) = rank([server(T181, "700", HEATSINKS)], [*history, *HEATSINK_LOTS]).deals

    # 3.2 TB of NVMe at parts.toml's $60 a TB: the $972 sale's chassis is $780
    assert deal.reference[0] == ("chassis", Decimal("780.00"), "market")


def test_a_server_is_no_surer_than_the_market_of_the_gpus_it_comes_with():
    bare = sales(T181, "760", "770", "775", "780", "780", "785", "790", "800", title=BAREBONE)
    thin_v100 = sales(V100, "190", "200", "210")  # three sales: a thin market
    row = server(T181, "1500", "Gigabyte T181-G20 w/ 4x V100 16GB SXM2", includes=((V100, 4),))
    (deal,) = rank([row], bare + thin_v100).deals

    assert deal.evidence == "thin"  # the chassis alone is strong
    assert "thin evidence, as the V100 SXM2 16GB's market is" in deal.reason
    (alone,) = rank([server(T181, "700", BAREBONE)], bare).deals
    assert alone.evidence == "strong"


def test_a_server_sold_with_its_gpus_says_so_in_the_table_notes():
    from rigscout.cli.render import render_notes

    title = "Gigabyte T181-G20 with 4x Tesla V100 SXM2 16GB 2x Xeon Gold 6138 192GB"
    history = [*sales(T181, "760", "780", "800", title=BAREBONE), *V100_MARKET]
    (deal,) = rank([server(T181, "1600", title, includes=((V100, 4),))], history).deals

    assert deal.gpus_included == 4
    assert "with GPUs" in render_notes(deal, NOW)  # not "CPUs+RAM": a complete node
    (bare,) = rank([server(T181, "700", BAREBONE)], history).deals
    assert "barebone" in render_notes(bare, NOW)


def _heatsinks(*prices: str) -> list:
    return [sold("sxm2-heatsink", p, days_ago=2 + i, kind="part") for i, p in enumerate(prices)]


def test_one_misread_sale_never_becomes_a_parts_price():
    """A $54 heatsink and one misread $815 sale made a $434 "market" that priced every SXM2
    heatsink, and every composite built on it: a part's market needs three sales near its
    documented estimate, else the estimate stands (and says so)."""
    from ranking.market import part_markets
    from ranking.titles.server_config import load_parts

    table = load_parts()
    estimate = table.parts["sxm2-heatsink"].estimate
    settings = RankSettings()
    assert part_markets(_heatsinks("54", "815"), settings, now=NOW, table=table) == {}
    assert table.unit_price("sxm2-heatsink", {}) == (estimate, "estimate")
    three = part_markets(_heatsinks("54", "815", "41", "47"), settings, now=NOW, table=table)
    (market,) = three.values()  # $815 left out, three near sales
    assert (market.sku, market.median, market.count) == ("sxm2-heatsink", Decimal("47.00"), 3)
    assert part_markets(_heatsinks("41", "47"), settings, now=NOW, table=table) == {}


def test_a_server_sold_without_its_psus_is_compared_with_a_chassis_less_its_psus():
    """A barebone "no PSU" looked far under its chassis' market, which sells with its PSUs:
    the reference takes the PSUs its family runs on (four for a 4028GR) out, and says so."""
    chassis = sales(TRT, "700", "740", "780", title="Supermicro SYS-4028GR-TRT Barebone")
    bare = server(TRT, "500", "Supermicro SYS-4028GR-TRT barebone no PSU", shipping="0")
    (deal,) = rank([bare], chassis).deals

    assert deal.baseline == Decimal("552.00")  # $740 less 4 PSUs at the $47 estimate
    assert deal.config_text == "barebone: no CPUs, RAM or PSUs"
    assert "− its 4 PSUs (not included) $188.00 (estimate) = $552.00" in deal.reason
    assert deal.discount is not None and round(deal.discount, 2) == 0.09  # not 32 % under


def test_a_sold_side_made_again_for_the_skus_with_new_sales_is_the_sold_side_of_every_sale():
    """``sold_side_with``: where only sales of some SKUs were added, the kept side with their
    part made again from their sales alone (and whatever else was read with them) is the
    side every sale makes: cards, priced parts, servers' same-configuration sales, counts."""
    rng = random.Random(36)
    settings = RankSettings()
    gpus = ["nvidia-tesla-v100-sxm2-16gb", "nvidia-tesla-p40"]
    servers = ["supermicro-sys-4028gr-tr", "gigabyte-t181-g20"]
    titles = ("barebone no cpu", "2x E5-2680 v4 256GB RAM", "with 8x heatsinks")

    def sale() -> SoldRow:
        kind = rng.choice(("card", "card", "part", "server"))
        days, price = rng.randint(0, 120), str(rng.randint(40, 900))
        if kind == "card":
            return sold(rng.choice(gpus), price, days_ago=days)
        if kind == "part":
            return sold("sxm2-heatsink", str(rng.randint(20, 90)), days_ago=days, kind="part")
        return sold(rng.choice(servers), price, days_ago=days, title=rng.choice(titles))

    for _ in range(40):
        before = [sale() for _ in range(rng.randint(0, 60))]
        added = [sale() for _ in range(rng.randint(1, 6))]
        every = before + added
        new = frozenset(s.sku for s in added)
        # the store reads those SKUs' sales, in the order it reads them all, and maybe others
        read = [s for s in every if s.sku in new or rng.random() < 0.2]
        kept = sold_side(before, settings, now=NOW)
        made = sold_side_with(kept, sold_side(read, settings, now=NOW), new)
        assert made == sold_side(every, settings, now=NOW)
