"""Logging for the command line: ``-v`` info, ``-vv`` debug, and never a secret in the output.

Libraries log the URLs they call (httpx: ``HTTP Request: POST https://discord.com/api/
webhooks/<id>/<token>``), and a Discord webhook URL is its own password. Their request logs
are kept at WARNING, and every record passes a filter that masks webhook tokens, credentials
in URLs and the values of the secret environment variables the config names.
"""

from __future__ import annotations

import logging
import os
from typing import TYPE_CHECKING

from core.secrets import add_secrets, redact

if TYPE_CHECKING:
    from collections.abc import Mapping

QUIET_LIBRARIES = ("httpx", "httpcore", "hpack", "urllib3", "asyncio", "aiosmtpd", "mail.log")
# Environment variables whose values are secrets: the defaults the config falls back to.
SECRET_VARIABLES = (
    "RIGSCOUT_DISCORD_WEBHOOK",
    "RIGSCOUT_SMTP_PASSWORD",
    "RIGSCOUT_SMTP_USER",
    "EBAY_CLIENT_ID",
    "EBAY_CLIENT_SECRET",
)


class RedactingFilter(logging.Filter):
    """Renders each record's message once, masked, so no handler sees the secret."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = redact(message)
        if masked != message:
            record.msg, record.args = masked, None
        if record.exc_info and not record.exc_text:
            # Formatters reuse ``exc_text`` when it is set: the traceback is masked too.
            record.exc_text = redact(logging.Formatter().formatException(record.exc_info))
        return True


def setup_logging(verbose: int, environ: Mapping[str, str] | None = None) -> None:
    """Logging at WARNING, INFO (``-v``) or DEBUG (``-vv``); libraries quiet; secrets masked."""
    env = os.environ if environ is None else environ
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for name in QUIET_LIBRARIES:
        logging.getLogger(name).setLevel(max(level, logging.WARNING))
    add_secrets(env.get(v) for v in SECRET_VARIABLES)
    for handler in logging.getLogger().handlers:
        if not any(isinstance(f, RedactingFilter) for f in handler.filters):
            handler.addFilter(RedactingFilter())
