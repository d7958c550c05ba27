"""A real HTTP endpoint on 127.0.0.1 standing in for a Discord webhook, for tests.

It records every POST (path, headers, JSON body) and answers from a script of responses
(``Reply(429, {"retry_after": 0.01})``, ``Reply(500)``...), then 204 once the script is used up.
"""

from __future__ import annotations

import json
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterator


@dataclass(frozen=True)
class Reply:
    status: int = 204
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Post:
    path: str
    headers: dict[str, str]
    json: Any
    status: int  # what the server answered


@dataclass
class WebhookServer:
    url: str
    script: list[Reply] = field(default_factory=list)
    posts: list[Post] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def webhook_url(self, token: str = "s3cret-token") -> str:
        return f"{self.url}/api/webhooks/1234/{token}"

    @property
    def delivered(self) -> list[Any]:
        """Bodies the endpoint accepted (answered 2xx)."""
        return [p.json for p in self.posts if 200 <= p.status < 300]


def _handler_for(server: WebhookServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            body = json.loads(self.rfile.read(length) or b"null")
            with server.lock:
                reply = server.script.pop(0) if server.script else Reply()
                server.posts.append(Post(self.path, dict(self.headers), body, reply.status))
            data = b"" if reply.body is None else json.dumps(reply.body).encode()
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if data:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Handler


@contextmanager
def running_webhook_server(*script: Reply) -> Iterator[WebhookServer]:
    """A webhook endpoint on 127.0.0.1 answering ``script`` in order, then 204."""
    server = WebhookServer(url="", script=list(script))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(server))
    server.url = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()
