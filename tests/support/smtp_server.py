"""A real SMTP server on 127.0.0.1 for tests (aiosmtpd), recording every message it accepts.

``running_smtp_server()`` starts one in a thread; ``refuse=True`` makes it reject every
message with a 554; ``busy={2, 3}`` answers the 2nd and 3rd message (counting every DATA
command) "451 try again later"; ``closed_port()`` gives a port where nothing listens (a server that is down);
``trickling_smtp_server()`` greets one byte at a time, never idle long enough for a read timeout.
"""

from __future__ import annotations

import email
import email.policy
import socket
import ssl
import subprocess
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import TYPE_CHECKING, Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

if TYPE_CHECKING:
    from collections.abc import Collection, Iterator
    from pathlib import Path


@dataclass
class Received:
    """One message as the server received it: the envelope and the parsed mail."""

    mail_from: str
    rcpt_tos: list[str]
    message: EmailMessage
    raw: bytes


@dataclass
class SmtpServer:
    host: str
    port: int
    received: list[Received] = field(default_factory=list)
    logins: list[str] = field(default_factory=list)


class _Handler:
    def __init__(self, server: SmtpServer, refuse: bool, busy: Collection[int] = ()) -> None:
        self.server = server
        self.refuse = refuse
        self.busy = busy
        self.data_commands = 0

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.refuse:
            return "554 5.7.1 Message refused by test server"
        self.data_commands += 1
        if self.data_commands in self.busy:
            return "451 4.3.0 Mail server busy, try again later"
        raw = bytes(envelope.original_content or envelope.content)
        message = email.message_from_bytes(raw, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        self.server.received.append(
            Received(envelope.mail_from, list(envelope.rcpt_tos), message, raw)
        )
        return "250 OK"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def closed_port() -> int:
    """A port on 127.0.0.1 that refuses connections."""
    return free_port()


@contextmanager
def running_smtp_server(
    *,
    refuse: bool = False,
    busy: Collection[int] = (),
    credentials: tuple[str, str] | None = None,
    starttls: ssl.SSLContext | None = None,
    implicit_tls: ssl.SSLContext | None = None,
    echo_credentials: bool = False,
) -> Iterator[SmtpServer]:
    """An SMTP server on 127.0.0.1.

    ``credentials`` require AUTH LOGIN/PLAIN; ``starttls`` offers (and requires) STARTTLS
    with that server context; ``implicit_tls`` speaks TLS from the first byte (SMTPS).
    """
    server = SmtpServer("127.0.0.1", free_port())
    options: dict[str, Any] = {}
    if credentials is not None:
        options |= {
            "authenticator": _authenticator(server, credentials, echo_credentials),
            "auth_required": starttls is not None,
            "auth_require_tls": starttls is not None,
        }
    if starttls is not None:
        options |= {"tls_context": starttls, "require_starttls": True}
    if implicit_tls is not None:
        options |= {"ssl_context": implicit_tls}
    controller = Controller(
        _Handler(server, refuse, busy), hostname=server.host, port=server.port, **options
    )
    controller.start()
    try:
        yield server
    finally:
        controller.stop()


@dataclass
class TricklingServer:
    port: int
    connections: int = 0


@contextmanager
def trickling_smtp_server(seconds_per_byte: float) -> Iterator[TricklingServer]:
    """A plain TCP server on 127.0.0.1 whose SMTP greeting comes one byte at a time."""
    listener = socket.create_server(("127.0.0.1", 0))
    server = TricklingServer(int(listener.getsockname()[1]))
    stop = threading.Event()

    def greet(conn: socket.socket) -> None:
        with conn:
            for byte in b"220 slow.example ESMTP a very slow greeting indeed\r\n":
                if stop.is_set():
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:  # the client gave up
                    return
                time.sleep(seconds_per_byte)

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            server.connections += 1
            threading.Thread(target=greet, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        stop.set()
        thread.join(timeout=5)
        listener.close()


def _authenticator(server: SmtpServer, credentials: tuple[str, str], echo: bool = False) -> Any:
    def check(_server: Any, _session: Any, _envelope: Any, mechanism: str, data: Any) -> AuthResult:
        ok = (
            isinstance(data, LoginPassword)
            and (
                data.login.decode(),
                data.password.decode(),
            )
            == credentials
        )
        if ok:
            server.logins.append(data.login.decode())
        elif echo and isinstance(data, LoginPassword):
            # A careless server repeating what it refused, secrets and all.
            login, password = data.login.decode(), data.password.decode()
            refused = f"535 5.7.8 Authentication failed for {login} with password {password}"
            return AuthResult(success=False, handled=False, message=refused)
        return AuthResult(success=ok, handled=False)

    return check


def self_signed_certificate(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and its key, made with the openssl command."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


def server_tls_context(cert: Path, key: Path) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    return context
