"""Names forgiven, and a listing asked for that is not shown is explained: what a new user
types for a SKU or a profile, and why `rank --sku` can come back empty."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from rigscout.cli.main import cli
from tests.support.cli import DEMO, write_config

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("names")
    config = write_config(base, f"sqlite:///{base / 'rigscout.db'}")
    result = CliRunner().invoke(
        cli, ["--config", str(config), "run", "--offline", str(DEMO), "--no-alerts"]
    )
    assert result.exit_code == 0, result.output
    return config


def rank(config: Path, *args: str):
    return CliRunner().invoke(cli, ["--config", str(config), "rank", *args])


@pytest.mark.parametrize("typed", ["p40", "tesla-p40", "NVIDIA-TESLA-P40"])
def test_rank_takes_a_sku_by_its_short_name_in_any_case_and_says_how_it_read_it(demo, typed):
    result = rank(demo, "--sku", typed, "--json")
    assert result.exit_code == 0, result.output
    assert f"(reading {typed} as nvidia-tesla-p40)" in result.stderr
    assert '"sku": "nvidia-tesla-p40"' in result.stdout


def test_a_letter_for_a_digit_is_asked_about_as_the_card_it_most_likely_is(demo):
    result = rank(demo, "--sku", "nvidia-tesla-p4O")
    assert result.exit_code == 2
    assert "not a catalog SKU: nvidia-tesla-p4O (did you mean nvidia-tesla-p40?)" in result.output


def test_a_model_of_several_skus_lists_them(demo):
    result = rank(demo, "--sku", "v100")
    assert result.exit_code == 2
    assert "it could be any of: " in result.output
    assert "nvidia-tesla-v100-sxm2-16gb" in result.output


def test_a_card_the_profile_leaves_out_is_explained_with_the_profile_that_ranks_it(demo):
    """The demo's twenty RTX 3060 12GB listings sit under llm-inference's 16 GB floor: the
    default table has none of them, and the user is told why and which profile shows them."""
    result = rank(demo, "--sku", "nvidia-rtx-3060-12gb")
    assert result.exit_code == 0, result.output
    assert "No deals match" not in result.output
    assert (
        "The llm-inference profile ranks no nvidia-rtx-3060-12gb listing: 12 GB per GPU, under "
        "the profile's 16 GB minimum. `--profile capacity` ranks them."
    ) in result.output
    shown = rank(demo, "--sku", "nvidia-rtx-3060-12gb", "--profile", "capacity", "--json")
    assert shown.exit_code == 0 and shown.stdout.count('"sku": "nvidia-rtx-3060-12gb"') >= 10


def test_a_sku_with_no_active_listing_says_so_not_that_filters_hide_it(demo):
    result = rank(demo, "--sku", "nvidia-tesla-k80")
    assert result.exit_code == 0, result.output
    assert "No active nvidia-tesla-k80 listing is stored" in result.output
    assert "unmatched" not in result.output  # the store's other listings are not the answer


def test_a_profile_that_does_not_exist_lists_the_ones_that_do(tmp_path):
    config = tmp_path / "rigscout.toml"
    config.write_text('[rank]\nprofile = "llm"\n', encoding="utf-8")
    result = CliRunner().invoke(cli, ["--config", str(config), "runs"])
    assert result.exit_code == 2
    assert "(the profiles are: capacity, llm-inference, training)" in result.output


def test_chart_history_writes_one_png_file_or_a_folder_of_them(demo, tmp_path):
    def chart(*args: str):
        return CliRunner().invoke(cli, ["--config", str(demo), "chart", "history", *args])

    one = chart("p40", "-o", str(tmp_path / "p40.png"))
    assert one.exit_code == 0, one.output
    assert (tmp_path / "p40.png").read_bytes()[:4] == b"\x89PNG"
    several = chart("p40", "rtx-3090", "-o", str(tmp_path / "charts"))
    assert several.exit_code == 0, several.output
    assert len(list((tmp_path / "charts").glob("history-*.png"))) == 2
    refused = chart("p40", "rtx-3090", "-o", str(tmp_path / "both.png"))
    assert refused.exit_code == 2 and "2 SKUs make 2 charts; name a folder" in refused.output


def test_choices_are_taken_in_any_case(demo):
    result = CliRunner().invoke(
        cli,
        ["--config", str(demo), "plan", "--vram", "64", "--form-factor", "SXM2", "--json",
         "--profile", "LLM-Inference", "--limit", "1"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "nvidia-tesla-v100-sxm2-16gb" in result.output and "pcie" not in result.output.lower()
