"""A plan's total is what the rig costs to power on and run (guide 000: the T181-G20 "expects
external 12V power"; a barebones node still needs CPUs, "DDR4-2133 RDIMMs" and, for SXM2
modules, heatsinks), and the order follows the profile's own measure per dollar."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from core.models import Included, ServerConfig
from ranking.catalog import load_catalog
from ranking.plan.bom import heatsink_line
from ranking.plan.records import Offer, PartOffer, PartPrices, Target, cheapest_lots
from ranking.plan.render import render_bom_line, render_plan_json, render_plans_text
from ranking.plan.rules import load_plan_rules
from ranking.plan.search import plan_rigs
from ranking.titles.server_config import load_parts, parse_part, parse_server_config
from tests.support.rows import NOW

SKUS = {s.sku: s for s in load_catalog()}
RULES = load_plan_rules()
T181 = "gigabyte-t181-g20"
V100 = "nvidia-tesla-v100-sxm2-16gb"
P100 = "nvidia-tesla-p100-sxm2-16gb"
BARE = parse_server_config("Gigabyte T181-G20 GPU Server Barebone No Heatsinks")
_ids = iter(range(1, 1_000_000))


def offer(sku: str, price: str, units: int = 1, **kw: object) -> Offer:
    n = next(_ids)
    return Offer(
        listing_id=n,
        item_id=str(300000 + n),
        url=f"https://www.ebay.com/itm/{300000 + n}",
        title=str(kw.pop("title", sku)),
        sku=sku,
        units=units,
        unit_price=Decimal(price),
        **kw,  # type: ignore[arg-type]
    )


def part(code: str, price: str, units: int) -> PartOffer:
    n = next(_ids)
    return PartOffer(n, str(400000 + n), f"https://www.ebay.com/itm/{400000 + n}", code, code,
                     units, Decimal(price))  # fmt: skip


HEATSINK_CODE = "sxm2-heatsink"
SHELF = part("ocp-power-shelf", "267.67", 1)
HEATSINKS = part("sxm2-heatsink", "38.55", 4)  # a lot of four at $154.20
PRICES = PartPrices(load_parts(), {"ocp-power-shelf": [SHELF], "sxm2-heatsink": [HEATSINKS]})


def plans_for(offers: list[Offer], prices: PartPrices = PRICES, **target: object) -> list:
    return plan_rigs(offers, SKUS, RULES, Target(**target), parts=prices)  # type: ignore[arg-type]


def test_a_barebone_t181_plan_adds_power_shelf_cpus_coolers_ram_and_heatsinks():
    host = offer(T181, "700", config=BARE)
    modules = [offer(V100, "150") for _ in range(4)]
    (plan,) = plans_for([host, *modules], vram_gb=64)

    assert [(b.item, b.price, b.source, b.item_id) for b in plan.bom] == [
        ("OCP 12 V power shelf", Decimal("267.67"), "listing", SHELF.item_id),
        ("2 CPUs (xeon-scalable)", Decimal("50.00"), "estimate", None),
        ("2 CPU coolers (xeon-scalable)", Decimal("50.00"), "estimate", None),
        ("96 GB RAM", Decimal("105.60"), "estimate", None),
        ("4 SXM2 heatsinks", Decimal("154.20"), "listing", HEATSINKS.item_id),
    ]
    assert plan.total == Decimal("700") + 4 * Decimal("150") + Decimal("627.47")
    text = render_plans_text([plan], NOW)
    assert f"needs OCP 12 V power shelf: $267.67 (listing {SHELF.item_id})" in text
    assert "or guide 000's DIY way: server PSUs with their 12 V pads wired" in text
    assert "needs 96 GB RAM: $105.60 (estimate)" in text
    (shelf, *_rest) = render_plan_json(plan)["bom"]  # type: ignore[misc]
    assert shelf["source"] == "listing" and shelf["price"] == 267.67


ESC4000 = "asus-esc4000-g3"
P100_PCIE = "nvidia-tesla-p100-pcie-16gb"


def coolers(title: str, host_sku: str = ESC4000, module: str = P100_PCIE) -> list[tuple]:
    """The CPU-cooler lines of the one plan for a host whose listing says ``title``."""
    host = offer(host_sku, "400", config=parse_server_config(title))
    (plan,) = plans_for([host, *(offer(module, "100") for _ in range(4))], vram_gb=64)
    return [(b.item, b.units, b.price) for b in plan.bom if "CPU coolers" in b.item]


def test_cpu_coolers_are_budgeted_where_the_listing_lacks_them():
    # a PCIe host's heatsinks are its CPU coolers: "no heatsinks" means buying them
    assert coolers("ASUS ESC4000 G3 2x E5-2680 v4 128GB no heatsinks") == [
        ("2 CPU coolers (xeon-e5-v3v4)", 2, Decimal("30.00"))
    ]
    # named for themselves, in any marketplace's words
    assert coolers("ASUS ESC4000 G3 Barebone ohne CPU-Kühler")[0][1] == 2
    # a barebone sold without CPUs seldom keeps their coolers, unless it says so
    assert coolers("ASUS ESC4000 G3 Barebone")[0][1] == 2
    assert coolers("ASUS ESC4000 G3 Barebone with heatsinks") == []
    assert coolers("ASUS ESC4000 G3 Barebone with CPU heatsinks") == []
    # installed CPUs come under their coolers
    assert coolers("ASUS ESC4000 G3 2x E5-2680 v4 128GB") == []


def test_an_sxm_host_s_heatsinks_are_its_modules_not_its_cpu_coolers():
    """On a T181-G20 "No Heatsinks" is the four SXM2 heatsinks (bought as such); its
    installed CPUs keep their coolers; "no CPU heatsinks" is the CPUs' own."""
    title = "Gigabyte T181-G20 GPU Server 2x Xeon Silver 4114 64GB No GPUs No Heatsinks"
    assert coolers(title, T181, V100) == []
    title = "Gigabyte T181-G20 2x Xeon Silver 4114 64GB with SXM2 heatsinks, no CPU heatsinks"
    assert coolers(title, T181, V100) == [("2 CPU coolers (xeon-scalable)", 2, Decimal("50.00"))]


def test_without_a_listing_a_part_is_priced_at_its_documented_estimate():
    host = offer(T181, "700", config=BARE)
    modules = [offer(V100, "150") for _ in range(4)]
    (plan,) = plans_for([host, *modules], PartPrices(load_parts()), vram_gb=64)

    shelf, *_, heatsinks = plan.bom
    assert (shelf.price, shelf.source) == (Decimal("270.00"), "estimate")
    assert "fixtures/demo" in shelf.note  # where the estimate comes from
    assert (heatsinks.price, heatsinks.source) == (Decimal("180.00"), "estimate")


def test_heatsinks_are_bought_only_for_modules_that_lack_one():
    with_heatsinks = ServerConfig(heatsinks="yes", cpus=2, ram_gb=192, power_shelf=True)
    bare_modules = [offer(V100, "150", heatsink="no") for _ in range(4)]
    (plan,) = plans_for([offer(T181, "900", config=with_heatsinks), *bare_modules], vram_gb=64)
    assert plan.bom == ()  # the host's own heatsinks take them

    complete = ServerConfig(heatsinks="no", cpus=2, ram_gb=192, power_shelf=True)
    said = [offer(V100, "150", heatsink="yes") for _ in range(2)]
    unsaid = [offer(V100, "149") for _ in range(2)]
    (plan,) = plans_for([offer(T181, "900", config=complete), *said, *unsaid], vram_gb=64)
    assert [(b.item, b.units) for b in plan.bom] == [("2 SXM2 heatsinks", 2)]
    # two from a lot of four: the lot is bought whole, and the plan says two are spare
    (line,) = plan.bom
    assert line.price == Decimal("154.20") and line.note == "a lot of 4, bought whole: 2 spare"
    assert render_bom_line(line, "USD").endswith(
        f"(listing {HEATSINKS.item_id}; a lot of 4, bought whole: 2 spare)"
    )


def test_the_search_counts_a_module_s_heatsink_in_its_price():
    host = offer(T181, "700", config=ServerConfig(cpus=2, ram_gb=96, power_shelf=True))
    cheap_bare = [offer(V100, "130", heatsink="no") for _ in range(4)]  # $168.55 with one
    dearer_whole = [offer(V100, "160", heatsink="yes") for _ in range(4)]
    (plan,) = plans_for([host, *cheap_bare, *dearer_whole], vram_gb=64)
    assert {g.price for g in plan.gpus} == {Decimal("160.00")}
    assert plan.bom == ()


def test_a_complete_node_beats_its_parts_when_it_costs_less_to_run():
    # guide 000: "roughly $2000 per complete node for 64GB of VRAM"
    loaded = ServerConfig(heatsinks="yes", cpus=2, cpu_model="Gold 6138", ram_gb=192)
    node = offer(T181, "1630", config=loaded, includes=(Included(V100, 4),))
    barebone = offer(T181, "714", config=BARE)
    modules = [offer(V100, p) for p in ("150", "155", "160", "165")]  # guide: "around $150"
    first, second = plans_for([node, barebone, *modules], vram_gb=64)

    assert first.host.item_id == node.item_id and first.host.included == 4
    assert first.total == Decimal("1630") + Decimal("267.67")  # only the power shelf to add
    assert second.host.item_id == barebone.item_id  # the cheapest assembly, shown beside it
    assert second.total > first.total


def test_training_puts_five_times_the_compute_above_a_slightly_cheaper_rig():
    ready = ServerConfig(heatsinks="yes", cpus=2, ram_gb=192, power_shelf=True)
    hosts = [offer(T181, "900", config=ready), offer(T181, "900", config=ready)]
    v100s = [offer(V100, "150") for _ in range(4)]  # 4 x 125 TFLOP/s: $1,500
    p100s = [offer(P100, "100") for _ in range(4)]  # 4 x 21.2 TFLOP/s: $1,300
    training = plans_for([*hosts, *v100s, *p100s], vram_gb=64, profile="training")

    assert [p.gpu_sku for p in training] == [V100, P100]
    assert training[0].explanation.startswith("64 GB of VRAM for $1,500: $200.00 more than")
    assert "but 5.9x the FP16 TFLOP/s (5.1x per dollar)" in training[0].explanation


def test_split_root_is_never_named_as_a_merit():
    ready = ServerConfig(heatsinks="yes", cpus=2, ram_gb=192)
    host = offer("asus-esc4000-g3", "300", config=ready)
    cards = [offer("nvidia-tesla-v100-pcie-16gb", "300") for _ in range(4)]
    rtx = [offer("nvidia-rtx-3090", "640") for _ in range(3)]
    plans = plans_for([host, *cards, *rtx], vram_gb=64, limit=5)
    assert plans and all("split (dual-root)" not in p.explanation for p in plans)


ESC4000 = "asus-esc4000-g3"
P40 = "nvidia-tesla-p40"


def _esc4000_plan(title: str, prices: PartPrices) -> object:
    host = offer(ESC4000, "300", config=parse_server_config(title))
    cards = [offer(P40, "200") for _ in range(2)]
    (plan, *_) = plans_for([host, *cards], prices, vram_gb=48)
    return plan


def test_a_host_sold_without_its_psus_gets_them_from_lots_bought_whole():
    """A barebone "no PSU" got CPUs, RAM and heatsinks but never power supplies, although a
    lot of them was in the store: the ESC4000 runs on two (1+1), bought from lots of two."""
    lot_of_two = part("psu-asus-esc4000", "62.70", 2)  # $125.40 a lot
    prices = PartPrices(load_parts(), {"psu-asus-esc4000": [lot_of_two]})
    plan = _esc4000_plan("ASUS ESC4000 G3 barebone server no PSU no CPU no RAM", prices)

    (psus,) = [b for b in plan.bom if "PSU" in b.item]  # type: ignore[attr-defined]
    assert (psus.units, psus.price, psus.item_id) == (2, Decimal("125.40"), lot_of_two.item_id)
    assert psus.item == "2x Asus ESC4000 1600 W PSU"
    with_psus = _esc4000_plan("ASUS ESC4000 G3 barebone server 2x 1600W PSU", prices)
    assert not [b for b in with_psus.bom if "PSU" in b.item]  # type: ignore[attr-defined]
    assert plan.total - with_psus.total == Decimal("125.40")  # type: ignore[attr-defined]


def test_psus_in_lots_too_small_are_bought_as_several_lots_and_a_big_lot_whole():
    four = part("psu-supermicro-4u", "46.75", 4)  # $187 a lot of four
    pairs = part("psu-supermicro-4u", "60", 2)  # $120 a pair: two pairs cost $240
    host = offer(
        "supermicro-sys-4028gr-trt",
        "500",
        config=parse_server_config("Supermicro SYS-4028GR-TRT barebone without power supplies"),
    )
    cards = [offer(P40, "200") for _ in range(2)]
    prices = PartPrices(load_parts(), {"psu-supermicro-4u": [pairs, four]})
    (plan, *_) = plans_for([host, *cards], prices, vram_gb=48)

    (psus,) = [b for b in plan.bom if "PSU" in b.item]
    assert (psus.units, psus.price, psus.item_id) == (4, Decimal("187.00"), four.item_id)
    only_pairs = PartPrices(load_parts(), {"psu-supermicro-4u": [pairs]})
    (plan, *_) = plans_for([host, *cards], only_pairs, vram_gb=48)
    (psus,) = [b for b in plan.bom if "PSU" in b.item]
    assert (psus.price, psus.note) == (Decimal("240.00"), "2 lots of 2")


def test_a_psu_lot_reads_as_the_part_its_host_takes():
    parts = load_parts().parts.values()
    assert parse_part(
        "Supermicro 4028GR-TRT 2000W PWS-2K04A-1R Power Supply (Lot of 4)", parts
    ) == ("psu-supermicro-4u")
    assert parse_part("ASUS ESC4000 G4 1600W 80+ Platinum PSU (Lot of 2)", parts) == (
        "psu-asus-esc4000"
    )
    assert parse_part("Dell PowerEdge C4140 2400W power supply", parts) == "psu-server-2000w"
    assert parse_part("ASUS ESC4000 G3 Rail Kit", parts) is None


@pytest.mark.parametrize("seed", range(3))
def test_the_cheapest_of_each_lot_size_buy_what_every_listing_buys(seed):
    """A bill of materials reads only the cheapest listing of each lot size of a part
    (``cheapest_lots``): every count of heatsinks, and the one heatsink a plan adds, costs
    the same and comes from the same listing as from every listing, equal prices included."""
    rng = random.Random(seed)
    for _ in range(40):
        offers = [
            part(
                HEATSINK_CODE, rng.choice(["30", "38.55", "41", "45.10"]), rng.choice([1, 2, 4, 8])
            )
            for _ in range(rng.randrange(1, 30))
        ]
        every = PartPrices(load_parts(), {HEATSINK_CODE: offers})
        cheapest = PartPrices(load_parts(), {HEATSINK_CODE: cheapest_lots(offers)})
        assert len(cheapest.offers[HEATSINK_CODE]) <= 4
        assert cheapest.heatsink() == every.heatsink()
        for count in range(1, 17):
            assert heatsink_line(count, cheapest) == heatsink_line(count, every), count
