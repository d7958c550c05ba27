"""Log lines never carry a secret: webhook tokens, URL passwords and named secret values."""

from __future__ import annotations

import logging

import pytest

from rigscout.cli.logs import RedactingFilter, add_secrets, redact


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        (
            'HTTP Request: POST https://discord.com/api/webhooks/123/AbC-tok_en "HTTP/1.1 204"',
            'HTTP Request: POST https://discord.com/api/webhooks/123/*** "HTTP/1.1 204"',
        ),
        ("connect postgresql://bob:hunter2@db/x", "connect postgresql://bob:***@db/x"),
        ("form client_secret=PRD-abc&grant=x", "form client_secret=***&grant=x"),
        ("nothing secret here", "nothing secret here"),
    ],
)
def test_known_secret_shapes_are_masked(line: str, shown: str):
    assert redact(line, secrets=()) == shown


def test_the_configured_secret_values_are_masked_in_messages_and_tracebacks():
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "login %s", ("s3cr3t-pw",), None)
    try:
        raise ValueError("bad password s3cr3t-pw")
    except ValueError as exc:
        record.exc_info = (type(exc), exc, exc.__traceback__)
    add_secrets(["s3cr3t-pw"])
    RedactingFilter().filter(record)
    text = logging.Formatter().format(record)
    assert "s3cr3t-pw" not in text and "login ***" in text and "bad password ***" in text
