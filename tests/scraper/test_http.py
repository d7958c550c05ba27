"""PoliteFetcher on a mock transport with a fake clock: retries, backoff, budget, rate limit."""

from __future__ import annotations

import itertools
import random
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from core.errors import BlockedError, ConfigError, FetchError, RateLimitedError, UnreachableError
from core.settings import CollectorSettings
from scraper.http import PoliteFetcher

URL_BASE = "https://www.ebay.com/sch/i.html"
URL = f"{URL_BASE}?_nkw=tesla+p40&_pgn=1"
FAST = CollectorSettings(requests_per_second=1000.0, jitter=0.0, retries=4, backoff=2.0)


class FakeClock:
    """A monotonic clock that only moves when someone sleeps."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


Handler = Callable[[httpx.Request], httpx.Response]


def answers(*responses: httpx.Response | Exception) -> Handler:
    """A handler that gives these answers in order, then repeats the last one."""
    queue: Iterator[httpx.Response | Exception] = iter(responses)

    def handle(request: httpx.Request) -> httpx.Response:
        answer = next(queue, responses[-1])
        if isinstance(answer, Exception):
            raise answer
        return answer

    return handle


def fetcher_for(
    handler: Handler, settings: CollectorSettings = FAST, clock: FakeClock | None = None
) -> tuple[PoliteFetcher, FakeClock]:
    clock = clock or FakeClock()
    client = httpx.Client(transport=httpx.MockTransport(handler))
    fetcher = PoliteFetcher(client, settings, sleep=clock.sleep, clock=clock, rng=random.Random(7))
    return fetcher, clock


def ok(text: str = "<html>results</html>") -> httpx.Response:
    return httpx.Response(200, html=text)


@pytest.mark.parametrize(
    ("headers", "expected_wait"),
    [
        ({"Retry-After": "7"}, 7.0),
        ({"Retry-After": "1"}, 1.0),
        (
            {
                "Retry-After": "Fri, 20 Nov 2026 12:00:30 GMT",
                "Date": "Fri, 20 Nov 2026 12:00:00 GMT",
            },
            30.0,
        ),
        ({"Retry-After": "soon"}, 2.0),
        ({}, 2.0),
    ],
)
def test_429_waits_as_told_then_succeeds(headers: dict[str, str], expected_wait: float) -> None:
    fetcher, clock = fetcher_for(answers(httpx.Response(429, headers=headers), ok("fine")))
    assert fetcher.fetch_text(URL) == "fine"
    assert clock.sleeps == [expected_wait]
    assert fetcher.requests == 2


def test_a_retry_after_longer_than_max_retry_wait_defers_instead_of_retrying_early() -> None:
    """eBay's word is law: an hour's Retry-After is neither cut short nor waited out in place."""
    wall = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
    client = httpx.Client(
        transport=httpx.MockTransport(answers(httpx.Response(429, headers={"Retry-After": "3600"})))
    )
    clock = FakeClock()
    fetcher = PoliteFetcher(client, FAST, sleep=clock.sleep, clock=clock, wall=lambda: wall)
    with pytest.raises(RateLimitedError, match="wait 3600s") as caught:
        fetcher.fetch_text(URL, search="p40")
    assert caught.value.until == wall + timedelta(hours=1)
    assert (fetcher.requests, clock.sleeps) == (1, [])


@pytest.mark.parametrize("status", [500, 502, 503, 504, 429])
def test_backoff_doubles_then_gives_up_with_url_and_status(status: int) -> None:
    fetcher, clock = fetcher_for(answers(httpx.Response(status)))
    with pytest.raises(FetchError, match="after 5 attempts") as caught:
        fetcher.fetch_text(URL, search="p40")
    assert clock.sleeps == [2.0, 4.0, 8.0, 16.0]
    assert (caught.value.url, caught.value.status, caught.value.search) == (URL, status, "p40")
    assert fetcher.requests == 5


@pytest.mark.parametrize(
    "error",
    [
        httpx.ReadTimeout("read timed out"),
        httpx.RemoteProtocolError("peer closed connection without sending complete message body"),
    ],
)
def test_transient_network_errors_are_retried(error: Exception) -> None:
    fetcher, clock = fetcher_for(answers(error, ok("second time lucky")))
    assert fetcher.fetch_text(URL) == "second time lucky"
    assert clock.sleeps == [2.0]


def test_a_failed_connect_after_the_site_answered_is_a_blip_and_retried() -> None:
    fetcher, clock = fetcher_for(
        answers(ok("first"), httpx.ConnectError("connection refused"), ok("second time lucky"))
    )
    assert fetcher.fetch_text(URL) == "first"
    assert fetcher.fetch_text(URL) == "second time lucky"
    assert clock.sleeps[-1] == 2.0  # the retry's backoff, after the pacing between requests


def test_a_site_never_reached_fails_at_once_without_retries() -> None:
    """No DNS answer or a refused connection before anything got through: the network (or the
    base URL) is wrong, and retrying every search for minutes would only hide it."""
    fetcher, clock = fetcher_for(
        answers(httpx.ConnectError("[Errno -2] Name or service not known"))
    )
    with pytest.raises(UnreachableError, match=r"cannot reach www\.ebay\.com: \[Errno -2\]"):
        fetcher.fetch_text(URL, search="p40")
    assert (fetcher.requests, clock.sleeps) == (1, [])


def test_timeouts_every_time_end_in_fetch_error_without_status() -> None:
    fetcher, _ = fetcher_for(answers(httpx.ReadTimeout("read timed out")))
    with pytest.raises(FetchError, match="ReadTimeout") as caught:
        fetcher.fetch_text(URL)
    assert caught.value.status is None
    assert fetcher.requests == 5


@pytest.mark.parametrize("status", [400, 403, 404, 410])
def test_other_client_errors_fail_at_once(status: int) -> None:
    fetcher, clock = fetcher_for(answers(httpx.Response(status), ok()))
    with pytest.raises(FetchError, match=f"HTTP {status}") as caught:
        fetcher.fetch_text(URL, search="p40")
    assert caught.value.status == status
    assert (fetcher.requests, clock.sleeps) == (1, [])


def test_total_time_budget_stops_retrying_before_it_is_passed() -> None:
    settings = CollectorSettings(
        requests_per_second=1000.0, jitter=0.0, retries=10, backoff=4.0, max_total_seconds=10.0
    )
    fetcher, clock = fetcher_for(answers(httpx.Response(503)), settings)
    with pytest.raises(FetchError, match="time budget of 10s") as caught:
        fetcher.fetch_text(URL)
    assert caught.value.status == 503
    assert clock.sleeps == [4.0]
    assert fetcher.requests == 2


def test_spent_budget_refuses_new_requests() -> None:
    settings = CollectorSettings(requests_per_second=1000.0, max_total_seconds=60.0)
    fetcher, clock = fetcher_for(answers(ok()), settings)
    fetcher.fetch_text(URL)
    clock.now += 61
    with pytest.raises(FetchError, match="time budget"):
        fetcher.fetch_text(URL)
    assert fetcher.requests == 1


def test_long_retry_after_past_the_budget_gives_up_at_once() -> None:
    settings = CollectorSettings(requests_per_second=1000.0, max_total_seconds=60.0)
    fetcher, clock = fetcher_for(
        answers(httpx.Response(429, headers={"Retry-After": "120"})), settings
    )
    with pytest.raises(FetchError, match="waiting 120s more would pass"):
        fetcher.fetch_text(URL)
    assert clock.sleeps == []


@pytest.mark.parametrize(("rate", "jitter"), [(2.0, 0.0), (2.0, 0.5), (0.5, 0.25)])
def test_requests_are_spaced_by_the_rate_plus_bounded_jitter(rate: float, jitter: float) -> None:
    clock = FakeClock()
    starts: list[float] = []

    def handle(request: httpx.Request) -> httpx.Response:
        starts.append(clock.now)
        return ok()

    settings = CollectorSettings(requests_per_second=rate, jitter=jitter)
    fetcher, _ = fetcher_for(handle, settings, clock)
    for _ in range(20):
        fetcher.fetch_text(URL)
    gaps = [b - a for a, b in itertools.pairwise(starts)]
    interval = 1 / rate
    assert starts[0] == 0.0
    assert all(interval - 1e-9 <= gap <= interval * (1 + jitter) + 1e-9 for gap in gaps)
    if jitter:
        assert len({round(gap, 6) for gap in gaps}) > 1


def test_a_429_holds_back_every_request_not_only_its_own_retry() -> None:
    clock = FakeClock()
    starts: dict[str, list[float]] = {"a": [], "b": []}

    def handle(request: httpx.Request) -> httpx.Response:
        name = request.url.params["_nkw"]
        starts[name].append(clock.now)
        if name == "a" and len(starts["a"]) == 1:
            return httpx.Response(429, headers={"Retry-After": "30"})
        return ok()

    asked: list[str] = []

    def sleep_and_meanwhile_fetch_b(seconds: float) -> None:
        if not asked:  # another caller asks for "b" while "a" waits out its 429
            asked.append("b")
            fetcher.fetch_text(f"{URL_BASE}?_nkw=b")
        clock.sleep(seconds)

    client = httpx.Client(transport=httpx.MockTransport(handle))
    fetcher = PoliteFetcher(client, FAST, sleep=sleep_and_meanwhile_fetch_b, clock=clock)
    fetcher.fetch_text(f"{URL_BASE}?_nkw=a")
    assert starts["b"][0] >= 30.0
    assert starts["a"] == [0.0, pytest.approx(starts["b"][0] + 30.0, abs=0.01)]


@pytest.mark.parametrize(
    "settings",
    [
        CollectorSettings(requests_per_second=0),
        CollectorSettings(jitter=-0.1),
        CollectorSettings(concurrency=0),
    ],
)
def test_impossible_politeness_settings_are_config_errors(settings: CollectorSettings) -> None:
    with pytest.raises(ConfigError, match=r"\[collector\]"):
        PoliteFetcher(httpx.Client(), settings)


def test_slow_answers_do_not_cause_extra_waiting() -> None:
    clock = FakeClock()

    def handle(request: httpx.Request) -> httpx.Response:
        clock.now += 3.0  # the answer took longer than the interval
        return ok()

    fetcher, _ = fetcher_for(handle, CollectorSettings(requests_per_second=1.0, jitter=0.0), clock)
    fetcher.fetch_text(URL)
    fetcher.fetch_text(URL)
    assert clock.sleeps == []


def test_concurrency_is_capped_across_threads() -> None:
    lock = threading.Lock()
    in_flight = [0, 0]  # now, highest
    overlapped = threading.Event()  # set once two requests are in flight together

    def handle(request: httpx.Request) -> httpx.Response:
        with lock:
            in_flight[0] += 1
            in_flight[1] = max(in_flight[1], in_flight[0])
            if in_flight[0] >= 2:
                overlapped.set()
        overlapped.wait(timeout=10)  # hold the first until a second runs beside it: no timing
        with lock:
            in_flight[0] -= 1
        return ok()

    settings = CollectorSettings(requests_per_second=1000.0, concurrency=2)
    fetcher = PoliteFetcher(httpx.Client(transport=httpx.MockTransport(handle)), settings)
    threads = [threading.Thread(target=fetcher.fetch_text, args=(URL,)) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert in_flight[1] == 2
    assert fetcher.requests == 6


def test_sends_the_configured_user_agent() -> None:
    seen: list[str] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["User-Agent"])
        return ok()

    fetcher, _ = fetcher_for(handle, CollectorSettings(user_agent="rigscout-test/1 (me@example)"))
    fetcher.fetch_text(URL)
    assert seen == ["rigscout-test/1 (me@example)"]


@pytest.mark.parametrize(
    ("content_type", "encoding"),
    [
        ("text/html; charset=iso-8859-1", "iso-8859-1"),
        ("text/html; charset=windows-1252", "windows-1252"),
        ("text/html; charset=utf-8", "utf-8"),
        # a header that lies: UTF-16 named, UTF-8 sent (no byte-order mark): read as UTF-8
        ("text/html; charset=utf-16", "utf-8"),
        ("text/html; charset=no-such-charset", "utf-8"),
    ],
)
def test_decodes_with_the_charset_the_response_names(content_type: str, encoding: str) -> None:
    text = "Grafikkarte für Rechenzentren, 1.299,00 EUR"
    body = text.encode(encoding)
    fetcher, _ = fetcher_for(
        answers(httpx.Response(200, content=body, headers={"Content-Type": content_type}))
    )
    assert fetcher.fetch_text(URL) == text


def test_redirect_to_a_sign_in_wall_is_blocked_error() -> None:
    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.host == "signin.ebay.com":
            return ok("<title>Sign in or Register | eBay</title>")
        return httpx.Response(302, headers={"Location": "https://signin.ebay.com/signin/?ru=x"})

    fetcher, _ = fetcher_for(handle)
    with pytest.raises(BlockedError, match="sign-in wall") as caught:
        fetcher.fetch_text(URL, search="sold-p40")
    assert (caught.value.url, caught.value.search) == (URL, "sold-p40")


def test_ordinary_redirects_are_followed() -> None:
    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/sch/i.html" and request.url.host == "ebay.com":
            return httpx.Response(301, headers={"Location": URL})
        return ok("landed")

    fetcher, _ = fetcher_for(handle)
    assert fetcher.fetch_text("https://ebay.com/sch/i.html?_nkw=tesla+p40") == "landed"


def test_a_redirect_to_another_site_is_not_followed() -> None:
    """eBay's own hosts redirect among themselves; a page that sends the collector to another
    domain fails as that answer, and nothing is fetched there."""
    asked: list[str] = []

    def handle(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.host)
        if request.url.host == "www.ebay.com":
            return httpx.Response(302, headers={"Location": "https://evil.example/sch/i.html"})
        return ok("elsewhere")

    fetcher, _ = fetcher_for(handle)
    with pytest.raises(FetchError, match="HTTP 302"):
        fetcher.fetch_text(URL, search="p40")
    assert asked == ["www.ebay.com"]


def test_a_body_over_the_cap_is_refused_while_it_arrives_not_read_whole() -> None:
    """A 200 MB page once took 720 MB of memory before the size check: the cap now stops
    the read itself."""
    from core.deadline import fetch_within

    served: list[int] = []

    def endless():
        for _ in range(1000):
            served.append(1)
            yield b"x" * 65536  # 64 kB a chunk: 64 MB if read whole

    def handle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=endless())

    with (
        httpx.Client(transport=httpx.MockTransport(handle)) as client,
        pytest.raises(FetchError, match="larger than 1,000,000 bytes"),
    ):
        fetch_within(client, "GET", URL, seconds=5, max_bytes=1_000_000)
    assert len(served) < 30  # stopped near the cap, not at the end of the body
