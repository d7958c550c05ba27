"""The user's own catalog: a card added in a file next to rigscout.toml, overrides, and mistakes."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from core.errors import ConfigError
from ranking.titles.normalize import normalize_title
from ranking.titles.user_catalog import load_user_catalog, user_normalizer
from rigscout.cli.main import cli
from rigscout.config.load import load_settings

if TYPE_CHECKING:
    from pathlib import Path

A800 = """
[[sku]]
sku = "nvidia-a800-pcie-40gb"
category = "gpu"
name = "NVIDIA A800 PCIe 40GB"
vendor = "NVIDIA"
aliases = ["a800"]
vram_gb = 40
mem_bandwidth_gbs = 1555
fp16_tensor_tflops = 312
fp32_tflops = 19.5
bf16 = true
tdp_w = 250
form_factor = "PCIe"
source = "https://www.nvidia.com/en-us/data-center/a800/ (datasheet)"
"""


def write(tmp_path: Path, text: str, name: str = "my-skus.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_card_added_in_the_users_file_is_recognised_in_titles(tmp_path: Path) -> None:
    title = "NVIDIA A800 40GB PCIe Tensor Core GPU"
    assert normalize_title(title).sku is None  # the packaged catalog does not carry it
    normalizer = user_normalizer([write(tmp_path, A800)])
    got = normalizer.normalize(title)
    assert (got.sku, got.kind.value) == ("nvidia-a800-pcie-40gb", "item")
    assert normalizer.normalize("Lot of 2 NVIDIA A800 40GB").quantity == 2
    assert normalizer.catalog["nvidia-a800-pcie-40gb"].fp16_tensor_tflops == 312
    # the packaged SKUs still match as before
    assert normalizer.normalize("NVIDIA Tesla P40 24GB").sku == "nvidia-tesla-p40"


def test_an_override_changes_only_the_fields_given_and_must_cite_a_source(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[[sku]]\nsku = "nvidia-tesla-p40"\noverride = true\nmem_bandwidth_gbs = 346\n'
        'source = "NVIDIA P40 datasheet (346 GB/s)"\n',
    )
    user = load_user_catalog([path])
    p40 = user.catalog["nvidia-tesla-p40"]
    assert (p40.mem_bandwidth_gbs, p40.vram_gb, p40.family) == (346, 24, "p40")
    assert (user.added, user.overridden) == ((), ("nvidia-tesla-p40",))
    assert len(user.catalog) == len(load_user_catalog([]).catalog)


def test_extra_spellings_and_part_numbers_for_cards_we_carry(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        '[aliases]\np40 = ["tesla pascal forty"]\n\n[parts]\n"699-2G610" = "nvidia-tesla-p40"\n',
    )
    normalizer = user_normalizer([path])
    assert normalizer.normalize("Tesla Pascal Forty 24GB").sku == "nvidia-tesla-p40"
    assert normalizer.normalize("NVIDIA 699-2G610-0200 GPU 24GB").sku == "nvidia-tesla-p40"


def test_a_model_listed_as_not_carried_becomes_carried_once_the_user_adds_it(
    tmp_path: Path,
) -> None:
    mi250 = (
        A800.replace("nvidia-a800-pcie-40gb", "amd-instinct-mi250")
        .replace('"a800"', '"mi250"')
        .replace("NVIDIA A800 PCIe 40GB", "AMD Instinct MI250 128GB")
        .replace('form_factor = "PCIe"', 'form_factor = "OAM"')
    )
    normalizer = user_normalizer([write(tmp_path, mi250)])
    assert normalize_title("AMD Instinct MI250 OAM").kind.value == "other"
    assert normalizer.normalize("AMD Instinct MI250 OAM").sku == "amd-instinct-mi250"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (A800 + A800, "duplicate SKU id 'nvidia-a800-pcie-40gb' (already in my-skus.toml, [[sku]] #1)"),
        (A800.replace("nvidia-a800-pcie-40gb", "nvidia-tesla-p40"), "already in the catalog; add override = true"),
        (A800.replace("vram_gb = 40\n", ""), "a GPU needs vram_gb, mem_bandwidth_gbs and fp32_tflops"),
        (A800.replace('source = "https', 'notes = "https'), "missing 'source'"),
        (A800.replace('aliases = ["a800"]', 'aliases = ["rtx 3090"]'), "alias 'rtx 3090' already names '3090'"),
        (A800.replace('aliases = ["a800"]\n', ""), "titles cannot name it"),
        (A800.replace('aliases = ["a800"]', 'aliases = ["nvidia tesla"]'), "names no model, only brand words"),
        (A800.replace("vram_gb", "vram"), "unknown field 'vram' (did you mean 'vram_gb'?)"),
        (A800.replace('"PCIe"', '"PCI"'), "form_factor 'PCI' is not one of"),
        ('[[sku]]\nsku = "nvidia-tesla-p40"\noverride = true\nvram_gb = 48\n', "must cite its 'source'"),
        ('[[sku]]\nsku = "nvidia-nope"\noverride = true\nsource = "x"\n', "the catalog has no SKU 'nvidia-nope'"),
        ('[parts]\n"123-456" = "nvidia-nope"\n', "[parts]: '123-456' names no SKU 'nvidia-nope'"),
        ('[aliases]\nnope = ["nope 9000"]\n', "no family 'nope'"),
        ("[gpus]\n", "unknown table(s) ['gpus']"),
        ("[[sku]\n", "cannot read catalog file"),
    ],
)  # fmt: skip
def test_a_mistake_in_the_users_file_is_one_clear_error_naming_file_and_entry(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(ConfigError) as error:
        load_user_catalog([write(tmp_path, text)])
    assert message in str(error.value)
    assert "my-skus.toml" in str(error.value)


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"my-skus\.toml: catalog file not found"):
        load_user_catalog([tmp_path / "my-skus.toml"])


def test_config_names_the_files_relative_to_itself(tmp_path: Path) -> None:
    config = write(
        tmp_path, '[catalog]\nextra = ["my-skus.toml", "more/extra.toml"]\n', "rigscout.toml"
    )
    write(tmp_path, "", "my-skus.toml")
    (tmp_path / "more").mkdir()
    write(tmp_path / "more", "", "extra.toml")
    settings = load_settings(config, {}, cwd=tmp_path / "elsewhere")
    assert settings.catalog_extra == (tmp_path / "my-skus.toml", tmp_path / "more/extra.toml")
    assert load_settings(None, {}, cwd=tmp_path).catalog_extra == ()
    with pytest.raises(ConfigError, match=r"\[catalog\]: unknown key files"):
        load_settings(write(tmp_path, '[catalog]\nfiles = ["x.toml"]\n', "bad.toml"), {})
    with pytest.raises(ConfigError, match="catalog file not found"):
        load_settings(write(tmp_path, '[catalog]\nextra = "gone.toml"\n', "bad.toml"), {})


def test_the_cli_uses_the_users_catalog_end_to_end(tmp_path: Path, monkeypatch) -> None:
    write(tmp_path, A800)
    write(tmp_path, '[catalog]\nextra = ["my-skus.toml"]\n', "rigscout.toml")
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    normalized = runner.invoke(cli, ["normalize"], input="NVIDIA A800 40GB PCIe\n")
    assert json.loads(normalized.output)["sku"] == "nvidia-a800-pcie-40gb"
    listed = runner.invoke(cli, ["catalog"])
    assert "nvidia-a800-pcie-40gb" in listed.output
    write(tmp_path, A800.replace("vram_gb = 40\n", ""))
    broken = runner.invoke(cli, ["normalize"], input="NVIDIA A800 40GB PCIe\n")
    assert broken.exit_code == 2
    assert broken.output.startswith("Error: my-skus.toml, [[sku]] #1 (nvidia-a800-pcie-40gb)")
    assert "Traceback" not in broken.output
    listing = runner.invoke(cli, ["catalog"])
    assert (listing.exit_code, listing.output) == (2, broken.output)


@pytest.mark.parametrize(
    ("outputs", "kind", "flagged"), [("false", "item", False), ("true", "for_parts", True)]
)
def test_a_card_without_display_outputs_is_one_catalog_column_not_a_list_elsewhere(
    tmp_path: Path, outputs: str, kind: str, flagged: bool
) -> None:
    """A data-center card the packaged catalog does not carry: "no video output" is how it is
    made when its row says so, and a fault on a card with outputs."""
    from ranking.titles.flags import load_signals

    row = A800 + f'segment = "datacenter"\ndisplay_outputs = {outputs}\n'
    normalizer = user_normalizer([write(tmp_path, row)])
    title = "NVIDIA A800 40GB PCIe GPU no video output"
    got = normalizer.normalize(title)
    sku = normalizer.catalog["nvidia-a800-pcie-40gb"]
    assert (got.sku, got.kind.value) == ("nvidia-a800-pcie-40gb", kind)
    assert sku.datacenter and sku.headless is not flagged
    assert ("no_display" in load_signals().codes_for(title, headless=sku.headless)) is flagged
