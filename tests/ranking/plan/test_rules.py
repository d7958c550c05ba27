"""The planner's fit data: every figure sourced, every host and card of the catalog covered."""

from __future__ import annotations

import csv
from decimal import Decimal

import pytest

from bench import SHARED
from core.errors import ConfigError
from core.models import Category
from ranking.catalog import load_catalog
from ranking.plan.records import Offer, Target
from ranking.plan.rules import FIT_FILE, load_fits, load_plan_rules, parse_fit_row
from ranking.plan.search import plan_rigs
from tests.conftest import missing_shared

CATALOG = list(load_catalog())
RULES = load_plan_rules()
SHARED_NEW_SKUS = (
    "supermicro-sys-4029gp-tvrt",
    "supermicro-sys-1029gq-tvrt",
    "gigabyte-g481-s80",
    "dell-poweredge-c4140-pcie",
    "hpe-apollo-6500-gen10",
    "asus-esc8000-g4",
    "lenovo-thinksystem-sr670",
    "supermicro-sys-4029gp-trt3",
    "nvidia-rtx-2080-ti-22gb",
    "nvidia-rtx-4090-48gb",
    "nvidia-h100-nvl-94gb",
    "amd-instinct-mi210",
)


def test_every_server_and_board_of_the_catalog_says_how_it_is_powered():
    for sku in CATALOG:
        if sku.category is not Category.GPU:
            assert RULES.fit(sku.sku).power_supply, sku.sku


def test_every_pcie_card_of_the_catalog_has_a_width_and_a_cooling():
    for sku in CATALOG:
        if sku.category is Category.GPU and sku.form_factor == "PCIe":
            fit = RULES.fit(sku.sku)
            assert fit.slot_width and fit.cooling, sku.sku


def test_card_widths_agree_with_the_reference_table_and_cite_what_it_read():
    """Where the reference table read its sources, the width is its width and cites them."""
    table = SHARED / "reference" / "gpu-specs.csv"
    if not table.exists():
        missing_shared(f"{table} is not present next to the project")
    with table.open(encoding="utf-8", newline="") as handle:
        reference = {row["sku"]: row for row in csv.DictReader(handle)}
    with FIT_FILE.open(encoding="utf-8", newline="") as handle:
        fits = [row for row in csv.DictReader(handle) if row["slot_width"]]
    checked = 0
    for row in fits:
        if row["sku"] == "amd-radeon-vii":  # the table's width is from a spec it did not read
            continue
        ref = reference.get(row["sku"])
        read = [s for s in (ref or {}).get("source", "").split(" | ") if s.startswith("http")]
        if ref is None or not read:
            continue  # not in the table, or the table's own source is unverified
        assert row["slot_width"] == ref["slots"], row["sku"]
        if row["card_source"].startswith("reference gpu-specs.csv"):
            assert read[0] in row["card_source"], row["sku"]
        checked += 1
    assert checked >= 50


def test_fit_rows_cover_the_skus_being_added_to_the_catalog():
    assert all(sku in RULES.fits for sku in SHARED_NEW_SKUS)


def test_fit_rows_whose_sku_the_catalog_lacks_are_harmless():
    skus = {s.sku: s for s in CATALOG}
    offers = [
        Offer(1, "1", "https://www.ebay.com/itm/1", "x", "not-in-the-catalog", 1, Decimal(10)),
        Offer(2, "2", "https://www.ebay.com/itm/2", "3090", "nvidia-rtx-3090", 1, Decimal(700)),
    ]
    (plan,) = plan_rigs(offers, skus, RULES, Target(vram_gb=24))
    assert plan.gpu_sku == "nvidia-rtx-3090"


def test_the_t181_needs_a_power_shelf_and_a_3090_is_three_slots_wide():
    assert RULES.fit("gigabyte-t181-g20").power_supply == "ocp-12v"
    assert RULES.fit("nvidia-rtx-3090").slot_width == 3
    with FIT_FILE.open(encoding="utf-8") as handle:
        row = next(r for r in csv.DictReader(handle) if r["sku"] == "nvidia-rtx-3090")
    assert "hardwareluxx" in row["card_source"]


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({"sku": "x", "slot_width": "2", "card_source": ""}, "need a card_source"),
        ({"sku": "x", "psu_watts": "1600", "psu_source": ""}, "need a psu_source"),
        ({"sku": "x", "power_supply": "dc", "psu_source": "s"}, "power_supply must be one of"),
        ({"sku": "x", "slot_width": "two", "card_source": "s"}, "not a whole number"),
        ({"sku": "", "slot_width": "2"}, "missing 'sku'"),
    ],
)
def test_a_bad_fit_row_is_a_clear_error(row, message):
    with pytest.raises(ConfigError, match=message):
        parse_fit_row(row, "fit.csv, row 2")


def test_a_duplicate_fit_row_names_the_file_and_row(tmp_path):
    path = tmp_path / "fit.csv"
    path.write_text("sku,slot_width,card_source\nx,2,s\nx,2,s\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"fit.csv, row 3: duplicate SKU 'x'"):
        load_fits(path)
