"""The title normalizer: every distinction of issue 4 as a table, and junk that never raises."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.models import Category, Included, Kind
from ranking.catalog import load_catalog
from ranking.titles.normalize import Normalizer, normalize_title

CASES = tomllib.loads((Path(__file__).with_name("normalizer_cases.toml")).read_text("utf-8"))[
    "case"
]
CATALOG = load_catalog()


def _expected_category(case: dict[str, object]) -> Category | None:
    if "category" in case:
        return Category(str(case["category"]))
    sku = case.get("sku")
    return CATALOG[str(sku)].category if sku else None


@pytest.mark.parametrize("case", CASES, ids=[str(c["title"])[:60] or "<empty>" for c in CASES])
def test_title_normalizes_to_what_a_buyer_would_say_it_is(case: dict[str, object]) -> None:
    got = normalize_title(str(case["title"]))
    includes: list[str] = case.get("includes", [])  # type: ignore[assignment]
    expected_includes = {(sku, int(n)) for sku, _, n in (i.partition(":") for i in includes)}
    assert (got.sku, got.kind, got.quantity, got.category) == (
        case.get("sku"),
        Kind(str(case.get("kind", "item"))),
        case.get("quantity", 1),
        _expected_category(case),
    )
    assert {(i.sku, i.quantity) for i in got.includes} == expected_includes


def test_cases_cover_every_kind_and_category_and_name_real_skus() -> None:
    kinds = {str(c.get("kind", "item")) for c in CASES}
    assert kinds == {k.value for k in Kind}
    assert {_expected_category(c) for c in CASES} >= set(Category)
    for case in CASES:
        named = [case["sku"]] if case.get("sku") else []
        named += [str(i).partition(":")[0] for i in case.get("includes", [])]
        assert all(sku in CATALOG for sku in named), case


def test_condition_from_item_specifics_marks_for_parts() -> None:
    got = normalize_title(
        "NVIDIA Tesla P40 24GB", specifics={"Condition": "For parts or not working"}
    )
    assert (got.sku, got.kind) == ("nvidia-tesla-p40", Kind.FOR_PARTS)


@pytest.mark.parametrize(
    ("condition", "kind"),
    [
        # eBay's "for parts" condition on each marketplace, read with the title's fault words
        ("For parts or not working", Kind.FOR_PARTS),
        ("Als Ersatzteil / defekt", Kind.FOR_PARTS),
        ("Pour pièces détachées ou ne fonctionne pas", Kind.FOR_PARTS),
        ("Solo per ricambi o non funzionante", Kind.FOR_PARTS),
        ("Para desguace o no funciona", Kind.FOR_PARTS),
        ("Voor onderdelen of niet werkend", Kind.FOR_PARTS),
        # every other condition leaves the card a card
        ("Pre-Owned", Kind.ITEM),
        ("Gebraucht", Kind.ITEM),
        ("Occasion - Très bon état", Kind.ITEM),
        ("Usato", Kind.ITEM),
        ("Seller refurbished", Kind.ITEM),
        ("Open box", Kind.ITEM),
        (None, Kind.ITEM),
    ],
)
def test_the_listings_condition_says_broken_in_its_marketplaces_words(condition, kind) -> None:
    got = normalize_title("NVIDIA Tesla P40 24GB", condition=condition)
    assert (got.sku, got.kind) == ("nvidia-tesla-p40", kind)


def test_a_broken_condition_leaves_what_is_not_a_card_what_it_is() -> None:
    broken = "For parts or not working"
    assert normalize_title("Heatsink for Tesla V100 SXM2", condition=broken).kind is Kind.ACCESSORY
    assert normalize_title("GeForce GTX 1080 Ti 11GB", condition=broken).kind is Kind.OTHER


@pytest.mark.parametrize(
    "specifics",
    [
        {"Memory Size": "32 GB"},
        {"Speichergröße": "32 GB"},  # each marketplace names the specific in its language
        {"Taille de la mémoire": "32 Go"},
        {"Dimensioni memoria": "32 GB"},
        {"Tamaño de la memoria": "32 GB"},
        {"GRAPHICS MEMORY SIZE ": "32GB"},
    ],
)
def test_memory_size_from_item_specifics_picks_the_variant(specifics) -> None:
    got = normalize_title("NVIDIA Tesla V100 SXM2 GPU", specifics=specifics)
    assert got.sku == "nvidia-tesla-v100-sxm2-32gb"


def test_a_listing_in_a_laptop_category_is_never_a_card() -> None:
    assert normalize_title("RTX 3080 16GB", category_id="175672").kind is Kind.OTHER


def test_a_normalizer_uses_the_catalog_it_is_given(tmp_path: Path) -> None:
    source = Path(__file__).resolve().parents[3] / "ranking" / "catalog"
    (tmp_path / "gpus.csv").write_text((source / "gpus.csv").read_text("utf-8"), "utf-8")
    normalizer = Normalizer(load_catalog(tmp_path))
    assert normalizer.normalize("Tesla P40 24GB").sku == "nvidia-tesla-p40"
    assert normalizer.normalize("Supermicro SYS-4028GR-TRT2").sku is None


def test_result_serialises_to_the_normalize_contract() -> None:
    got = normalize_title("Gigabyte T181-G20 4x V100 SXM2 16GB OCP server")
    assert got.includes == (Included("nvidia-tesla-v100-sxm2-16gb", 4),)
    assert got.as_json() == {
        "title": "Gigabyte T181-G20 4x V100 SXM2 16GB OCP server",
        "sku": "gigabyte-t181-g20",
        "category": "server",
        "kind": "item",
        "quantity": 1,
        "includes": [{"sku": "nvidia-tesla-v100-sxm2-16gb", "quantity": 4}],
        "confidence": got.as_json()["confidence"],
        "config": {
            "heatsinks": "yes",  # installed SXM2 modules sit under their heatsinks
            "cpu_coolers": "unknown",
            "cpus": None,
            "cpu_model": None,
            "ram_gb": None,
            "psus": None,
            "psu_watts": None,
            "power_shelf": False,
            "drives": None,
            "board": None,
        },
        "part": None,
    }
    assert 0.5 < got.confidence <= 1


_JUNK_PIECES = st.sampled_from(
    ["<b>", "</b>", "&amp;", "&lt;", "🔥", "✅", "V100", "SXM2", "x8", "(2)", "Lot of", "4x", "GB",
     "for parts", "heatsink", "4028GR-TR2", "X10DRG-O+-CPU", "\x00", "\u202e", "Ⅻ", "测试", "ร้าน",
     "-", "/", "  ", "900-2G503-0000-000", "#", "x", "w/", "with", "for"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(max_size=300),
        st.lists(_JUNK_PIECES | st.text(max_size=8), max_size=40).map(" ".join),
    )
)
def test_junk_titles_never_raise_and_stay_in_range(title: str) -> None:
    got = normalize_title(title)
    assert got.title == title
    assert got.quantity >= 1
    assert 0.0 <= got.confidence <= 1.0
    assert got.sku is None or got.sku in CATALOG


@pytest.mark.parametrize(
    "title",
    [
        "A" * 10_000,
        "V100 " * 2_000,
        "x8 " * 3_000,
        "🔥" * 5_000,
        "\x00\x01\x02" * 3_000,
        "<" * 10_000,
    ],
)
def test_huge_titles_never_raise(title: str) -> None:
    assert normalize_title(title).quantity >= 1


@pytest.mark.parametrize(
    ("title", "kind"),
    [
        ("NVIDIA Tesla P40 24GB GPU No Video Output (Compute Only)", "item"),
        ("NVIDIA Tesla V100 SXM2 16GB no display outputs", "item"),
        ("NVIDIA GeForce RTX 3090 24GB No Video Output", "for_parts"),  # a gaming card: broken
        ("NVIDIA Tesla P40 24GB artifacts, no video", "for_parts"),  # artifacts are a fault
    ],
)
def test_no_video_output_is_a_fault_only_on_a_card_that_has_outputs(title, kind):
    assert normalize_title(title).kind.value == kind
