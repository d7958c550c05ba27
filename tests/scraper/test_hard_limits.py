"""Hard limits hold whatever the server does: a request ends at its deadline, a run at its budget.

Played against the real local FakeEbay server, which can send a body one byte a second:
slow enough to hold a connection for minutes, never idle long enough for a read timeout.
"""

from __future__ import annotations

import time

import httpx
import pytest

from bench import SAMPLES
from core.errors import FetchError, ParseError
from core.models import Mode, SavedSearch
from core.settings import CollectorSettings
from scraper.collect import collect_search, web_page_source
from scraper.http import PoliteFetcher
from scraper.parse import MAX_PAGE_CHARS, check_page_shape, parse_search_page
from tests.support.fake_ebay import FakeEbay
from tests.support.memory_store import MemoryStore

P40 = SavedSearch(name="p40", query="tesla p40")


def collect(fetcher: PoliteFetcher, ebay: FakeEbay, search: SavedSearch = P40) -> None:
    source = web_page_source(fetcher, base_url=ebay.base_url)
    store = MemoryStore()
    collect_search(search, Mode.ACTIVE, fetch_page=source, is_known=store.is_known, max_pages=1)


def test_a_body_trickling_one_byte_a_second_is_cut_at_the_request_deadline() -> None:
    settings = CollectorSettings(requests_per_second=100.0, jitter=0.0, timeout=1.5, retries=0)
    with FakeEbay() as ebay, httpx.Client() as client:
        ebay.add_page(P40.query, "<html></html>")
        ebay.trickle_next(seconds_per_byte=0.2)
        fetcher = PoliteFetcher(client, settings)
        started = time.monotonic()
        with pytest.raises(FetchError, match="no complete answer within the request deadline"):
            collect(fetcher, ebay)
        elapsed = time.monotonic() - started
    # Reported as the timeout it is, not as an "unknown results layout" of whitespace.
    assert 1.5 <= elapsed < 2.5


def test_a_trickled_answer_is_retried_and_the_retry_succeeds() -> None:
    settings = CollectorSettings(
        requests_per_second=100.0, jitter=0.0, timeout=0.8, retries=1, backoff=0.01
    )
    page = "<html><body><h1 class='srp-controls__count-heading'>0 results</h1></body></html>"
    with FakeEbay() as ebay, httpx.Client() as client:
        ebay.add_page(P40.query, page)
        ebay.trickle_next(seconds_per_byte=0.2)
        fetcher = PoliteFetcher(client, settings)
        collect(fetcher, ebay)
        assert [r.answer for r in ebay.requests] == ["trickle", "page"]


def test_a_run_ends_within_seconds_of_its_budget_whatever_the_server_does() -> None:
    """Three searches against a server that trickles every answer: the run budget holds."""
    settings = CollectorSettings(
        requests_per_second=100.0,
        jitter=0.0,
        timeout=20.0,
        retries=3,
        backoff=0.1,
        max_total_seconds=2.0,
    )
    searches = [SavedSearch(name=f"s{n}", query=f"query {n}") for n in range(3)]
    failures: list[str] = []
    with FakeEbay() as ebay, httpx.Client() as client:
        for search in searches:
            ebay.add_page(search.query, "<html></html>")
        ebay.trickle_next(seconds_per_byte=1.0, times=50)
        fetcher = PoliteFetcher(client, settings)
        started = time.monotonic()
        for search in searches:
            with pytest.raises(FetchError) as caught:
                collect(fetcher, ebay, search)
            failures.append(str(caught.value))
        elapsed = time.monotonic() - started
    assert elapsed < 2.0 + 1.0
    assert all("time budget of 2s" in f or "request deadline" in f for f in failures)
    assert "time budget of 2s" in failures[-1]


def test_a_deeply_nested_page_is_refused_fast_and_the_run_goes_on() -> None:
    """200,000 nested tags would hold the HTML parser for minutes (its time grows with the
    square of the nesting): the page is refused as "too deep" in well under a second."""
    hostile = "<html><body>" + "<div>" * 200_000 + "x" + "</div>" * 200_000 + "</body></html>"
    settings = CollectorSettings(requests_per_second=100.0, jitter=0.0, retries=0)
    with FakeEbay() as ebay, httpx.Client() as client:
        ebay.add_page(P40.query, hostile)
        fetcher = PoliteFetcher(client, settings)
        started = time.process_time()
        with pytest.raises(ParseError, match="page too deep"):
            collect(fetcher, ebay)
        assert time.process_time() - started < 1.0


def test_a_page_larger_than_any_results_page_is_refused() -> None:
    with pytest.raises(ParseError, match="page too large"):
        parse_search_page("<html>" + " " * (MAX_PAGE_CHARS + 1) + "</html>")


def test_real_pages_are_far_from_the_nesting_limit() -> None:
    for path in sorted((SAMPLES / "html").glob("srp_*.html")):
        check_page_shape(path.read_text(encoding="utf-8", errors="replace"))  # no error


@pytest.mark.parametrize(
    "level",
    [
        "<div></x>",  # an end tag that closes nothing: the parser ignores it
        '<a title="</a>">',  # an end tag inside an attribute value
        "<div><!-- </div> -->",  # an end tag inside a comment
        "<div><script>var s = '</div>';</script>",  # an end tag inside a script
        "<div/>",  # a self-closing slash on a div, which an HTML parser ignores
    ],
    ids=["stray end tag", "in an attribute", "in a comment", "in a script", "div slash"],
)
def test_no_markup_trick_hides_the_nesting_from_the_depth_guard(level: str) -> None:
    """A guard that counted every end tag as closing one level saw depth 1 where the parser
    built 150,000: 27 s of parsing inside a 5 s budget."""
    hostile = "<html><body>" + level * 150_000 + "</body></html>"
    started = time.process_time()
    with pytest.raises(ParseError, match="page too deep"):
        check_page_shape(hostile)
    assert time.process_time() - started < 1.0


@pytest.mark.slow
def test_a_daily_run_against_a_server_trickling_its_headers_ends_on_budget_and_frees_the_lock(
    tmp_path,
):
    """`rigscout run`, every answer's status line and headers a byte every half second: the run
    ends within max_total_seconds and a few seconds, says the searches failed, and the next
    run can take the lock (a cron job is never refused for ever)."""
    from click.testing import CliRunner

    from db.engine import open_engine
    from db.lock import run_lock
    from rigscout.cli.main import cli
    from tests.support.cli import write_config

    with FakeEbay() as ebay:
        ebay.trickle_headers_next(0.5, times=1000)
        extra = (
            f'[collector]\nbase_url = "{ebay.base_url}"\nrequests_per_second = 50.0\n'
            "jitter = 0.0\ntimeout = 2.0\nretries = 1\nmax_pages = 1\nmax_total_seconds = 4.0\n"
        )
        config = write_config(tmp_path, f"sqlite:///{tmp_path / 'r.db'}", extra=extra)
        started = time.monotonic()
        result = CliRunner().invoke(cli, ["--config", str(config), "run", "--no-alerts"])
        elapsed = time.monotonic() - started
    assert result.exit_code == 1, result.output
    assert "failed searches" in result.output
    assert elapsed < 4.0 + 6.0, elapsed
    engine = open_engine(f"sqlite:///{tmp_path / 'r.db'}")
    with run_lock(engine):  # free: taken at once
        pass
    engine.dispose()
