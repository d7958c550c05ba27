"""The collector under eBay's faults, end to end through `rigscout run` on a real database.

eBay's word is law: a Retry-After longer than ``max_retry_wait`` defers the search, recorded in
the database, so neither this run nor the next asks again before the time eBay named; and a
run row counts every request it sent, those of failed searches included.
"""

from __future__ import annotations

import time

from click.testing import CliRunner
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.models import RunRow
from rigscout.cli.main import cli
from tests.support.cli import (
    collector_config,
    engine_url,
    rigscout_process,
    serve_demo_pages,
    write_config,
)
from tests.support.fake_ebay import FakeEbay

P40 = "tesla p40 24gb"


def run(config, *args: str):
    return CliRunner().invoke(
        cli,
        ["--config", str(config), "run", "--no-alerts", "--search", "p40", *args],
        catch_exceptions=False,
    )


def last_run(engine) -> RunRow:
    with Session(engine) as session:
        return session.scalars(select(RunRow).order_by(RunRow.id.desc())).first()


def test_an_hours_retry_after_defers_the_search_for_this_run_and_the_next(engine, tmp_path):
    with FakeEbay() as ebay:
        serve_demo_pages(ebay)
        config = write_config(tmp_path, engine_url(engine), collector_config(ebay.base_url, 50.0))
        ebay.fail_next(status=429, retry_after=3600)

        first = run(config)
        asked_first = ebay.count(P40)
        second = run(config)
        asked_second = ebay.count(P40) - asked_first

    assert first.exit_code == 1
    assert "eBay asks us to wait 3600s (Retry-After)" in first.output
    # One request, no early retry; the sold search of p40 is not tried either.
    assert asked_first == 1
    assert "deferred: eBay asked us to wait until" in first.output
    # The next run leaves the search alone too, without a single request.
    assert second.exit_code == 1
    assert asked_second == 0
    assert "deferred: eBay asked us to wait until" in second.output


def test_a_run_row_counts_the_requests_of_failed_searches(engine, tmp_path):
    with FakeEbay() as ebay:
        serve_demo_pages(ebay)
        config = write_config(tmp_path, engine_url(engine), collector_config(ebay.base_url, 50.0))
        ebay.fail_next(status=500, times=2)  # `retries = 1`: the active search fails
        result = run(config)
        sent = ebay.count(P40)

    assert result.exit_code == 1
    row = last_run(engine)
    assert row.requests == sent == 2 + 1  # two failed tries of active, one sold page
    assert row.searches == 1


def test_with_the_network_down_a_run_fails_in_seconds_with_one_line(tmp_path):
    """No route to eBay (here: nothing listens on the port): the first request says so and the
    run stops, instead of retrying every search for minutes."""
    from tests.support.smtp_server import closed_port

    extra = collector_config(f"http://127.0.0.1:{closed_port()}", rate=4.0)
    config = write_config(tmp_path, f"sqlite:///{tmp_path / 'r.db'}", extra=extra)
    started = time.monotonic()
    proc = rigscout_process(["--config", str(config), "run", "--no-alerts"])
    _, err = proc.communicate(timeout=60)
    elapsed = time.monotonic() - started
    assert elapsed < 15
    assert proc.returncode == 1, err
    (line,) = err.strip().splitlines()
    assert line.startswith("Error: cannot reach 127.0.0.1:") or "cannot reach 127.0.0.1" in line
    assert "check the connection or [collector] base_url" in line
    runs = CliRunner().invoke(cli, ["--config", str(config), "runs", "--json"])
    assert '"status": "failed"' in runs.output
