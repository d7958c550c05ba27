"""One deadline for the whole exchange: a server that trickles its status line and headers a
byte at a time holds the caller no longer than the deadline, as one that trickles its body
does, and the process is free to exit."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING

import httpx
import pytest

from core.deadline import DeadlineExceeded, fetch_within

if TYPE_CHECKING:
    from collections.abc import Iterator

ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nhello"


@contextmanager
def trickling_server(*, headers_too: bool, pause: float = 0.1) -> Iterator[str]:
    """A server that sends its answer one byte every ``pause`` seconds: the body only, or
    the status line and headers too."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            threading.Thread(target=answer, args=(conn,), daemon=True).start()

    def answer(conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            head, _, body = ANSWER.partition(b"\r\n\r\n")
            quick = b"" if headers_too else head + b"\r\n\r\n"
            slow = ANSWER if headers_too else body
            try:
                conn.sendall(quick)
                for byte in slow:
                    if stop.wait(pause):
                        return
                    conn.sendall(bytes([byte]))
            except OSError:
                return

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/"
    finally:
        stop.set()
        listener.close()


@pytest.mark.parametrize("headers_too", [True, False], ids=["headers", "body"])
def test_a_trickling_server_is_given_up_at_the_deadline(headers_too: bool) -> None:
    with trickling_server(headers_too=headers_too, pause=0.3) as url, httpx.Client() as client:
        started = time.monotonic()
        with pytest.raises(DeadlineExceeded):
            fetch_within(client, "GET", url, seconds=1.0)
        took = time.monotonic() - started
    assert took < 2.0  # the whole answer would take 0.3 s a byte, 20 s and more


def test_a_prompt_answer_is_read_whole() -> None:
    with trickling_server(headers_too=False, pause=0.0) as url, httpx.Client() as client:
        assert fetch_within(client, "GET", url, seconds=5.0).text == "hello"


def test_a_request_given_up_does_not_keep_the_process_alive() -> None:
    with trickling_server(headers_too=True, pause=0.5) as url:
        script = (
            "import httpx\n"
            "from core.deadline import DeadlineExceeded, fetch_within\n"
            "try:\n"
            f"    fetch_within(httpx.Client(), 'GET', {url!r}, seconds=0.5)\n"
            "except DeadlineExceeded:\n"
            "    print('given up')\n"
        )
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=30
        )
    assert done.stdout.strip() == "given up", done.stderr
    assert time.monotonic() - started < 10  # exits at once, not when the server finishes
