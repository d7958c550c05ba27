"""``rigscout catalog unmatched`` after a real (offline) run: what to add to the catalog next."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from click.testing import CliRunner

from rigscout.cli.main import cli
from tests.support.cli import DEMO, write_config

if TYPE_CHECKING:
    from pathlib import Path


def run(args: list[str]):
    return CliRunner().invoke(cli, args, catch_exceptions=False)


def test_unmatched_titles_of_the_demo_are_grouped_by_model(tmp_path: Path) -> None:
    config = str(write_config(tmp_path, f"sqlite:///{tmp_path / 'rigscout.db'}"))
    assert run(["--config", config, "init"]).exit_code == 0
    assert run(["--config", config, "catalog", "unmatched"]).output.startswith("Every stored")
    assert run(["--config", config, "run", "--offline", str(DEMO), "--no-alerts"]).exit_code == 0

    screen = run(["--config", config, "catalog", "unmatched"]).output.splitlines()
    assert screen[0].split()[:3] == ["listings", "price", "range"]
    esc = next(line for line in screen if " esc4000 " in line)
    assert esc.split()[0] == "3" and "ASUS ESC4000 G4X" in esc
    groups = json.loads(run(["--config", config, "catalog", "unmatched", "--json"]).output)
    by_model = {g["model"]: g for g in groups}
    assert by_model["esc4000"]["listings"] == 3
    assert {"esc4000", "g4x"} <= set(by_model["esc4000"]["shared"])
    # accessories have no SKU on purpose and are not "unmatched"
    assert not any("heatsink" in g["example"].lower() for g in groups)


def test_catalog_shows_the_specs_it_promises_within_80_columns():
    from click.testing import CliRunner

    from rigscout.cli.main import cli

    result = CliRunner().invoke(cli, ["catalog"], env={"COLUMNS": "80"})

    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= 80
    p40 = next(line for line in lines if line.split()[:1] == ["nvidia-tesla-p40"])
    # VRAM, bandwidth, FP16, board power, form factor and software support.
    assert p40.split()[1:] == ["24", "GB", "347", "0.18", "250", "PCIe,", "CUDA", "≤", "12"]
    t181 = next(line for line in lines if line.split()[:1] == ["gigabyte-t181-g20"])
    assert "server: 4x SXM2," in t181
