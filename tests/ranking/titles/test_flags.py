"""Risk signals: the wording and listing facts a buyer checks, each an exclusion or a warning."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from core.models import SEVERITIES
from ranking.titles.flags import flag_listing, load_signals
from tests.support.rows import active

SIGNALS = load_signals()
README = Path(__file__).resolve().parents[3] / "README.md"


def codes(title: str, **row: object) -> list[str]:
    flags = flag_listing(
        active("nvidia-tesla-v100-sxm2-16gb", "100", title=title, **row),  # type: ignore[arg-type]
        SIGNALS,
        min_seller_feedback=10,
        min_seller_positive_pct=Decimal(0),
    )
    return [f.code for f in flags]


@pytest.mark.parametrize(
    ("title", "code"),
    [
        ("NVIDIA Tesla V100 SXM2 16GB GPU Read Description", "read_description"),
        ("Nvidia Geforce RTX 3090 Founders Edition *READ*", "read_description"),
        ("Tesla P40 24GB - please read - server pull", "read_description"),
        ("Tesla P100 16GB untested pulled from working server", "untested"),
        ("RTX 3090 sold AS-IS no returns", "as_is"),
        ("RTX 3090 sold AS-IS no returns", "no_returns"),
        ("RTX 4090 Founders Edition box only", "box_only"),
        ("Picture of RTX 3090 Founders Edition", "picture_of"),
        ("Tesla V100 SXM2 for parts not working", "for_parts"),
        ("RTX 3090 FE no display artifacts", "no_display"),
        ("Dell C4140 server BIOS locked", "locked"),
        ("Supermicro 4028GR-TRT2 Barebone Freight Only Pickup OK Dallas TX", "freight_only"),
        ("Gigabyte T181-G20 node LOCAL PICKUP ONLY", "pickup_only"),
        ("7TGM9 Nvidia Tesla P100 SXM2 16GB GPU Accelerator Card W/O Heatsink", "no_heatsink"),
        ("Gigabyte T181-G20 GPU Server 2x Xeon Silver 4114 64GB No Heatsinks", "no_heatsink"),
        ("Tesla V100 SXM2 32GB module without heat sink", "no_heatsink"),
        ("Tesla V100 SXM2 16GB (heatsink not included)", "no_heatsink"),
    ],
)
def test_title_wording_raises_its_signal(title, code):
    assert code in codes(title)


@pytest.mark.parametrize(
    "title",
    [
        "NVIDIA Tesla V100 SXM2 16GB HBM2 GPU Tested Working",
        "Supermicro 4028GR-TRT2 8x GPU Server 2x E5-2680 v4",
        "NVIDIA RTX 3090 Founders Edition - Ready to ship",  # "ready" is not "read"
        "Tesla P40 24GB unlocked vGPU",  # "unlocked" is not "locked"
        "Tesla V100 SXM2 16GB with heatsink",
        "Gigabyte T181-G20 OCP Server Node includes 4x SXM2 heatsinks",
    ],
)
def test_plain_titles_raise_nothing(title):
    assert codes(title) == []


@pytest.mark.parametrize(
    ("row", "code"),
    [
        ({"seller_feedback": 0}, "seller_no_feedback"),
        ({"seller_feedback": 4}, "seller_low_feedback"),
        ({"location": "Shenzhen, China"}, "ships_from_abroad"),
    ],
)
def test_listing_facts_raise_their_signal(row, code):
    assert codes("Tesla V100 SXM2 16GB", **row) == [code]


@pytest.mark.parametrize(
    ("sku", "family", "expected"),
    [
        ("nvidia-tesla-k80", "k80", ["legacy_gpu", "software_support"]),
        ("nvidia-tesla-p100-pcie-16gb", "p100", ["software_support"]),
        ("nvidia-rtx-3090", "3090", []),
    ],
)
def test_cards_the_guides_call_obsolete_carry_a_warning(sku, family, expected):
    flags = flag_listing(
        active(sku, "40"), SIGNALS, family=family, min_seller_feedback=10,
        min_seller_positive_pct=Decimal(0),
    )  # fmt: skip
    assert [f.code for f in flags] == expected


def test_a_us_city_is_home_for_ebay_us():
    assert codes("Tesla V100 SXM2 16GB", location="Dallas, TX") == []


def test_every_signal_is_decided_and_listed_in_the_readme():
    readme = README.read_text(encoding="utf-8")
    for signal in SIGNALS.by_code.values():
        assert signal.severity in SEVERITIES
        assert f"`{signal.code}`" in readme, f"README's risk-signal table lacks {signal.code}"
        assert signal.severity != "exclude" or signal.penalty == 0


@pytest.mark.parametrize(
    ("family", "tag"),
    [
        ("k80", "CUDA ≤ 11 — Kepler: CUDA 11.x at most (gone from CUDA 12), driver branch R470"),
        ("p40", "CUDA ≤ 12 — Pascal: CUDA 12.x at most (gone from CUDA 13), driver branch R580"),
        ("v100", "CUDA ≤ 12 — Volta: CUDA 12.x at most (gone from CUDA 13), driver branch R580"),
        ("mi50", "ROCm: deprecated — gfx906: deprecated in ROCm, maintenance only"),
    ],
)
def test_every_card_current_software_left_behind_says_what_it_is_stuck_on(family, tag):
    flags = flag_listing(
        active("x", "40"), SIGNALS, family=family, min_seller_feedback=10,
        min_seller_positive_pct=Decimal(0),
    )  # fmt: skip
    assert [f.label for f in flags if f.code == "software_support"] == [tag]


def test_every_catalog_family_left_behind_has_a_cited_source():
    import tomllib

    from ranking.catalog import load_catalog

    path = README.parent / "ranking" / "catalog" / "support.toml"
    table = tomllib.loads(path.read_text("utf-8"))
    families = {s.family for s in load_catalog()}
    for name, arch in table.items():
        assert arch["source"].startswith("https://"), name
        assert set(arch["families"]) & families, f"{name}: no catalog family"
