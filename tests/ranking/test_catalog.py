"""The catalog data files: every shared SKU present, the published figures, sources, and errors."""

from __future__ import annotations

import csv
import json
import tomllib
from typing import TYPE_CHECKING

import pytest

from bench import SHARED
from core.errors import NormalizeError
from core.models import Category
from ranking.catalog import CATALOG_DIR, Catalog, Sku, load_catalog
from tests.conftest import missing_shared

if TYPE_CHECKING:
    from pathlib import Path

SHARED_SKUS = SHARED / "catalog-skus.csv"
CATALOG = load_catalog()


def _shared_rows() -> list[dict[str, str]]:
    if not SHARED_SKUS.exists():
        missing_shared(f"{SHARED_SKUS} is not present next to the project")
    with SHARED_SKUS.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_every_shared_sku_is_in_the_catalog_with_its_category_and_name() -> None:
    for row in _shared_rows():
        sku = CATALOG.get(row["sku"])
        assert sku is not None, row["sku"]
        assert (sku.category.value, sku.name) == (row["category"], row["name"])


# (sku, field, published figure, tolerance): TFLOP/s hold to rounding, GB and GB/s exactly
PUBLISHED = [
    ("nvidia-rtx-4090", "fp16_tensor_tflops", 165, 0.5),
    ("nvidia-rtx-4090", "mem_bandwidth_gbs", 1008, 0),
    ("nvidia-rtx-3090", "fp16_tensor_tflops", 71, 0.5),
    ("nvidia-rtx-3090", "mem_bandwidth_gbs", 936, 0),
    # the reference derives 25.5 (28 SM x 1.777 GHz x 512); the issue publishes it as 25
    ("nvidia-rtx-3060-12gb", "fp16_tensor_tflops", 25, 0.5),
    ("nvidia-rtx-3060-12gb", "mem_bandwidth_gbs", 360, 0),
    ("nvidia-tesla-p40", "fp32_tflops", 12, 0.5),
    # 347 = 384-bit x 7.23 Gbps; NVIDIA's datasheet rounds it down to 346 (see the row's notes)
    ("nvidia-tesla-p40", "mem_bandwidth_gbs", 347, 0),
    ("nvidia-tesla-p40", "vram_gb", 24, 0),
    ("nvidia-tesla-m40-24gb", "fp32_tflops", 7, 0.5),
    ("nvidia-tesla-m40-24gb", "mem_bandwidth_gbs", 288, 0),
    ("nvidia-tesla-m40-24gb", "vram_gb", 24, 0),
    ("nvidia-tesla-k80", "fp32_tflops", 4, 0.5),
    ("nvidia-tesla-k80", "mem_bandwidth_gbs", 240, 0),
    ("nvidia-tesla-k80", "vram_gb", 12, 0),
    ("nvidia-tesla-k80", "gpus_per_board", 2, 0),
]


@pytest.mark.parametrize(("sku", "field", "published", "tolerance"), PUBLISHED)
def test_published_figures_hold(sku: str, field: str, published: float, tolerance: float) -> None:
    assert getattr(CATALOG[sku], field) == pytest.approx(published, abs=tolerance)


def test_crippled_fp16_cards_have_no_tensor_figure_and_a_tiny_fp16_one() -> None:
    p40 = CATALOG["nvidia-tesla-p40"]
    assert p40.fp16_tensor_tflops is None
    assert p40.fp16_tflops is not None
    assert p40.fp32_tflops is not None
    assert p40.fp16_tflops < p40.fp32_tflops / 32
    assert "346" in p40.notes


@pytest.mark.parametrize(
    ("sku", "interconnect"),
    [
        ("supermicro-sys-4027gr-tr", "split-root"),
        ("supermicro-sys-4028gr-tr", "split-root"),
        ("supermicro-sys-4028gr-trt", "split-root"),
        ("supermicro-sys-4028gr-tr2", "single-root"),
        ("supermicro-sys-4028gr-trt2", "single-root"),
        ("supermicro-x9drg-o-pcie", "split-root"),
        ("supermicro-x10drg-o-pcie", "single-root"),
        ("gigabyte-t181-g20", "nvlink"),
        ("inspur-nf5288m5", "nvlink"),
    ],
)
def test_topology_follows_the_model_suffix(sku: str, interconnect: str) -> None:
    assert CATALOG[sku].interconnect == interconnect


def test_t181_g20_warns_about_its_external_12v_supply() -> None:
    t181 = CATALOG["gigabyte-t181-g20"]
    assert (t181.gpu_slots, t181.gpu_form_factor) == (4, "SXM2")
    assert "12 V" in (t181.power_notes or "")


def test_every_row_cites_a_source_and_unverified_ones_say_so() -> None:
    reference = SHARED / "reference"
    if not reference.exists():
        missing_shared(f"{reference} (the shared reference tables) is not present")
    marked = {}
    for name in ("gpu-specs.csv", "server-specs.csv"):
        with (reference / name).open(encoding="utf-8", newline="") as handle:
            marked.update({r["sku"]: "unverified" in r["source"] for r in csv.DictReader(handle)})
    for sku in CATALOG:
        assert sku.source.strip(), sku.sku
        if marked.get(sku.sku):
            assert "unverified" in sku.source, sku.sku


def test_gpu_and_host_fields_are_filled_for_their_category() -> None:
    for sku in CATALOG:
        if sku.category is Category.GPU:
            assert sku.vram_gb and sku.mem_bandwidth_gbs and sku.fp32_tflops, sku.sku
            assert sku.form_factor in {"PCIe", "SXM2", "SXM4", "SXM5"}, sku.sku
        else:
            assert sku.gpu_slots and sku.gpu_form_factor, sku.sku
            assert sku.interconnect in {"nvlink", "single-root", "split-root"}, sku.sku


def test_as_json_has_the_catalog_contract_fields() -> None:
    rows = json.loads(json.dumps(CATALOG.as_json()))
    assert len(rows) == len(CATALOG)
    by_sku = {row["sku"]: row for row in rows}
    gpu, server = by_sku["nvidia-tesla-v100-sxm2-16gb"], by_sku["supermicro-sys-4028gr-tr2"]
    assert {k: gpu[k] for k in ("category", "vram_gb", "form_factor", "gpus_per_board")} == {
        "category": "gpu", "vram_gb": 16.0, "form_factor": "SXM2", "gpus_per_board": 1
    }  # fmt: skip
    assert {
        "mem_bandwidth_gbs",
        "fp16_tensor_tflops",
        "fp32_tflops",
        "name",
        "source",
    } <= gpu.keys()
    assert (server["gpu_slots"], server["gpu_form_factor"], server["interconnect"]) == (
        8,
        "PCIe",
        "single-root",
    )


def test_catalog_is_immutable_and_behaves_like_a_collection() -> None:
    assert isinstance(CATALOG, Catalog)
    assert load_catalog() is CATALOG
    assert CATALOG.get("no-such-sku") is None
    with pytest.raises(KeyError):
        CATALOG["no-such-sku"]
    assert len(list(CATALOG)) == len(CATALOG)
    assert all(isinstance(s, Sku) for s in CATALOG)
    with pytest.raises(TypeError):
        CATALOG._skus["x"] = CATALOG["nvidia-tesla-p40"]  # type: ignore[index]


def test_every_alias_family_and_part_names_the_packaged_catalog() -> None:
    aliases = tomllib.loads((CATALOG_DIR / "aliases.toml").read_text("utf-8"))
    families = {sku.family for sku in CATALOG}
    assert set(aliases["families"]) <= families
    assert set(aliases["defaults"]) | set(aliases["other_variants"]) <= families
    assert all(sku in CATALOG for sku in aliases["parts"].values())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("sku,category,name,vendor,source\nx,gpu,X,NVIDIA,here\n", "row 2"),
        ("sku,category,name,vendor,source\nx,tablet,X,NVIDIA,here\n", "tablet"),
        ("sku,category,name,vendor,source,vram_gb\nx,gpu,X,NVIDIA,here,lots\n", "lots"),
        ("sku,category,name,vendor,source\nx,server,X,Dell,\n", "source"),
        ("sku,category,name,vendor,source\nx,gpu,X,NVIDIA,here,extra\n", "columns"),
    ],
)
def test_a_bad_data_file_names_the_file_and_row(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text, "utf-8")
    with pytest.raises(NormalizeError, match=message) as error:
        load_catalog(path)
    assert "bad.csv" in str(error.value)


def test_a_repeated_sku_is_an_error(tmp_path: Path) -> None:
    rows = (CATALOG_DIR / "gpus.csv").read_text("utf-8").splitlines()
    (tmp_path / "a.csv").write_text("\n".join([rows[0], rows[1], rows[1]]) + "\n", "utf-8")
    with pytest.raises(NormalizeError, match="duplicate"):
        load_catalog(tmp_path)
