"""One HTTP exchange (or one SMTP step) bounded in wall time, from connect to the last byte.

httpx's timeouts bound each socket operation, not the request: a server that sends its body
one byte a second never trips a 20 s read timeout and can hold a request for hours.
``fetch_within`` streams the body, checks the clock between chunks and, should one read still
block past the deadline, shuts the socket down from a timer so the read returns at once.
``Watchdog`` is that timer; the email notifier arms it for each step of an SMTP session, whose
timeouts are per socket operation too.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import TYPE_CHECKING, Any, cast

import httpx

from core.errors import FetchError
from core.marketplaces import same_site

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator


class DeadlineExceeded(httpx.TimeoutException):
    """The whole exchange took longer than its deadline (a transient error, like a timeout)."""


def fetch_within(
    client: httpx.Client,
    method: str,
    url: str,
    *,
    seconds: float,
    auth: httpx.Auth | None = None,
    max_bytes: int | None = None,
    **kwargs: object,
) -> httpx.Response:
    """Send one request and read its whole body within ``seconds``; DeadlineExceeded if not.

    ``kwargs`` go to ``client.build_request`` (``headers``, ``params``, ``json``, ``data``…);
    ``auth`` (an OAuth client's Basic credentials, say) to ``client.send``. A GET's redirects
    are followed within the same site (``core.marketplaces.same_site``), each hop inside the
    same deadline; a redirect elsewhere, or any redirect of a POST, is the answer itself (a
    3xx the caller refuses), so a deal or a credential is never sent to another host.
    ``max_bytes``: a body longer than this is a ``FetchError`` as soon as it is, never read
    whole first.
    """
    deadline = time.monotonic() + max(0.0, seconds)
    request = client.build_request(
        method,
        url,
        timeout=httpx.Timeout(max(0.001, seconds)),
        **kwargs,  # type: ignore[arg-type]
    )
    response = _send_by(client, request, auth, deadline)
    history: list[httpx.Response] = []
    for _ in range(MAX_REDIRECTS):
        following = response.next_request
        if following is None or method != "GET":
            break
        if not same_site(request.url.host, following.url.host):
            break
        response.close()
        history.append(response)
        response = _send_by(client, following, auth, deadline)
    if response.is_stream_consumed:  # an in-memory transport answered with a read response
        response.history = history
        return response
    try:
        body = _read_body(response, deadline, request, max_bytes)
    finally:
        response.close()
    return httpx.Response(
        response.status_code,
        headers=response.headers,
        content=body,
        request=response.request,
        history=history,
        extensions={"http_version": response.http_version.encode()},
    )


MAX_REDIRECTS = 5


def text_of(response: httpx.Response) -> str:
    """The body as text in the charset the answer names; where that charset cannot decode it
    (``charset=utf-16`` on a body with no byte-order mark, say), as UTF-8 with the odd bytes
    replaced: a lying header costs a page's accents, never a crash."""
    try:
        return response.text
    except (UnicodeError, LookupError):
        return response.content.decode("utf-8", errors="replace")


def _send_by(
    client: httpx.Client, request: httpx.Request, auth: httpx.Auth | None, deadline: float
) -> httpx.Response:
    """``_send`` up to its status line and headers, given up at ``deadline``: a server that
    trickles its headers a byte at a time holds a daemon thread (which closes the response if
    it ever comes), never the caller nor the process's exit."""
    box: dict[str, Any] = {}
    lock = threading.Lock()

    def work() -> None:
        try:
            response = _send(client, request, auth)
        except BaseException as exc:  # handed to the caller, whatever it is
            box["error"] = exc
            return
        with lock:
            abandoned = box.setdefault("response", response) is not response
        if abandoned:
            response.close()

    worker = threading.Thread(target=work, name="rigscout-send", daemon=True)
    worker.start()
    worker.join(max(0.0, deadline - time.monotonic()))
    if worker.is_alive():
        with lock:
            if "response" not in box:  # given up: a late answer is closed by the worker
                box["response"] = None
                raise DeadlineExceeded(
                    "no status line and headers within the request deadline", request=request
                )
    if "error" in box:
        raise box["error"]
    return cast("httpx.Response", box["response"])


def _send(client: httpx.Client, request: httpx.Request, auth: httpx.Auth | None) -> httpx.Response:
    if auth is None:
        return client.send(request, stream=True, follow_redirects=False)
    return client.send(request, stream=True, follow_redirects=False, auth=auth)


def _read_body(
    response: httpx.Response, deadline: float, request: httpx.Request, max_bytes: int | None
) -> bytes:
    chunks: list[bytes] = []
    size = 0
    try:
        with _watchdog(response, deadline - time.monotonic()):
            for chunk in response.iter_raw():
                chunks.append(chunk)
                size += len(chunk)
                if max_bytes is not None and size > max_bytes:
                    raise FetchError(
                        f"answer larger than {max_bytes:,} bytes: not read further",
                        url=str(request.url),
                    )
                if time.monotonic() > deadline:
                    break
    except httpx.TransportError:
        if time.monotonic() <= deadline:
            raise
    if time.monotonic() > deadline:
        message = f"no complete answer within the request deadline ({len(b''.join(chunks))} bytes)"
        raise DeadlineExceeded(message, request=request)
    return b"".join(chunks)


class Watchdog:
    """Shuts a connection's socket down when the step in progress overruns its time.

    ``arm(seconds)`` before each step (re-arming restarts the clock); a read or write still
    blocked when the time is up returns at once with an error, and ``fired`` says why. The
    socket is looked up when the time is up, so a socket replaced midway (STARTTLS) is the
    one shut down.
    """

    def __init__(self, socket_of: Callable[[], socket.socket | None]) -> None:
        self._socket_of = socket_of
        self._timer: threading.Timer | None = None
        self.fired = False

    def arm(self, seconds: float) -> None:
        self.disarm()
        self._timer = threading.Timer(max(0.0, seconds), self._fire)
        self._timer.daemon = True
        self._timer.start()

    def disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def __enter__(self) -> Watchdog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.disarm()

    def _fire(self) -> None:
        sock = self._socket_of()
        if sock is not None:  # None: not connected yet, or an in-memory transport
            self.fired = True
            _shutdown(sock)


@contextlib.contextmanager
def _watchdog(response: httpx.Response, seconds: float) -> Iterator[None]:
    """Shut the response's socket down after ``seconds``, ending a read that still blocks."""
    sock = _socket_of(response)
    if sock is None:  # an in-memory transport: nothing can block, no timer needed
        yield
        return
    with Watchdog(lambda: sock) as watchdog:
        watchdog.arm(seconds)
        yield


def _socket_of(response: httpx.Response) -> socket.socket | None:
    stream = response.extensions.get("network_stream")
    if stream is None:
        return None
    sock = stream.get_extra_info("socket")
    return sock if isinstance(sock, socket.socket) else None


def _shutdown(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
