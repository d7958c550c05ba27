"""The run record: visible as soon as a run starts, finished with a status, or interrupted."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy.orm import Session

from core.errors import StoreError
from db.runs import (
    STALE_AFTER,
    RunCounts,
    finish_run,
    load_runs,
    save_interrupted_runs,
    start_run,
)


def test_a_started_run_is_visible_to_other_sessions_at_once(engine, now):
    with Session(engine) as session:
        run_id = start_run(session, source="web", now=now)

        with Session(engine) as other:
            [run] = load_runs(other)

    assert (run.id, run.status, run.source, run.started_at) == (run_id, "running", "web", now)
    assert run.duration is None


@pytest.mark.parametrize(
    ("listings_seen", "errors", "status"),
    [
        (40, [], "ok"),
        (40, [{"search": "p40", "error": "captcha"}], "partial"),
        (0, [{"search": "p40", "error": "captcha"}], "failed"),
        (0, [], "ok"),
    ],
)
def test_a_finished_run_keeps_its_counts_errors_and_status(
    session, now, listings_seen, errors, status
):
    run_id = start_run(session, source="web", now=now)
    counts = RunCounts(searches=3, requests=9, listings_seen=listings_seen, listings_new=5)

    finish_run(session, run_id, counts=counts, errors=errors, now=now + timedelta(seconds=95))

    with Session(session.get_bind()) as other:
        [run] = load_runs(other)
    assert (run.status, run.counts, list(run.errors)) == (status, counts, errors)
    assert run.duration == timedelta(seconds=95)


def test_finishing_an_unknown_run_is_a_store_error(session, now):
    with pytest.raises(StoreError, match="run 42"):
        finish_run(session, 42, counts=RunCounts(), errors=[], now=now)


def test_runs_are_listed_newest_first_up_to_the_limit(session, now):
    ids = [start_run(session, source=f"run{i}", now=now + timedelta(days=i)) for i in range(5)]

    runs = load_runs(session, limit=3)

    assert [run.id for run in runs] == ids[::-1][:3]


def test_the_next_run_marks_every_run_left_running_as_interrupted(session, now):
    killed = start_run(session, source="web", now=now - timedelta(minutes=1))
    done = start_run(session, source="web", now=now - timedelta(hours=6))
    finish_run(session, done, counts=RunCounts(), errors=[], now=now - timedelta(hours=5))

    assert save_interrupted_runs(session, now) == 1

    statuses = {run.id: run.status for run in load_runs(session)}
    assert statuses == {killed: "interrupted", done: "ok"}


def test_lock_free_workers_interrupt_only_stale_runs(session, now):
    killed = start_run(session, source="web", now=now - STALE_AFTER - timedelta(minutes=1))
    alive = start_run(session, source="web", now=now - timedelta(minutes=10))

    assert save_interrupted_runs(session, now, stale_after=STALE_AFTER) == 1

    statuses = {run.id: run.status for run in load_runs(session)}
    assert statuses == {killed: "interrupted", alive: "running"}


def test_a_run_wrongly_marked_interrupted_gets_its_status_back_when_it_finishes(session, now):
    run_id = start_run(session, source="web", now=now)
    save_interrupted_runs(session, now)

    finish_run(session, run_id, counts=RunCounts(listings_seen=3), errors=[], now=now)

    assert [run.status for run in load_runs(session)] == ["ok"]
