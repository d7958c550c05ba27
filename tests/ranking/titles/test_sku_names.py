"""A SKU as a person types it is read as the model it names, and a name that is not one gets
the SKUs it most likely means, by meaning before spelling."""

from __future__ import annotations

import pytest

from ranking.catalog import load_catalog
from ranking.titles import read_sku_name

CATALOG = load_catalog()


@pytest.mark.parametrize(
    ("typed", "sku"),
    [
        ("nvidia-tesla-p40", "nvidia-tesla-p40"),  # the id
        ("NVIDIA-TESLA-P40", "nvidia-tesla-p40"),  # any case
        ("tesla-p40", "nvidia-tesla-p40"),  # without the vendor
        ("p40", "nvidia-tesla-p40"),  # the model, as a title names it
        ("NVIDIA Tesla P40 24GB", "nvidia-tesla-p40"),  # the catalog's own name
        ("p4", "nvidia-tesla-p4"),
        ("rtx_3090", "nvidia-rtx-3090"),
        ("v100 sxm2 32gb", "nvidia-tesla-v100-sxm2-32gb"),
        ("esc4000 g3", "asus-esc4000-g3"),
        ("SYS-4028GR-TRT", "supermicro-sys-4028gr-trt"),
    ],
)
def test_a_name_that_means_one_sku_is_that_sku(typed, sku):
    read = read_sku_name(typed, CATALOG)
    assert read.sku == sku
    assert read.exact == (typed == sku)


def test_a_letter_typed_for_a_digit_is_asked_about_as_the_model_meant():
    """p4O is the P40 (a 24 GB card), not the 8 GB P4 a prefix match would give."""
    read = read_sku_name("nvidia-tesla-p4O", CATALOG)
    assert read.sku is None
    assert read.suggestions == ("nvidia-tesla-p40",)


@pytest.mark.parametrize(
    ("typed", "every_one_of"),
    [
        ("v100", {"nvidia-tesla-v100-sxm2-16gb", "nvidia-tesla-v100-pcie-32gb"}),
        ("a100", {"nvidia-a100-sxm4-80gb", "nvidia-a100-pcie-40gb"}),
        ("4028", {"supermicro-sys-4028gr-trt", "supermicro-sys-4028gr-tr2"}),
    ],
)
def test_a_model_with_several_skus_names_them_all(typed, every_one_of):
    read = read_sku_name(typed, CATALOG)
    assert read.sku is None
    assert every_one_of <= set(read.suggestions)
    assert all(typed in s for s in read.suggestions)


def test_a_misspelt_variant_suggests_its_models_skus_closest_first():
    read = read_sku_name("nvidia-tesla-v100-sxm9", CATALOG)
    assert read.sku is None
    assert set(read.suggestions[:2]) == {
        "nvidia-tesla-v100-sxm2-16gb",
        "nvidia-tesla-v100-sxm2-32gb",
    }
    assert not any("p100" in s for s in read.suggestions)


def test_a_name_of_nothing_in_the_catalog_suggests_nothing():
    assert read_sku_name("rtx-9090", CATALOG).suggestions == ()
    assert read_sku_name("banana", CATALOG).sku is None


def test_what_a_wrong_name_is_told_is_worded_once_for_the_cli_and_the_config():
    assert read_sku_name("p40", CATALOG).hint == "did you mean nvidia-tesla-p40?"
    assert read_sku_name("nvidia-tesla-p4O", CATALOG).hint == "did you mean nvidia-tesla-p40?"
    assert read_sku_name("a100", CATALOG).hint.startswith("it could be any of: nvidia-a100-")
    assert read_sku_name("banana", CATALOG).hint == "`rigscout catalog` lists them all"
