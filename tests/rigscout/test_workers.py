"""Several `rigscout run --worker` processes share the day's searches on PostgreSQL, without overlap."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.models import SearchLeaseRow
from tests.rigscout.helpers import (
    collector_config,
    engine_url,
    rigscout_process,
    serve_demo_pages,
    write_config,
)
from tests.support.fake_ebay import FakeEbay

LEASED = re.compile(r"worker (\S+) leased search (\S+)")


@pytest.mark.slow
@pytest.mark.parametrize("db_url", ["postgres"], indirect=True)
def test_two_workers_collect_every_search_exactly_once(engine, tmp_path):
    with FakeEbay() as fake:
        serve_demo_pages(fake)
        config = write_config(
            tmp_path, engine_url(engine), extra=collector_config(fake.base_url, rate=8.0)
        )
        args = ["-v", "--config", str(config), "run", "--worker", "--no-alerts"]
        workers = [rigscout_process(args) for _ in range(2)]
        outputs = [w.communicate(timeout=240) for w in workers]
        requested = {(r.query, r.page, r.params.get("LH_Sold")) for r in fake.requests}
        total_requests = len(fake.requests)

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
