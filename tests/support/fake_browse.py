"""A local stand-in for the eBay Browse API: a real HTTP server on 127.0.0.1 for tests.

It mints OAuth application tokens at ``/identity/v1/oauth2/token`` (Basic auth, client
credentials) and answers ``/buy/browse/v1/item_summary/search`` from real itemSummary objects,
wrapped in eBay's envelope (``total``, ``next``, ``offset``, ``limit``). Like eBay it returns
only Buy It Now listings unless ``buyingOptions`` asks for auctions, and it filters by the
``price:[lo..hi]`` band. It can revoke its tokens (the next call gets 401), answer 429 or 500,
send its token answer one byte at a time (``trickle_token_next``), and claim a larger ``total``
than it holds, so a search looks bigger than eBay's 10,000 cap.

    with FakeBrowse(items, client_id="id", client_secret="secret") as api:
        api.fail_next(429, retry_after="1")
        ...  # ApiSettings(base_url=api.base_url, ...)
"""

from __future__ import annotations

import base64
import json
import re
import threading
import time
from collections import deque
from dataclasses import dataclass
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit

if TYPE_CHECKING:
    from types import TracebackType

TOKEN_PATH = "/identity/v1/oauth2/token"
SEARCH_PATH = "/buy/browse/v1/item_summary/search"
SCOPE = "https://api.ebay.com/oauth/api_scope"


@dataclass(frozen=True, slots=True)
class Call:
    """One request the fake received and the status it answered."""

    path: str
    params: dict[str, str]
    headers: dict[str, str]
    status: int

    @property
    def is_token(self) -> bool:
        return self.path == TOKEN_PATH

    @property
    def filters(self) -> str:
        return self.params.get("filter", "")


class FakeBrowse:
    """A threaded HTTP server on a free port of 127.0.0.1; use it as a context manager.

    ``items`` are itemSummary dicts. ``total_scale`` multiplies the ``total`` reported for
    any query (the pages still hold only the real matching items).
    """

    def __init__(
        self,
        items: list[dict[str, Any]],
        *,
        client_id: str = "test-client-id",
        client_secret: str = "test-client-secret",
        total_scale: int = 1,
        token_lifetime: int = 7200,
        echo_credentials: bool = False,
    ) -> None:
        self.items = items
        self.client_id = client_id
        self.client_secret = client_secret
        self.total_scale = total_scale
        self.token_lifetime = token_lifetime
        self.echo_credentials = echo_credentials  # a refusal repeats the credentials it got
        self.calls: list[Call] = []
        self._tokens: set[str] = set()
        self._minted = 0
        self._faults: deque[tuple[int, str | None]] = deque()
        self._token_trickles: deque[float] = deque()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def token_calls(self) -> list[Call]:
        return [c for c in self.calls if c.is_token]

    @property
    def search_calls(self) -> list[Call]:
        return [c for c in self.calls if not c.is_token]

    def fail_next(self, status: int, *, times: int = 1, retry_after: str | None = None) -> None:
        """The next ``times`` search requests answer ``status``."""
        with self._lock:
            self._faults.extend([(status, retry_after)] * times)

    def trickle_token_next(self, seconds_per_byte: float, *, times: int = 1) -> None:
        """The next ``times`` token answers come one byte every ``seconds_per_byte``."""
        with self._lock:
            self._token_trickles.extend([seconds_per_byte] * times)

    def token_trickle(self, path: str) -> float | None:
        """Seconds per byte for this answer, when it is a token answer to trickle."""
        with self._lock:
            if path == TOKEN_PATH and self._token_trickles:
                return self._token_trickles.popleft()
        return None

    def revoke_tokens(self) -> None:
        """Every token minted so far stops working (eBay answers 401 to them)."""
        with self._lock:
            self._tokens.clear()

    def __enter__(self) -> FakeBrowse:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    # The request handler calls these on its own threads.

    def answer(
        self, method: str, path: str, params: dict[str, str], headers: dict[str, str]
    ) -> tuple[int, dict[str, str], dict[str, Any]]:
        if method == "POST" and path == TOKEN_PATH:
            status, extra, body = self._token(params, headers)
        elif method == "GET" and path == SEARCH_PATH:
            status, extra, body = self._search(params, headers)
        else:
            status, extra, body = 404, {}, _error(404, "no such resource")
        with self._lock:
            self.calls.append(Call(path, params, headers, status))
        return status, extra, body

    def _token(
        self, form: dict[str, str], headers: dict[str, str]
    ) -> tuple[int, dict[str, str], dict[str, Any]]:
        expected = base64.b64encode(f"{self.client_id}:{self.client_secret}".encode()).decode()
        sent = headers.get("authorization", "")
        if sent != f"Basic {expected}":
            body: dict[str, Any] = {
                "error": "invalid_client",
                "error_description": "client authentication failed",
            }
            if self.echo_credentials:
                given = base64.b64decode(sent.removeprefix("Basic ") or b"").decode()
                body |= _error(401, f"client authentication failed for {given} ({sent})")
            return 401, {}, body
        if form.get("grant_type") != "client_credentials" or form.get("scope") != SCOPE:
            return 400, {}, {"error": "invalid_request", "error_description": "bad grant or scope"}
        with self._lock:
            self._minted += 1
            token = f"v^1.1#fake-token-{self._minted}"
            self._tokens.add(token)
        body = {
            "access_token": token,
            "expires_in": self.token_lifetime,
            "token_type": "Application Access Token",
        }
        return 200, {}, body

    def _search(
        self, params: dict[str, str], headers: dict[str, str]
    ) -> tuple[int, dict[str, str], dict[str, Any]]:
        with self._lock:
            fault = self._faults.popleft() if self._faults else None
            token_ok = headers.get("authorization", "").removeprefix("Bearer ") in self._tokens
        if fault is not None:
            status, retry_after = fault
            return (
                status,
                {"Retry-After": retry_after} if retry_after else {},
                _error(status, "fault"),
            )
        if not token_ok:
            return 401, {}, _error(1001, "Invalid access token")
        if not headers.get("x-ebay-c-marketplace-id"):
            return 400, {}, _error(12001, "X-EBAY-C-MARKETPLACE-ID is missing")
        return 200, {}, self._page(params)

    def _page(self, params: dict[str, str]) -> dict[str, Any]:
        matching = [i for i in self.items if _matches(i, params.get("filter", ""))]
        offset, limit = int(params.get("offset", "0")), int(params.get("limit", "50"))
        href = f"{self.base_url}{SEARCH_PATH}?{urlencode(params)}"
        page: dict[str, Any] = {
            "href": href,
            "total": len(matching) * self.total_scale,
            "limit": limit,
            "offset": offset,
        }
        if offset + limit < len(matching):
            following = urlencode({**params, "offset": str(offset + limit)})
            page["next"] = f"{self.base_url}{SEARCH_PATH}?{following}"
        chunk = matching[offset : offset + limit]
        if chunk:  # eBay leaves the key out of an empty page
            page["itemSummaries"] = chunk
        return page


def _matches(item: dict[str, Any], filters: str) -> bool:
    wanted = re.search(r"buyingOptions:\{([^}]*)\}", filters)
    options = set(wanted.group(1).split("|")) if wanted else {"FIXED_PRICE"}
    if not options & set(item.get("buyingOptions", [])):
        return False
    band = re.search(r"price:\[(\d*(?:\.\d+)?)(?:\.\.(\d+(?:\.\d+)?))?\]", filters)
    if band is None:
        return True
    amount = item.get("currentBidPrice") or item["price"]
    price = Decimal(amount["value"])
    low, high = band.group(1), band.group(2)
    return (not low or price >= Decimal(low)) and (not high or price <= Decimal(high))


def _error(code: int, message: str) -> dict[str, Any]:
    return {
        "errors": [
            {"errorId": code, "domain": "API_BROWSE", "category": "REQUEST", "message": message}
        ]
    }


def _handler(fake: FakeBrowse) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            url = urlsplit(self.path)
            self._reply(*fake.answer("GET", url.path, dict(parse_qsl(url.query)), self._headers()))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            form = dict(parse_qsl(self.rfile.read(length).decode()))
            path = urlsplit(self.path).path
            trickle = fake.token_trickle(path)
            self._reply(*fake.answer("POST", path, form, self._headers()), trickle=trickle)

        def _headers(self) -> dict[str, str]:
            return {k.lower(): v for k, v in self.headers.items()}

        def _reply(
            self,
            status: int,
            extra: dict[str, str],
            body: dict[str, Any],
            *,
            trickle: float | None = None,
        ) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in extra.items():
                self.send_header(name, value)
            self.end_headers()
            if trickle is None:
                self.wfile.write(data)
                return
            try:
                for byte in data:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(trickle)
            except OSError:  # the client gave up at its deadline
                return

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler
