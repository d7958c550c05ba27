"""A bulk step pauses the cyclic collector and always gives it back."""

from __future__ import annotations

import gc

import pytest

from rigscout.jobs.bulk import collector_paused


@pytest.fixture(autouse=True)
def _collector_on() -> None:
    gc.enable()


def test_the_collector_is_paused_inside_and_running_after() -> None:
    with collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_an_error_inside_still_gives_the_collector_back() -> None:
    with pytest.raises(RuntimeError), collector_paused():
        raise RuntimeError("the store went away")
    assert gc.isenabled()


def test_a_nested_block_does_not_resume_the_collector_early() -> None:
    with collector_paused():
        with collector_paused():
            pass
        assert not gc.isenabled()
    assert gc.isenabled()


def test_overlapping_blocks_of_two_jobs_end_with_the_collector_running() -> None:
    first, second = collector_paused(), collector_paused()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)  # the first job ends while the second still builds
    assert gc.isenabled()
    second.__exit__(None, None, None)
    assert gc.isenabled()


def test_a_collector_the_caller_turned_off_stays_off() -> None:
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
