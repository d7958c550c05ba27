"""A local stand-in for eBay's search pages: a real HTTP server on 127.0.0.1 for tests.

It serves registered result pages at ``/sch/i.html`` by query (``_nkw``), sold or active
(``LH_Sold=1``) and page number (``_pgn``), logs every request, and can be told to
misbehave on the next requests the way eBay does: 429 with Retry-After, 5xx, a slow
answer, a body sent one byte at a time (``trickle_next``), a truncated body, a captcha page or a redirect to a sign-in wall.

    with FakeEbay() as ebay:
        ebay.add_page("tesla p40", html)            # active, page 1
        ebay.fail_next(status=429, retry_after=2)   # the next request gets a 429
        url = f"{ebay.base_url}/sch/i.html?_nkw=tesla+p40"
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, quote, urlsplit

from bench import SAMPLES
from rigscout.config.load import load_settings

if TYPE_CHECKING:
    from types import TracebackType

    from core.models import SavedSearch

SEARCH_PATH = "/sch/i.html"
SIGNIN_PATH = "/signin"
CAPTCHA_SAMPLE = SAMPLES / "html" / "block_security-measure_2026-08.html"

# Used only when the real saved challenge page is not next to the project.
HANDMADE_CAPTCHA = """<!DOCTYPE html><html lang="en"><head><title>Security Measure | eBay</title>
</head><body><div id="areaTitle"><h1>Please verify yourself to continue</h1></div>
<p>To keep eBay a safe place to buy and sell, we will occasionally ask you to verify
yourself. This helps us to block unauthorized users from entering our site.</p>
<div id="captcha_loading"></div></body></html>"""

NOT_FOUND = "<html><body>no such page here</body></html>"
NO_MORE_RESULTS = """<!DOCTYPE html><html lang="en"><head><title>eBay</title></head><body>
<h1 class="srp-controls__count-heading"><span class="BOLD">0</span> results</h1>
<ul class="srp-results srp-list clearfix"></ul></body></html>"""
TRUNCATED_START = "<html><body><ul class='srp-results'><li class='s-card'>cut he"

SIGNIN_PAGE = """<!DOCTYPE html><html lang="en"><head><title>Sign in or Register | eBay</title>
</head><body><div id="signin-container"><h1 id="greeting-msg">Hello</h1>
<p>Sign in to eBay or <a href="/reg">create an account</a></p>
<form id="signin-form" method="post" action="/signin/s"><input id="userid" name="userid">
<button id="signin-continue-btn">Continue</button></form></div></body></html>"""


@dataclass(frozen=True, slots=True)
class RecordedRequest:
    """One request the fake received, how it answered (``"page"``, ``"429"``, ...) and when
    (``time.monotonic()`` on arrival)."""

    path: str
    params: dict[str, str]
    user_agent: str | None
    answer: str
    at: float = 0.0
    accept_language: str | None = None

    @property
    def query(self) -> str | None:
        return self.params.get("_nkw")

    @property
    def page(self) -> int:
        return int(self.params.get("_pgn", "1"))


@dataclass(frozen=True, slots=True)
class _Fault:
    kind: str  # "status", "slow", "trickle", "trickle-headers", "truncate", "captcha", "signin", …
    page: int | None  # None: whichever page is asked for next
    status: int = 500
    retry_after: str | None = None
    seconds: float = 0.0


class FakeEbay:
    """A threaded HTTP server on a free port of 127.0.0.1; use it as a context manager.

    ``base_url`` is what ``[collector] base_url`` (or ``build_search_url(base_url=...)``)
    takes. ``requests`` lists every request received, in order. Faults queued with the
    ``*_next`` methods apply to the next search requests, one fault per request, in order;
    with ``page=N`` a fault waits for the next request of page N.

    A page past the last one registered for a query answers eBay's "0 results" page, so a
    collector stops there; a query with no pages at all answers 404.
    """

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._pages: dict[tuple[str, bool, int], str] = {}
        self._items: dict[str, str] = {}
        self._faults: deque[_Fault] = deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._release = threading.Event()
        self._server = _Server(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(target=self._serve, name="fake-ebay", daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> FakeEbay:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._release.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    # -- content ---------------------------------------------------------------------

    def add_page(self, query: str, html: str, *, sold: bool = False, page: int = 1) -> None:
        """Serve ``html`` for page ``page`` of ``query`` (sold results when ``sold``)."""
        with self._lock:
            self._pages[(query, sold, page)] = html

    def add_item(self, item_id: str, html: str) -> None:
        """Serve ``html`` as the item page ``/itm/<item_id>``."""
        with self._lock:
            self._items[item_id] = html

    def add_pages(self, query: str, pages: list[str], *, sold: bool = False) -> None:
        """Serve ``pages`` as pages 1, 2, ... of ``query``."""
        for number, html in enumerate(pages, start=1):
            self.add_page(query, html, sold=sold, page=number)

    def add_saved_pages(self, directory: Path, search: SavedSearch) -> int:
        """Serve the pages saved for ``search`` as ``offline_page_source`` reads them
        (``<directory>/<search.name>/<mode>-p<N>.html``) under its query; how many."""
        found = 0
        for path in sorted((directory / search.name).glob("*-p*.html")):
            mode, _, number = path.stem.rpartition("-p")
            if mode in {"active", "sold"} and number.isdigit():
                html = path.read_text(encoding="utf-8")
                self.add_page(search.query, html, sold=mode == "sold", page=int(number))
                found += 1
        return found

    # -- faults ----------------------------------------------------------------------

    def fail_next(
        self,
        status: int = 500,
        *,
        retry_after: float | str | None = None,
        times: int = 1,
        page: int | None = None,
    ) -> None:
        """Answer the next ``times`` requests with ``status`` (and a Retry-After header)."""
        header = None if retry_after is None else _retry_after_text(retry_after)
        self._queue(_Fault("status", page, status=status, retry_after=header), times)

    def slow_next(self, seconds: float, *, times: int = 1, page: int | None = None) -> None:
        """Wait ``seconds`` before answering the next requests (normally, if still there)."""
        self._queue(_Fault("slow", page, seconds=seconds), times)

    def trickle_next(
        self, seconds_per_byte: float = 1.0, *, times: int = 1, page: int | None = None
    ) -> None:
        """Answer at once with the headers, then send the body one byte every ``seconds_per_byte``
        (whitespace first, as a stalling server would), never idle long enough for a read timeout."""
        self._queue(_Fault("trickle", page, seconds=seconds_per_byte), times)

    def trickle_headers_next(
        self, seconds_per_byte: float = 0.5, *, times: int = 1, page: int | None = None
    ) -> None:
        """Send the status line and headers themselves one byte every ``seconds_per_byte``,
        never finishing them: what a read deadline on the body alone never stops."""
        self._queue(_Fault("trickle-headers", page, seconds=seconds_per_byte), times)

    def truncate_next(self, *, times: int = 1, page: int | None = None) -> None:
        """Promise more bytes in Content-Length than the body has, then close the connection."""
        self._queue(_Fault("truncate", page), times)

    def captcha_next(self, *, times: int = 1, page: int | None = None) -> None:
        """Answer 200 with eBay's "Security Measure" challenge page instead of results."""
        self._queue(_Fault("captcha", page), times)

    def signin_next(self, *, inline: bool = False, times: int = 1, page: int | None = None) -> None:
        """Redirect to a sign-in wall, as eBay does for sold searches since mid-2026.

        ``inline`` serves the sign-in page itself (200) at the search URL instead.
        """
        self._queue(_Fault("signin-page" if inline else "signin", page), times)

    def release(self) -> None:
        """End every slow answer now (and any later one at once): they answer as they would."""
        self._release.set()

    def count(self, query: str | None = None) -> int:
        """How many search requests arrived (for ``query`` only, when given)."""
        with self._lock:
            return sum(
                1
                for r in self.requests
                if r.path == SEARCH_PATH and (query is None or r.query == query)
            )

    # -- serving (called from the server's threads) ---------------------------------

    def _queue(self, fault: _Fault, times: int) -> None:
        with self._lock:
            self._faults.extend([fault] * times)

    def _serve(self) -> None:
        self._server.serve_forever(poll_interval=0.05)

    def _next_fault(self, page: int) -> _Fault | None:
        with self._lock:
            for index, fault in enumerate(self._faults):
                if fault.page in (None, page):
                    del self._faults[index]
                    return fault
            return None

    def _page(self, query: str, sold: bool, page: int) -> str | None:
        """The registered page, eBay's empty results past the last one, None for no query."""
        with self._lock:
            if (query, sold, page) in self._pages:
                return self._pages[(query, sold, page)]
            if any(key[:2] == (query, sold) for key in self._pages):
                return NO_MORE_RESULTS
            return None

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _wait(self, seconds: float) -> None:
        self._release.wait(seconds)


def _retry_after_text(value: float | str) -> str:
    return value if isinstance(value, str) else str(round(value))


def _captcha_html() -> str:
    if CAPTCHA_SAMPLE.is_file():
        return CAPTCHA_SAMPLE.read_text(encoding="utf-8")
    return HANDMADE_CAPTCHA


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hung up mid-answer is expected here; anything else is shown."""
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


def _handler_for(fake: FakeEbay) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        owner = fake

    return Handler


class _Handler(BaseHTTPRequestHandler):
    """Answers one request; every request is logged before its answer is written."""

    owner: FakeEbay
    server_version = "FakeEbay/1.0"
    _path = ""
    _arrived = 0.0
    _params: dict[str, str]

    def do_GET(self) -> None:
        self._arrived = time.monotonic()
        split = urlsplit(self.path)
        self._path = split.path
        self._params = dict(parse_qsl(split.query, keep_blank_values=True))
        if split.path == SIGNIN_PATH:
            self._send(200, SIGNIN_PAGE, "signin-page")
        elif split.path.startswith("/itm/"):
            self._answer_item(split.path.rsplit("/", 1)[1])
        elif split.path != SEARCH_PATH:
            self._send(404, NOT_FOUND, "404")
        else:
            self._answer_search()

    def _answer_search(self) -> None:
        fault = self.owner._next_fault(self._page_number())
        if fault is None:
            self._send_page("page")
        elif fault.kind == "slow":
            self._record("slow")
            self.owner._wait(fault.seconds)
            self._send_page(None)
        elif fault.kind == "trickle":
            self._record("trickle")
            self._trickle(fault.seconds)
        elif fault.kind == "trickle-headers":
            self._record("trickle-headers")
            self._trickle_headers(fault.seconds)
        else:
            self._answer_fault(fault)

    def _answer_item(self, item_id: str) -> None:
        fault = self.owner._next_fault(0)
        if fault is not None:
            self._answer_fault(fault)
            return
        with self.owner._lock:
            html = self.owner._items.get(item_id)
        if html is None:
            self._send(404, NOT_FOUND, "404")
        else:
            self._send(200, html, "item")

    def _page_number(self) -> int:
        number = self._params.get("_pgn", "1")
        return int(number) if number.isdigit() else 0

    def _send_page(self, label: str | None) -> None:
        sold = self._params.get("LH_Sold") == "1"
        html = self.owner._page(self._params.get("_nkw", ""), sold, self._page_number())
        if html is None:
            self._send(404, NOT_FOUND, label and "404")
        else:
            self._send(200, html, label)

    def _answer_fault(self, fault: _Fault) -> None:
        if fault.kind == "status":
            headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
            self._send(
                fault.status,
                f"<html><body>{fault.status}</body></html>",
                str(fault.status),
                headers,
            )
        elif fault.kind == "truncate":
            self._send(200, TRUNCATED_START, "truncated", missing=4096)
            self.close_connection = True
        elif fault.kind == "captcha":
            self._send(200, _captcha_html(), "captcha")
        elif fault.kind == "signin-page":
            self._send(200, SIGNIN_PAGE, "signin-page")
        else:
            target = f"{SIGNIN_PATH}?ru={quote(self.path, safe='')}"
            self._send(302, "", "signin", {"Location": target})

    def _trickle(self, seconds_per_byte: float) -> None:
        body = (" " * 64 + "<html><body>a page that never ends</body></html>").encode()
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            for index in range(len(body)):
                self.wfile.write(body[index : index + 1])
                self.wfile.flush()
                if self.owner._stop.wait(seconds_per_byte):
                    break
        except OSError:
            pass
        self.close_connection = True

    def _trickle_headers(self, seconds_per_byte: float) -> None:
        head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Stall: " + b"a" * 100_000
        try:
            for index in range(len(head)):
                self.wfile.write(head[index : index + 1])
                self.wfile.flush()
                if self.owner._stop.wait(seconds_per_byte):
                    break
        except OSError:
            pass
        self.close_connection = True

    def _record(self, label: str) -> None:
        user_agent = self.headers.get("User-Agent")
        language = self.headers.get("Accept-Language")
        self.owner._record(
            RecordedRequest(self._path, self._params, user_agent, label, self._arrived, language)
        )

    def _send(
        self,
        status: int,
        html: str,
        label: str | None,
        headers: dict[str, str] | None = None,
        *,
        missing: int = 0,
    ) -> None:
        """Log the request as ``label`` (unless None), then answer; ``missing`` bytes short."""
        if label is not None:
            self._record(label)
        body = html.encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body) + missing))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)
            self.wfile.flush()
        except OSError:
            # The client gave up (a timeout test); nobody is left to answer.
            self.close_connection = True

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the request log is ``FakeEbay.requests``."""


def main(argv: list[str] | None = None) -> int:
    """Serve saved pages for every search of a config file until interrupted.

    ``python -m tests.support.fake_ebay fixtures/demo rigscout/config/starter.toml`` prints the
    base URL to put in ``[collector] base_url`` for a local ``rigscout run``.
    """
    parser = argparse.ArgumentParser(prog="python -m tests.support.fake_ebay")
    parser.add_argument("directory", type=Path, help="<directory>/<search>/<mode>-p<N>.html")
    parser.add_argument("config", type=Path, help="the rigscout TOML file naming the searches")
    args = parser.parse_args(argv)
    settings = load_settings(args.config, {})
    with FakeEbay() as ebay:
        pages = sum(ebay.add_saved_pages(args.directory, s) for s in settings.searches)
        print(f"serving {pages} pages for {len(settings.searches)} searches at {ebay.base_url}")
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
