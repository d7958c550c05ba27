"""Several `rigscout run --worker` processes share the day's searches on PostgreSQL: no search
twice, one request rate between them, a failed search retried by a later worker, and run rows
that count their own searches and every request they sent."""

from __future__ import annotations

import bisect
import re

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.models import RunRow, SearchLeaseRow
from tests.support.cli import (
    collector_config,
    engine_url,
    rigscout_process,
    serve_demo_pages,
    write_config,
)
from tests.support.fake_ebay import FakeEbay

RATE = 4.0
LEASED = re.compile(r"worker (\S+) leased search (\S+)")


def busiest_second(arrivals: list[float]) -> list[int]:
    """For each arrival, how many arrivals fall in the second that starts with it."""
    return [bisect.bisect_left(arrivals, at + 1.0) - i for i, at in enumerate(arrivals)]


@pytest.mark.slow
@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_two_workers_collect_every_search_exactly_once(engine, tmp_path):
    with FakeEbay() as fake:
        serve_demo_pages(fake)
        config = write_config(
            tmp_path, engine_url(engine), extra=collector_config(fake.base_url, rate=RATE)
        )
        args = ["-v", "--config", str(config), "run", "--worker", "--no-alerts"]
        workers = [rigscout_process(args) for _ in range(2)]
        outputs = [w.communicate(timeout=240) for w in workers]
        requested = {(r.query, r.page, r.params.get("LH_Sold")) for r in fake.requests}
        total_requests = len(fake.requests)
        arrivals = sorted(r.at for r in fake.requests)

    for worker, (_, stderr) in zip(workers, outputs, strict=True):
        assert worker.returncode == 0, stderr
    leased = [LEASED.findall(stderr) for _, stderr in outputs]
    names = [name for found in leased for _, name in found]
    assert sorted(names) == sorted(set(names)), "a search was collected twice"
    assert len(names) == 11
    assert all(found for found in leased), "one worker got no search at all"
    with Session(engine) as session:
        rows = session.scalars(select(SearchLeaseRow)).all()
    assert len(rows) == 11 and {r.status for r in rows} == {"done"}
    # Every page was asked for once: no search was fetched by both workers.
    assert total_requests == len(requested)
    # One rate between them: two workers at 4 requests/s send 4 a second, not 8.
    rate = (len(arrivals) - 1) / (arrivals[-1] - arrivals[0])
    assert rate <= RATE * 1.1
    # Nor in bursts: no second holds more than 4, plus one start that the machine delayed
    # (a worker descheduled after its wait arrives late, next to the other worker's on-time
    # start; the pacer books start times, it cannot move the kernel's scheduler).
    assert max(busiest_second(arrivals)) <= RATE + 1
    # Each run row counts its own searches and requests.
    with Session(engine) as session:
        runs = session.scalars(select(RunRow)).all()
    assert sorted(r.searches for r in runs) == sorted(len(found) for found in leased)
    assert sum(r.requests for r in runs) == total_requests


@pytest.mark.slow
@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_a_search_that_failed_under_one_worker_is_retried_by_the_next(engine, tmp_path):
    with FakeEbay() as fake:
        serve_demo_pages(fake)
        config = write_config(
            tmp_path, engine_url(engine), extra=collector_config(fake.base_url, rate=50.0)
        )
        args = ["-v", "--config", str(config), "run", "--worker", "--no-alerts"]
        args += ["--search", "p40", "--search", "a100"]
        fake.fail_next(status=500, times=2)  # the first search leased fails (`retries = 1`)
        first = rigscout_process(args)
        _, first_log = first.communicate(timeout=120)
        with Session(engine) as session:
            after_first = {r.search: r.status for r in session.scalars(select(SearchLeaseRow))}
        second = rigscout_process(args)
        _, second_log = second.communicate(timeout=120)

    assert first.returncode == 1, first_log
    failed = [name for name, status in after_first.items() if status == "failed"]
    assert len(failed) == 1
    assert second.returncode == 0, second_log
    assert [name for _, name in LEASED.findall(second_log)] == failed
    with Session(engine) as session:
        statuses = {r.search: r.status for r in session.scalars(select(SearchLeaseRow))}
    assert statuses == {"p40": "done", "a100": "done"}
