"""`rigscout fx update`: the ECB's rates, fetched from a real HTTP server on 127.0.0.1, written
dated to fx-rates.toml, and used by the ranking once [rank] fx_file names the file."""

from __future__ import annotations

import errno
import os
import threading
from datetime import date, timedelta
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from bench import FIXTURES
from rigscout.cli.main import cli
from rigscout.config.load import load_settings
from tests.support.smtp_server import closed_port

if TYPE_CHECKING:
    from pathlib import Path

FIXTURE = (FIXTURES / "fx" / "eurofxref-daily.xml").read_text(encoding="utf-8")
DAY = date.today() - timedelta(days=1)  # the ECB's rates of yesterday, whenever this runs
ECB = FIXTURE.replace("2026-11-27", DAY.isoformat()).encode()


def serve(body: bytes):
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/xml")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return (
        server,
        f"http://127.0.0.1:{server.server_address[1]}/stats/eurofxref/eurofxref-daily.xml",
    )


@pytest.fixture
def ecb():
    server, url = serve(ECB)
    yield url
    server.shutdown()


def config(tmp_path: Path, rank: str) -> Path:
    path = tmp_path / "rigscout.toml"
    path.write_text(f'[database]\nurl = "sqlite:///{tmp_path / "r.db"}"\n{rank}', "utf-8")
    return path


def test_the_rates_are_written_dated_and_the_ranking_uses_them(tmp_path, ecb):
    eur = config(tmp_path, '[rank]\ncurrency = "EUR"\nfx_file = "fx-rates.toml"\n')

    result = CliRunner().invoke(cli, ["--config", str(eur), "fx", "update", "--source", ecb])
    rank = load_settings(eur, {}).rank

    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"Wrote {tmp_path / 'fx-rates.toml'}: 9 rates in EUR")
    assert f"the ECB's of {DAY}" in result.output
    written = (tmp_path / "fx-rates.toml").read_text(encoding="utf-8")
    assert f'date = "{DAY}"' in written and "EUR = 1\n" in written
    assert rank.fx_date == DAY
    assert rank.fx_rates["USD"] == Decimal("0.952381")  # 1 / 1.05: euros per dollar


def test_without_fx_file_it_says_how_to_use_them(tmp_path, ecb):
    usd = config(tmp_path, "")

    result = CliRunner().invoke(cli, ["--config", str(usd), "fx", "update", "--source", ecb])

    assert result.exit_code == 0, result.output
    assert 'set [rank] fx_file = "fx-rates.toml"' in result.output


@pytest.mark.parametrize(
    ("rank", "message"),
    [
        (
            '[rank]\nfx_file = "fx-rates.toml"\n',
            "fx-rates.toml does not exist (run `rigscout fx update`)",
        ),
        (
            '[rank]\nfx_file = "x.toml"\n[rank.fx]\nUSD = 1\n',
            "set fx_file or a [rank.fx] table, not both",
        ),
    ],
)
def test_a_missing_or_doubled_rates_table_is_one_line(tmp_path, rank, message):
    path = config(tmp_path, rank)

    result = CliRunner().invoke(cli, ["--config", str(path), "rank"])

    assert result.exit_code == 2
    assert message in result.output


def test_an_unreachable_source_is_one_line_and_writes_nothing(tmp_path):
    path = config(tmp_path, "")
    source = f"http://127.0.0.1:{closed_port()}/eurofxref-daily.xml"

    result = CliRunner().invoke(cli, ["--config", str(path), "fx", "update", "--source", source])

    assert result.exit_code == 1
    assert result.output.startswith("Error: cannot fetch the ECB's rates from")
    assert not (tmp_path / "fx-rates.toml").exists()


def test_the_rates_go_to_the_file_fx_file_names_in_the_currency_the_settings_say(tmp_path, ecb):
    gbp = config(tmp_path, '[rank]\ncurrency = "GBP"\nfx_file = "rates/today.toml"\n')
    (tmp_path / "rates").mkdir()

    result = CliRunner().invoke(cli, ["--config", str(gbp), "fx", "update", "--source", ecb])

    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"Wrote {tmp_path / 'rates' / 'today.toml'}: 9 rates in GBP")
    assert "GBP = 1\n" in (tmp_path / "rates" / "today.toml").read_text(encoding="utf-8")
    assert "To use them" not in result.output
    assert load_settings(gbp, {}).rank.fx_date is not None


def test_a_config_with_a_mistake_elsewhere_is_reported_before_fetching(tmp_path, ecb):
    broken = config(tmp_path, '[rank]\ncurrency = "GBP"\nprofile = "nonsense"\n')

    result = CliRunner().invoke(cli, ["--config", str(broken), "fx", "update", "--source", ecb])

    assert result.exit_code == 2
    assert "nonsense" in result.output
    assert not (tmp_path / "fx-rates.toml").exists()


GOOD_FILE = '# written before\ndate = "2026-01-02"\nUSD = 1\nEUR = 1.05\nGBP = 1.25\n'


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda x: x.replace("currency='GBP'", "currency='GB&#10;P'"), "is not a currency code"),
        (lambda x: x.replace("currency='GBP'", "currency='GBé'"), "is not a currency code"),
        (lambda x: x.replace("rate='0.8400'", "rate='1e308'"), "GBP at 1E+308 per euro"),
        (lambda x: x.replace("rate='0.8400'", "rate='0'"), "no positive rates"),
        (lambda x: x.replace(DAY.isoformat(), "2099-01-01"), "after today"),
        (lambda x: x.replace(DAY.isoformat(), "2020-01-01"), "days old"),
        (lambda x: x.replace("rate='0.8400'", "rate='0.3'"), "GBP moved from 1.25 to"),
    ],
    ids=["newline-code", "non-ascii-code", "huge", "zero", "future", "stale", "jump"],
)
def test_rates_the_loader_would_refuse_are_never_written_and_the_old_file_stays(
    tmp_path, change, message
):
    usd = config(tmp_path, '[rank]\nfx_file = "fx-rates.toml"\n')
    (tmp_path / "fx-rates.toml").write_text(GOOD_FILE, encoding="utf-8")
    server, url = serve(change(ECB.decode()).encode())
    try:
        result = CliRunner().invoke(cli, ["--config", str(usd), "fx", "update", "--source", url])
    finally:
        server.shutdown()

    assert result.exit_code != 0
    assert message in result.output
    assert (tmp_path / "fx-rates.toml").read_text(encoding="utf-8") == GOOD_FILE
    assert load_settings(usd, {}).rank.fx_rates["GBP"] == Decimal("1.25")


def test_a_write_that_fails_leaves_the_old_rates_and_no_temporary_file(tmp_path, ecb, monkeypatch):
    usd = config(tmp_path, '[rank]\nfx_file = "rates/fx.toml"\n')
    rates = tmp_path / "rates"
    rates.mkdir()
    (rates / "fx.toml").write_text(GOOD_FILE, encoding="utf-8")

    def full_disk(_fd: int) -> None:  # the disk fills up as the new rates are flushed
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    result = CliRunner().invoke(cli, ["--config", str(usd), "fx", "update", "--source", ecb])

    assert result.exit_code == 2
    assert "cannot write" in result.output and "No space left on device" in result.output
    assert (rates / "fx.toml").read_text(encoding="utf-8") == GOOD_FILE
    assert [p.name for p in rates.iterdir()] == ["fx.toml"]
