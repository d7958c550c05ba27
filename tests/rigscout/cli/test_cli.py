"""The command line as a new user meets it: help, init, parse, normalize, catalog, errors."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from bench import SAMPLES
from rigscout.cli.main import cli
from tests.conftest import load_sample
from tests.support.cli import rigscout_process

if TYPE_CHECKING:
    from pathlib import Path


def invoke(args: list[str], *, input: str | None = None, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, args, input=input, env=env, catch_exceptions=False)


def all_commands(group=cli, prefix=()):
    for name, command in sorted(group.commands.items()):
        yield (*prefix, name), command
        if hasattr(command, "commands"):
            yield from all_commands(command, (*prefix, name))


@pytest.mark.parametrize(
    ("path", "command"),
    list(all_commands()),
    ids=lambda v: "-".join(v) if isinstance(v, tuple) else "",
)
def test_every_command_has_help_with_an_example(path, command):
    result = invoke([*path, "--help"])
    assert result.exit_code == 0
    assert command.help and len(command.help.strip()) > 20
    if not hasattr(command, "commands") or command.invoke_without_command:
        assert "Example:" in result.output


@pytest.mark.parametrize(
    ("path", "command"),
    list(all_commands()),
    ids=lambda v: "-".join(v) if isinstance(v, tuple) else "",
)
def test_examples_in_help_stay_one_per_line(path, command):
    lines = invoke([*path, "--help"]).output.splitlines()
    assert not [line for line in lines if line.count("rigscout ") > 1 and "&&" not in line]


def test_init_writes_a_commented_config_and_creates_the_database(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = invoke(["init"])
    assert result.exit_code == 0, result.output
    config = (tmp_path / "rigscout.toml").read_text()
    assert config.count("[[search]]") == 11 and "# " in config
    assert (tmp_path / "rigscout.db").exists()
    again = invoke(["init"])
    assert "keeping it" in again.output


def test_parse_prints_the_stable_contract_for_every_listing(tmp_path: Path):
    load_sample("html", "srp_scard_sold_2026-05_ebay-us_2006-vw-new-beetle.html")
    page = SAMPLES / "html" / "srp_scard_sold_2026-05_ebay-us_2006-vw-new-beetle.html"
    result = invoke(["parse", str(page)])
    assert result.exit_code == 0
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert len(rows) == 60
    keys = [
        "item_id",
        "title",
        "price",
        "price_max",
        "currency",
        "shipping",
        "buying_format",
        "bids",
        "sold_date",
        "condition",
        "url",
    ]
    for row in rows:
        assert list(row)[: len(keys)] == keys
        assert isinstance(row["item_id"], str) and row["currency"] == "USD"
        assert row["sold_date"] and row["price"] > 0


def test_parse_of_a_captcha_page_fails_with_a_clear_message():
    load_sample("html", "block_security-measure_2026-08.html")
    result = invoke(["parse", str(SAMPLES / "html" / "block_security-measure_2026-08.html")])
    assert result.exit_code == 2  # an input file rigscout cannot read, as the README's table says
    assert "Error:" in result.output


def test_normalize_reads_titles_and_writes_one_json_object_per_line():
    titles = [
        "NVIDIA Tesla V100 SXM2 16GB GPU Accelerator",
        "Heatsink for SXM2 GPU NVIDIA Tesla P100/V100 16/32GB",
        "Lot of 4 NVIDIA Tesla P40 24GB GDDR5 GPU",
        "Supermicro SYS-4028GR-TRT2 8x GPU server with 8x Tesla V100 32GB SXM2",
        "Mens blue cotton shirt size L",
    ]
    result = invoke(["normalize"], input="\n".join(titles) + "\n")
    assert result.exit_code == 0
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert [r["title"] for r in rows] == titles
    assert all(
        set(r)
        == {
            "title",
            "sku",
            "category",
            "kind",
            "quantity",
            "includes",
            "confidence",
            "config",
            "part",
        }
        for r in rows
    )
    assert rows[0]["sku"] == "nvidia-tesla-v100-sxm2-16gb" and rows[0]["kind"] == "item"
    assert rows[1]["kind"] == "accessory"
    assert rows[2]["sku"] == "nvidia-tesla-p40" and rows[2]["quantity"] == 4
    assert rows[4]["sku"] is None and rows[4]["kind"] == "other"


def test_catalog_json_lists_every_sku_with_its_specs():
    result = invoke(["catalog", "--json"])
    entries = {e["sku"]: e for e in json.loads(result.output)}
    p40 = entries["nvidia-tesla-p40"]
    assert (p40["vram_gb"], p40["fp32_tflops"] >= 11.7, p40["gpus_per_board"]) == (24, True, 1)
    assert entries["gigabyte-t181-g20"]["gpu_form_factor"] == "SXM2"


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+psycopg://nobody:pw@127.0.0.1:9/x",  # nothing listens there
        "sqlite:////etc/passwd/pw@/rigscout.db",  # a path below a file cannot be created
    ],
)
def test_a_database_that_cannot_be_opened_gives_one_line_and_exit_code_2(tmp_path: Path, url):
    config = tmp_path / "rigscout.toml"
    config.write_text(f'[database]\nurl = "{url}"\n')
    result = invoke(["--config", str(config), "runs"])
    assert result.exit_code == 2
    assert result.output.startswith("Error:") and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1
    if url.startswith("postgresql"):
        assert "pw@" not in result.output


def test_a_missing_config_file_named_explicitly_is_an_error(tmp_path: Path):
    result = invoke(["--config", str(tmp_path / "nope.toml"), "runs"])
    assert result.exit_code == 2 and "does not exist" in result.output


def _stop_reading_early(proc) -> tuple[int, str]:
    assert proc.stdout is not None
    proc.stdout.readline()
    proc.stdout.close()  # the reader goes away with most of the output unread
    _, stderr = proc.communicate(timeout=60)
    return proc.returncode, stderr


def test_a_reader_that_stops_early_ends_the_command_quietly_with_0(tmp_path):
    """`rigscout catalog --json | head -1`: a closed pipe is the reader's choice, not an error.
    The output (about 95 KB) is larger than a pipe holds, so the write meets the closed end."""
    proc = rigscout_process(["catalog", "--json"], cwd=tmp_path)
    assert _stop_reading_early(proc) == (0, "")


def test_a_closed_pipe_ends_a_streaming_command_quietly_too(tmp_path):
    titles = tmp_path / "titles.txt"
    titles.write_text("NVIDIA Tesla P40 24GB GPU\n" * 20_000, encoding="utf-8")
    with titles.open(encoding="utf-8") as stdin:
        proc = rigscout_process(["normalize"], cwd=tmp_path, stdin=stdin)
        assert _stop_reading_early(proc) == (0, "")


def test_a_view_with_nothing_in_it_prints_no_empty_table(tmp_path: Path):
    from tests.support.cli import DEMO, write_config

    config = write_config(tmp_path, f"sqlite:///{tmp_path / 'r.db'}")
    runner = CliRunner()
    ran = runner.invoke(
        cli, ["--config", str(config), "run", "--offline", str(DEMO), "--no-alerts"]
    )
    assert ran.exit_code == 0, ran.output
    args = ["--config", str(config), "rank", "--sku", "nvidia-tesla-p40", "--include-flagged"]
    result = runner.invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "Top deals" in result.output
    assert "Kept out by a risk flag" not in result.output  # no P40 was kept out


def test_a_page_or_csv_that_cannot_be_read_is_an_input_error_exit_2(tmp_path):
    page = tmp_path / "junk.html"
    page.write_text("<html><body>nothing here</body></html>", encoding="utf-8")
    csv = tmp_path / "junk.csv"
    csv.write_text("a,b\n1,2\n", encoding="utf-8")
    config = tmp_path / "rigscout.toml"
    config.write_text(f'[database]\nurl = "sqlite:///{tmp_path / "r.db"}"\n', encoding="utf-8")

    parsed = invoke(["parse", str(page)])
    imported = invoke(["--config", str(config), "import", str(csv)])

    assert (parsed.exit_code, imported.exit_code) == (2, 2)
    assert parsed.output.startswith("Error: unknown results layout")
    assert imported.output.startswith("Error: not a Terapeak sold-listings CSV")
