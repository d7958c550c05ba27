"""``rigscout report --serve``: the report page over HTTP on 127.0.0.1, until Ctrl-C.

It serves the one file the report writes (``index.html``, with its CSS, script and charts
inline) and nothing else: no other file of the folder, no directory listing, no symlink out of
it. A request whose Host header is not the address it listens on is refused (a web page in the
browser cannot reach it through DNS rebinding), idle connections are closed after a few
seconds (and any connection after that long, however slowly it trickles), and at most
``MAX_CONNECTIONS`` are served at once; a client that resets costs no traceback. A folder
that holds a database or a config file is not served at all.
"""

from __future__ import annotations

import logging
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from core.deadline import Watchdog
from core.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

log = logging.getLogger(__name__)
PAGE = "index.html"
ROUTES = ("/", f"/{PAGE}")
IDLE_SECONDS = 10.0  # an idle or slow client is cut off after this long
MAX_CONNECTIONS = 16
LOOPBACK = "127.0.0.1"
PRIVATE = ("*.db", "*.db-*", "*.sqlite", "*.sqlite3", "*.toml", "*.lock")


class ReportServer(ThreadingHTTPServer):
    """One thread per connection, never more than ``max_connections`` at once."""

    daemon_threads = True

    def __init__(
        self,
        folder: Path,
        port: int,
        *,
        idle_seconds: float,
        max_connections: int,
        host: str = LOOPBACK,
    ):
        self.folder = folder
        self.idle_seconds = idle_seconds
        self._slots = threading.BoundedSemaphore(max_connections)
        super().__init__((host, port), _PageHandler)
        bound = self.server_address[1]
        # On loopback, only a page asked for by a loopback name is served (no DNS rebinding);
        # bound elsewhere (a container's 0.0.0.0, by choice), any name the network uses.
        self.hosts: set[str] | None = (
            {f"{LOOPBACK}:{bound}", f"localhost:{bound}"} if host == LOOPBACK else None
        )

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)  # full: the client may try again
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that resets or is cut off mid-request is no error of ours: one debug
        line, no traceback on the terminal."""
        log.debug("report client %s dropped: %s", client_address, sys.exc_info()[1])

    def page(self) -> bytes | None:
        """The report page, if it is a plain file inside the folder."""
        path = self.folder / PAGE
        if path.is_symlink() or not path.is_file():
            return None
        return path.read_bytes()


class _PageHandler(BaseHTTPRequestHandler):
    server: ReportServer

    def setup(self) -> None:
        self.request.settimeout(self.server.idle_seconds)  # an idle client is cut off
        # …and a slow one too: the whole connection has ``idle_seconds``, however often the
        # client sends a byte (one header line every 5 s held a slot for ever)
        self._deadline = Watchdog(lambda: self.request)
        self._deadline.arm(self.server.idle_seconds)
        super().setup()

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self._deadline.disarm()

    def do_GET(self) -> None:
        self._answer(body=True)

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def _answer(self, *, body: bool) -> None:
        hosts = self.server.hosts
        if hosts is not None and self.headers.get("Host", "") not in hosts:
            self.send_error(HTTPStatus.MISDIRECTED_REQUEST, "unexpected Host header")
            return
        page = self.server.page() if urlsplit(self.path).path in ROUTES else None
        if page is None:
            self.send_error(HTTPStatus.NOT_FOUND)
            return
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(page)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if body:
            self.wfile.write(page)

    def log_message(self, format: str, *args: Any) -> None:
        pass


def open_server(
    folder: Path,
    port: int = 8000,
    *,
    idle_seconds: float = IDLE_SECONDS,
    max_connections: int = MAX_CONNECTIONS,
    host: str = LOOPBACK,
) -> ReportServer:
    """A server of ``folder``'s report on 127.0.0.1 (port 0: any free port), or on ``host``
    (in a container, ``0.0.0.0``, with the port published to the machine's loopback)."""
    private = sorted({p.name for pattern in PRIVATE for p in folder.glob(pattern)})
    if private:
        raise ConfigError(
            f"not serving {folder}: it holds {', '.join(private)}; write the report to a "
            "folder of its own (report -o DIR --serve)"
        )
    return ReportServer(
        folder, port, idle_seconds=idle_seconds, max_connections=max_connections, host=host
    )


def serve(server: ReportServer, on_ready: Callable[[str], None]) -> None:
    """Serve until interrupted; ``on_ready`` gets the URL."""
    host, port = server.server_address[:2]
    on_ready(f"http://{host!s}:{port}/")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
