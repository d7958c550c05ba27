"""Send deals by email over SMTP: STARTTLS, implicit TLS (``ssl``) or plain (``none``).

One message per run in ``digest`` mode, one per deal in ``immediate`` mode. The password
comes only from the ``SmtpChannel`` (read from the environment at the CLI edge) and is
never logged nor put in an error message.
"""

from __future__ import annotations

import smtplib
import ssl
from typing import TYPE_CHECKING

from alerts.render_email import render_email_digest, render_plain, render_subject
from rigscout.errors import AlertError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from email.message import EmailMessage

    from rigscout.config import SmtpChannel
    from rigscout.models import Deal

SECURITY_MODES = ("starttls", "ssl", "none")
MODES = ("digest", "immediate")


def open_smtp(channel: SmtpChannel, context: ssl.SSLContext) -> smtplib.SMTP:
    """Connect to the channel's server (implicit TLS when ``security = "ssl"``)."""
    if channel.security == "ssl":
        return smtplib.SMTP_SSL(
            channel.host, channel.port, timeout=channel.timeout, context=context
        )
    return smtplib.SMTP(channel.host, channel.port, timeout=channel.timeout)


class EmailNotifier:
    """Delivers deals to the recipients of one ``SmtpChannel``."""

    def __init__(
        self,
        channel: SmtpChannel,
        *,
        smtp_factory: Callable[[SmtpChannel, ssl.SSLContext], smtplib.SMTP] = open_smtp,
        ssl_context: ssl.SSLContext | None = None,
        report_url: str | None = None,
    ) -> None:
        if channel.security not in SECURITY_MODES:
            raise AlertError(
                f"security must be one of {', '.join(SECURITY_MODES)}, not {channel.security!r}",
                channel=channel.name,
            )
        if channel.mode not in MODES:
            raise AlertError(
                f"mode must be digest or immediate, not {channel.mode!r}", channel=channel.name
            )
        self.name = channel.name
        self._channel = channel
        self._factory = smtp_factory
        self._context = ssl_context
        self._report_url = report_url

    def __repr__(self) -> str:
        return f"EmailNotifier(name={self.name!r}, host={self._channel.host!r})"

    def batches(self, deals: Sequence[Deal]) -> list[tuple[Deal, ...]]:
        """One message for all deals (digest) or one per deal (immediate)."""
        if not deals:
            return []
        if self._channel.mode == "immediate":
            return [(deal,) for deal in deals]
        return [tuple(deals)]

    def render(self, deals: Sequence[Deal]) -> list[EmailMessage]:
        """The messages ``send`` delivers for ``deals``."""
        return [
            render_email_digest(
                batch,
                sender=self._channel.sender,
                recipients=self._channel.recipients,
                subject=render_subject(batch),
                report_url=self._report_url,
            )
            for batch in self.batches(deals)
        ]

    def preview(self, deals: Sequence[Deal]) -> list[str]:
        """What ``send`` would deliver: each message's headers and its plain-text part."""
        return [
            f"To: {message['To']}\nSubject: {message['Subject']}\n\n"
            + render_plain(batch, report_url=self._report_url)
            for batch, message in zip(self.batches(deals), self.render(deals), strict=True)
        ]

    def send(self, deals: Sequence[Deal]) -> None:
        """Deliver ``deals``; raise ``AlertError`` when the server is down or refuses."""
        messages = self.render(deals)
        if messages:
            self.send_messages(messages)

    def send_messages(self, messages: Sequence[EmailMessage]) -> None:
        """Deliver ready messages over one SMTP session."""
        channel = self._channel
        context = self._context or ssl.create_default_context()
        try:
            with self._factory(channel, context) as smtp:
                if channel.security == "starttls":
                    smtp.starttls(context=context)
                if channel.username:
                    smtp.login(channel.username, channel.password or "")
                for message in messages:
                    smtp.send_message(
                        message, from_addr=channel.sender, to_addrs=list(channel.recipients)
                    )
        except (smtplib.SMTPException, OSError) as exc:
            raise AlertError(
                f"SMTP {channel.host}:{channel.port} failed: {_describe(exc)}", channel=self.name
            ) from exc


def _describe(exc: Exception) -> str:
    """A one-line reason; SMTP replies are decoded, and nothing sent by us is echoed back."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return f"recipients refused ({', '.join(sorted(exc.recipients))})"
    if isinstance(exc, smtplib.SMTPResponseException):
        error = exc.smtp_error
        reply = error.decode("utf-8", "replace") if isinstance(error, bytes) else str(error)
        return f"{exc.smtp_code} {reply}".strip()
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
