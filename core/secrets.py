"""Secrets never leave the process: every configured secret value, and the shapes secrets
take in URLs (a Discord webhook token, ``user:password@``, ``client_secret=``), are masked in
any text that is logged, printed, stored or sent.

The config loader registers the values it reads (``add_secrets``); the log filter, the error
line, the run record, the outbox's last error and the alert channels' failures pass their text
through ``redact``. A server that repeats a password in its error reply (an SMTP 535, say) is
masked like any other text.
"""

from __future__ import annotations

import base64
import re
from typing import TYPE_CHECKING
from urllib.parse import quote

if TYPE_CHECKING:
    from collections.abc import Iterable

SECRET_PATTERNS = (
    re.compile(r"(/api/webhooks/\d+/)[\w-]+"),  # Discord webhook tokens
    re.compile(r"(://[^/\s:@]+:)[^@\s/]+(?=@)"),  # user:password@ in URLs
    re.compile(r"((?:access_token|client_secret|password)[\"']?\s*[:=]\s*[\"']?)[^\s\"'&,]+", re.I),
)


_known: set[str] = set()


def known_secrets() -> tuple[str, ...]:
    """The secret values registered so far (longest first, so none is masked only in part)."""
    return tuple(sorted(_known, key=len, reverse=True))


def add_secrets(secrets: Iterable[str | None]) -> None:
    """Mask these values from now on (the secrets the config's ``*_env`` names point at), as
    written and as they appear inside a URL."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            _known.update({secret, quote(secret, safe="")})


def credential_forms(username: str | None, password: str | None) -> tuple[str, ...]:
    """How a login travels on the wire, base64-encoded, which a server (or a debug log) may
    echo: an HTTP Basic header (``user:password``), SMTP ``AUTH PLAIN`` (``\\0user\\0password``)
    and ``AUTH LOGIN`` (each alone)."""
    if not username or not password:
        return ()
    forms = (f"{username}:{password}", f"\0{username}\0{password}", username, password)
    return tuple(base64.b64encode(form.encode()).decode() for form in forms)


def redact(text: str, secrets: Iterable[str] | None = None) -> str:
    """``text`` with webhook tokens, URL passwords and secret values (default: the known
    ones) masked."""
    for pattern in SECRET_PATTERNS:
        text = pattern.sub(r"\1***", text)
    for secret in known_secrets() if secrets is None else secrets:
        text = text.replace(secret, "***")
    return text
