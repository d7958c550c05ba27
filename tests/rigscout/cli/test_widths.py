"""Every table and listing fits the terminal it is printed on, at 60, 80 and 120 columns, and
never cuts a number to make room: a column that does not fit is left out whole."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from rigscout.cli.main import cli
from tests.support.cli import DEMO, write_config

if TYPE_CHECKING:
    from pathlib import Path

WIDTHS = (60, 80, 120)


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("widths")
    config = write_config(base, f"sqlite:///{base / 'rigscout.db'}")
    for _ in range(2):  # two runs for the runs table
        ran = CliRunner().invoke(
            cli, ["--config", str(config), "run", "--offline", str(DEMO), "--no-alerts"]
        )
        assert ran.exit_code == 0, ran.output
    assert (
        CliRunner().invoke(cli, ["--config", str(config), "ignore", "196183871274"]).exit_code == 0
    )
    return config


def shown(config: Path, args: list[str], width: int, *, terminal: bool = False) -> str:
    env = {"COLUMNS": str(width), **({"FORCE_COLOR": "1"} if terminal else {})}
    result = CliRunner().invoke(cli, ["--config", str(config), *args], env=env)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize(
    "args",
    [["runs"], ["catalog"], ["catalog", "unmatched"], ["ignore", "--list"], ["rank"]],
    ids=" ".join,
)
def test_every_table_fits_the_terminal(demo, args, width):
    text = shown(demo, args, width).split("\n1. ")[0]  # rank: the table, not its sentences
    assert max(len(line) for line in text.splitlines()) <= width, text


@pytest.mark.parametrize("width", WIDTHS)
def test_the_runs_table_never_cuts_a_number(demo, width):
    runs = json.loads(shown(demo, ["runs", "--json"], width))
    table = shown(demo, ["runs"], width)
    rows = [line.split() for line in table.splitlines() if line.strip()[:1].isdigit()]
    assert len(rows) == len(runs)
    for row, run in zip(rows, runs, strict=True):
        assert row[0] == str(run["id"])
        assert str(run["listings_seen"]) in row and str(run["listings_new"]) in row
    assert "…" not in "".join(" ".join(r[:3]) for r in rows)  # id, date and status whole


@pytest.mark.parametrize("width", WIDTHS)
def test_plans_wrap_to_the_terminal_and_keep_their_links_whole(demo, width):
    text = shown(demo, ["plan", "--vram", "64", "--limit", "2"], width, terminal=True)
    assert max(len(line) for line in text.splitlines()) <= width
    links = [w for w in text.split() if w.startswith("https://")]
    assert links and all(link.rsplit("/", 1)[1].isdigit() for link in links)
    piped = shown(demo, ["plan", "--vram", "64", "--limit", "2"], width)
    assert max(len(line) for line in piped.splitlines()) > 120  # for grep: one line each
