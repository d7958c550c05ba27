"""Every command and option, given a bad value, answers with one clear line and an exit code.

The sweep walks the real command tree, so a command added later is swept too: each option
of each command gets values a user could mistype, and the answer must be an ``Error:`` line
(two at most), never a traceback, with the README's exit code.
"""

from __future__ import annotations

import itertools
import json
import re
import signal
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from sqlalchemy import select
from sqlalchemy.orm import Session

from core import fmt
from db.engine import open_engine
from db.models import ListingRow, ObservationRow, RunRow
from rigscout.cli.main import cli
from rigscout.cli.render import short_model
from tests.support.cli import (
    DEMO,
    ROOT,
    collector_config,
    rigscout_process,
    serve_demo_pages,
    write_config,
)
from tests.support.fake_ebay import FakeEbay

GOOD_ARGS = {"skus": "nvidia-tesla-p40"}
BAD_BY_NAME = {
    "skus": ["not-a-sku"],
    "sku": ["not-a-sku"],
    "search_names": ["no-such-search"],
    "max_price": ["abc", "-5", "nan"],
    "output": ["/missing/dir/out.csv", "."],
    "output_dir": ["/etc/passwd/charts"],
}
BAD_BY_TYPE = {
    "IntRange": ["x", "-5", "0.5"],
    "IntParamType": ["x"],
    "Choice": ["nope"],
    "DateTime": ["yesterday", "2026-13-45"],
    "Path": ["/no/such/path"],
}


def walk(group: click.Group = cli, prefix: tuple[str, ...] = ()):
    for name, command in sorted(group.commands.items()):
        yield (*prefix, name), command
        if isinstance(command, click.Group):
            yield from walk(command, (*prefix, name))


def bad_invocations():
    for path, command in walk():
        required = [
            GOOD_ARGS.get(p.name or "", "x")
            for p in command.params
            if isinstance(p, click.Argument) and p.required and p.name in GOOD_ARGS
        ]
        for param in command.params:
            if isinstance(param, click.Option) and (param.is_flag or param.name == "help"):
                continue
            values = BAD_BY_NAME.get(param.name or "") or BAD_BY_TYPE.get(type(param.type).__name__)
            for value in values or ():
                if isinstance(param, click.Argument):
                    args = [*path, value]
                else:
                    args = [*path, *required, param.opts[-1], value]
                yield pytest.param(args, value, id=" ".join(args))


@pytest.fixture(scope="module")
def empty_config(tmp_path_factory) -> Path:
    """An initialised database with nothing in it."""
    base = tmp_path_factory.mktemp("empty")
    path = write_config(base, f"sqlite:///{base / 'rigscout.db'}")
    result = CliRunner().invoke(cli, ["--config", str(path), "init"])
    assert result.exit_code == 0, result.output
    return path


@pytest.fixture(scope="module")
def config(tmp_path_factory) -> Path:
    """A database holding the demo run, so every command gets as far as its options."""
    base = tmp_path_factory.mktemp("demo")
    path = write_config(base, f"sqlite:///{base / 'rigscout.db'}")
    result = CliRunner().invoke(
        cli, ["--config", str(path), "run", "--offline", str(DEMO), "--no-alerts"]
    )
    assert result.exit_code == 0, result.output
    return path


def assert_one_clear_line(result, *, codes=(1, 2)) -> None:
    text = result.output
    assert result.exit_code in codes, text
    assert "Traceback" not in text
    lines = [line for line in text.splitlines() if line.strip()]
    assert 1 <= len(lines) <= 2, text
    assert any(line.startswith("Error: ") for line in lines), text


@pytest.mark.parametrize(("args", "value"), list(bad_invocations()))
def test_a_bad_value_anywhere_is_one_clear_line(config: Path, args: list[str], value: str):
    result = CliRunner().invoke(cli, ["--config", str(config), *args])
    assert_one_clear_line(result)
    option = next((a for a in args if a.startswith("-")), None)
    assert value in result.output or (option and option in result.output), result.output


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        (["runs"], {"RIGSCOUT_DATABASE_URL": "garbage"}, "not a database URL"),
        (["--config", "/tmp", "runs"], {}, "is a directory"),
        (["--config", "/no/such.toml", "rank"], {}, "does not exist"),
        (["no-such-command"], {}, "No such command"),
        (["rank", "--limit"], {}, "requires an argument"),
        (["parse", "/tmp"], {}, "is a directory"),
    ],
)
def test_ordinary_mistakes_get_one_line(args, env, expected):
    result = CliRunner().invoke(cli, args, env=env)
    assert_one_clear_line(result)
    assert expected in result.output


def test_a_page_that_is_not_an_ebay_page_is_one_line(tmp_path: Path):
    page = tmp_path / "notes.html"
    page.write_text("<html><body>my shopping notes</body></html>")
    assert_one_clear_line(CliRunner().invoke(cli, ["parse", str(page)]))


def test_a_csv_that_is_not_a_terapeak_export_is_one_line(config: Path, tmp_path: Path):
    csv = tmp_path / "prices.csv"
    csv.write_bytes(b"\x00\x01garbage,,\n1,2\n")
    result = CliRunner().invoke(cli, ["--config", str(config), "import", str(csv)])
    assert_one_clear_line(result)


def test_unknown_skus_get_the_same_answer_on_every_command(config: Path):
    answers = set()
    for args in (
        ["rank", "--sku", "not-a-sku"],
        ["chart", "history", "not-a-sku"],
        ["export", "prices", "--sku", "not-a-sku"],
        ["export", "listings", "--sku", "not-a-sku"],
    ):
        result = CliRunner().invoke(cli, ["--config", str(config), *args])
        assert result.exit_code == 2
        answers.add(result.output)
    assert answers == {"Error: not a catalog SKU: not-a-sku (`rigscout catalog` lists them all)\n"}


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (["rank"], "No listings yet: run `rigscout run`"),
        (["runs"], "No runs yet: run `rigscout run`"),
        (["chart", "history", "nvidia-tesla-p40"], "no price history for nvidia-tesla-p40 yet"),
        (["chart", "value"], "no SKU has a market price yet"),
    ],
)
def test_an_empty_database_answers_with_a_hint(empty_config: Path, args, hint):
    result = CliRunner().invoke(cli, ["--config", str(empty_config), *args])
    assert hint in result.output
    assert "Traceback" not in result.output


def test_export_on_an_empty_database_writes_the_header_once(empty_config: Path):
    result = CliRunner().invoke(cli, ["--config", str(empty_config), "export", "listings"])
    assert result.exit_code == 0
    assert result.stdout.count("marketplace,item_id") == 1


@pytest.mark.slow
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_ctrl_c_exits_130_with_interrupted_and_nothing_half_saved(tmp_path: Path, stop):
    """Ctrl-C, a cron job's timeout (SIGTERM) and a closed terminal (SIGHUP) alike."""
    with FakeEbay() as fake:
        serve_demo_pages(fake)
        extra = collector_config(fake.base_url, rate=4.0)  # a run takes several seconds
        config = write_config(tmp_path, f"sqlite:///{tmp_path / 'r.db'}", extra=extra)
        assert CliRunner().invoke(cli, ["--config", str(config), "init"]).exit_code == 0
        proc = rigscout_process(["--config", str(config), "run", "--no-alerts"])
        deadline = time.monotonic() + 60
        while fake.count() == 0 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)  # wait for the run's first request: past start-up, inside the run
        proc.send_signal(stop)
        _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    lines = stderr.strip().splitlines()
    assert lines == ["Error: interrupted (nothing half-saved: each search is all or nothing)"]
    engine = open_engine(f"sqlite:///{tmp_path / 'r.db'}")
    with Session(engine) as session:
        orphans = session.scalars(
            select(ObservationRow.id).outerjoin(ListingRow).where(ListingRow.id.is_(None))
        ).all()
        runs = session.execute(select(RunRow.status, RunRow.finished_at)).all()
    engine.dispose()
    assert orphans == []
    # `rigscout runs` says at once that the run was stopped, not "running" until the next run
    assert [(status, finished is not None) for status, finished in runs] == [("interrupted", True)]


@pytest.mark.parametrize("command", [["run", "--no-alerts"], ["collect"]], ids=" ".join)
def test_a_run_refused_by_the_lock_exits_3_and_its_advice_works(tmp_path: Path, command):
    from db.lock import run_lock

    config = write_config(tmp_path, f"sqlite:///{tmp_path / 'r.db'}")
    assert CliRunner().invoke(cli, ["--config", str(config), "init"]).exit_code == 0
    engine = open_engine(f"sqlite:///{tmp_path / 'r.db'}")
    with run_lock(engine):
        result = CliRunner().invoke(
            cli, ["--config", str(config), *command, "--offline", str(DEMO)]
        )
    engine.dispose()
    assert result.exit_code == 3
    assert result.output.startswith("Error: another rigscout run is using this database")
    assert "pass --wait" in result.output
    # ...which this very command takes.
    assert "--wait" in CliRunner().invoke(cli, [command[0], "--help"]).output


@pytest.mark.parametrize("args", [["runs"], ["rank"], ["rank", "--include-flagged"]], ids=" ".join)
def test_tables_fit_80_columns(config: Path, args: list[str]):
    result = CliRunner().invoke(cli, ["--config", str(config), *args], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    table = result.output.split("\n1. ")[0]  # the table, not the sentences under it
    assert max(len(line) for line in table.splitlines()) <= 80
    assert "…  " not in table.splitlines()[2]  # no header cut short


def test_an_offline_folder_with_no_saved_pages_is_one_line_before_any_work(tmp_path: Path):
    config = write_config(tmp_path, f"sqlite:///{tmp_path / 'r.db'}")
    empty = tmp_path / "pages"
    empty.mkdir()

    result = CliRunner().invoke(cli, ["--config", str(config), "run", "--offline", str(empty)])

    assert result.exit_code == 2
    assert result.output.splitlines() == [
        f"Error: --offline {empty}: no saved page of any search in it (expected "
        "v100-sxm2/active-p1.html and the like, one folder per search, as in fixtures/demo)"
    ]
    assert not (tmp_path / "r.db").exists()  # nothing was started


@pytest.mark.parametrize("command", ["runs", "rank", "plan --vram 64"])
def test_a_limit_too_large_to_mean_anything_is_a_usage_error(tmp_path: Path, command):
    config = write_config(tmp_path, f"sqlite:///{tmp_path / 'r.db'}")
    args = [*command.split(), "--limit", "99999999999999999999"]

    result = CliRunner().invoke(cli, ["--config", str(config), *args])

    assert result.exit_code == 2
    assert "Invalid value for '--limit'" in result.output
    assert "unexpected" not in result.output


@pytest.mark.parametrize("columns", [60, 80, 120, 200])
def test_the_deals_table_uses_the_width_it_has_and_never_cuts_a_price(config: Path, columns):
    args = ["--config", str(config), "rank", "--limit", "15"]
    result = CliRunner().invoke(cli, args, env={"COLUMNS": str(columns)})
    deals = json.loads(CliRunner().invoke(cli, [*args, "--json"]).output)
    table = result.output.split("\n1. ")[0].splitlines()

    assert result.exit_code == 0, result.output
    assert max(len(line) for line in table) <= columns
    assert max(len(line) for line in table) >= columns - 12  # the width is used
    for deal in deals:  # each row: its model in full and its landed price uncut
        number = re.compile(rf"^ {{0,2}}{deals.index(deal) + 1} {{2,}}\S")
        row = next(line for line in table if number.match(line))
        price = fmt.money(Decimal(str(deal["landed_unit_price"])), "USD")
        assert price in row, (columns, row)
        assert short_model(deal["sku_name"])[:12] in row
    titles = [line for line in table if "Listing" in line]
    assert titles  # the seller's words, from 60 columns
    numbered = [i for i, line in enumerate(table) if re.match(r"^ {0,2}\d+ {2,}\S", line)]
    for start, end in itertools.pairwise(numbered):
        assert end - start <= 2, table[start:end]  # notes on one or two lines, never five


def test_rows_of_one_model_show_what_sets_each_listing_apart_at_80_columns(config: Path):
    args = ["--config", str(config), "rank", "--limit", "15"]
    table = CliRunner().invoke(cli, args, env={"COLUMNS": "80"}).output.split("\n1. ")[0]
    header = next(line for line in table.splitlines() if "Listing" in line)
    start = header.index("Listing")
    rows = [line for line in table.splitlines() if "V100 SXM2 16GB" in line]
    listings = [row[start : start + 12].strip() for row in rows]
    assert len(rows) >= 3 and len(set(listings)) == len(listings), listings
    assert not any(text.lower().startswith(("nvidia", "tesla")) for text in listings)


def test_another_applications_sqlite_file_is_refused_until_forced(tmp_path: Path):
    import sqlite3

    other = tmp_path / "contacts.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE contacts (id INTEGER, name TEXT)")
    config = write_config(tmp_path, f"sqlite:///{other}")
    args = ["--config", str(config)]

    run = CliRunner().invoke(cli, [*args, "run", "--offline", str(DEMO), "--no-alerts"])
    with sqlite3.connect(other) as conn:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    forced = CliRunner().invoke(cli, [*args, "db", "upgrade", "--force"])

    assert run.exit_code == 2
    assert run.output.startswith("Error: ")
    assert "holds another application's tables (contacts)" in run.output
    assert "`rigscout db upgrade --force`" in run.output
    assert tables == {"contacts"}  # nothing of rigscout's was added
    assert forced.exit_code == 0 and "Database at revision" in forced.output


@pytest.mark.slow
def test_a_run_stopped_halfway_records_what_it_had_done(tmp_path: Path):
    """`rigscout runs` after a Ctrl-C: the searches, requests and listings saved before it,
    not zeros."""
    from sqlalchemy import func

    with FakeEbay() as fake:
        serve_demo_pages(fake)
        extra = collector_config(fake.base_url, rate=4.0)
        config = write_config(tmp_path, f"sqlite:///{tmp_path / 'r.db'}", extra=extra)
        assert CliRunner().invoke(cli, ["--config", str(config), "init"]).exit_code == 0
        engine = open_engine(f"sqlite:///{tmp_path / 'r.db'}")
        proc = rigscout_process(["--config", str(config), "run", "--no-alerts"])
        deadline = time.monotonic() + 60
        saved = 0
        while saved < 20 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)  # wait until a few searches are saved
            with Session(engine) as session:
                saved = session.scalar(select(func.count()).select_from(ListingRow)) or 0
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
    with Session(engine) as session:
        run = session.scalars(select(RunRow)).one()
        listings = session.scalar(select(func.count()).select_from(ListingRow))
    engine.dispose()

    assert proc.returncode == 130
    assert run.status == "interrupted"
    assert run.listings_new == listings and listings >= 20
    assert run.observations_new >= listings and run.searches >= 1
    assert 0 < run.requests <= fake.count()


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.05, 0.1, 0.15, 0.25])
def test_ctrl_c_while_the_command_is_still_starting_is_one_line_not_a_traceback(
    tmp_path: Path, delay
):
    script = Path(sys.executable).parent / "rigscout"  # the command a user types
    proc = subprocess.Popen(
        [str(script), "catalog", "--json"], cwd=tmp_path, text=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)

    # An interrupt that lands before the entry point's handler is in place (Python's own
    # start-up, the package's __init__ files, the entry module's first imports: no Python code
    # can catch it there) is the interpreter's to report. From the handler on, no traceback runs
    # through our code, and the command ends with one line and 130, or had finished.
    entry = ROOT / "rigscout" / "cli" / "entry.py"
    handler_line = next(
        n for n, line in enumerate(entry.read_text("utf-8").splitlines(), 1)
        if line.startswith("signal.signal(signal.SIGINT, _early_interrupt)")
    )  # fmt: skip
    before_handler = {
        str(ROOT / "rigscout" / "__init__.py"),
        str(ROOT / "rigscout" / "cli" / "__init__.py"),
    }
    frames = re.findall(r'File "([^"]+)", line (\d+)', stderr)
    ours = [(path, int(n)) for path, n in frames if path.startswith(str(ROOT / "rigscout"))]
    too_late = [
        (path, n) for path, n in ours
        if path not in before_handler and not (path == str(entry) and n <= handler_line)
    ]  # fmt: skip
    assert too_late == [], stderr
    if proc.returncode == 130:
        assert stderr.strip().splitlines()[-1].startswith("Error: interrupted")


@pytest.mark.parametrize(
    ("command", "line"),
    [
        ("run", "interrupted (nothing half-saved: each search is all or nothing)"),
        ("rank", "interrupted"),
        ("report", "interrupted"),
    ],
)
def test_the_interrupt_line_speaks_of_searches_only_for_commands_that_save_them(command, line):
    from rigscout.cli.commands.app import exit_code_for

    with click.Context(click.Command(command), info_name=command):
        assert exit_code_for(KeyboardInterrupt()) == (130, line)


def test_an_interrupt_python_wrapped_in_another_error_is_still_an_interrupt():
    """A Ctrl-C landing while pydantic builds a model class reaches us as the RuntimeError
    "Error calling __set_name__ …", caused by the KeyboardInterrupt (seen in CI at 0.3 s into
    `rigscout schedule`): exit 130, "interrupted", not "unexpected RuntimeError"."""
    from rigscout.cli.commands.app import exit_code_for

    class Proxy:
        def __set_name__(self, owner: type, name: str) -> None:
            raise KeyboardInterrupt

    with pytest.raises(RuntimeError) as caught:
        type("Model", (), {"field": Proxy()})
    assert exit_code_for(caught.value) == (130, "interrupted")
