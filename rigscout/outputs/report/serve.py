"""``rigscout report --serve``: the report folder over HTTP on 127.0.0.1, until Ctrl-C."""

from __future__ import annotations

import functools
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def open_server(folder: Path, port: int = 8000) -> ThreadingHTTPServer:
    """A server for ``folder`` bound to 127.0.0.1 only (port 0: any free port)."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    return ThreadingHTTPServer(("127.0.0.1", port), handler)


def serve(server: ThreadingHTTPServer, on_ready: Callable[[str], None]) -> None:
    """Serve until interrupted; ``on_ready`` gets the URL."""
    host, port = server.server_address[:2]
    on_ready(f"http://{host!s}:{port}/")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
