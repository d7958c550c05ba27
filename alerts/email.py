"""Send deals by email over SMTP: STARTTLS, implicit TLS (``ssl``) or plain (``none``).

One message per run in ``digest`` mode, one per deal in ``instant`` mode. The password
comes only from the ``SmtpChannel`` (read from the environment at the CLI edge) and is
never logged nor put in an error message. A server that hangs up, times out or answers a
temporary (4xx) reply is retried under the ``smtp`` policy of ``core.retry``; messages
already accepted are not sent again.
"""

from __future__ import annotations

import smtplib
import ssl
import time
from datetime import UTC, datetime
from email.utils import make_msgid, parseaddr
from typing import TYPE_CHECKING

from alerts.render_email import render_email_digest, render_plain, render_subject
from alerts.settings import MODES, batches_for
from core.deadline import Watchdog
from core.errors import AlertError
from core.retry import RetryPolicy, Transient, call_with_retries, policy_for

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from email.message import EmailMessage

    from alerts.settings import SmtpChannel
    from core.models import Deal

SECURITY_MODES = ("starttls", "ssl", "none")


def new_smtp(channel: SmtpChannel, context: ssl.SSLContext) -> smtplib.SMTP:
    """A client for the channel's server, not yet connected (implicit TLS for ``ssl``).

    The session connects it later, under its watchdog, so that the greeting has a deadline too.
    """
    smtp = (
        smtplib.SMTP_SSL(timeout=channel.timeout, context=context)
        if channel.security == "ssl"
        else smtplib.SMTP(timeout=channel.timeout)
    )
    # The name TLS checks the server's certificate against: smtplib records it only when its
    # constructor connects, and ``connect`` does not.
    smtp._host = channel.host  # type: ignore[attr-defined]
    return smtp


class EmailNotifier:
    """Delivers deals to the recipients of one ``SmtpChannel``."""

    def __init__(
        self,
        channel: SmtpChannel,
        *,
        smtp_factory: Callable[[SmtpChannel, ssl.SSLContext], smtplib.SMTP] = new_smtp,
        ssl_context: ssl.SSLContext | None = None,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        sleep: Callable[[float], None] = time.sleep,
        policy: RetryPolicy | None = None,
        report_url: str | None = None,
    ) -> None:
        if channel.security not in SECURITY_MODES:
            raise AlertError(
                f"security must be one of {', '.join(SECURITY_MODES)}, not {channel.security!r}",
                channel=channel.name,
            )
        if channel.mode not in MODES:
            raise AlertError(
                f"mode must be {' or '.join(MODES)}, not {channel.mode!r}", channel=channel.name
            )
        self.name = channel.name
        self._channel = channel
        self._factory = smtp_factory
        self._context = ssl_context
        self._now = now
        self._sleep = sleep
        self._policy = policy or policy_for("smtp")
        self._report_url = report_url

    def __repr__(self) -> str:
        return f"EmailNotifier(name={self.name!r}, host={self._channel.host!r})"

    def batches(self, deals: Sequence[Deal]) -> list[tuple[Deal, ...]]:
        """One message for all deals (digest) or one per deal (instant)."""
        return batches_for(self._channel.mode, deals)

    def render(self, deals: Sequence[Deal], *, note: str | None = None) -> list[EmailMessage]:
        """The messages ``send`` delivers for ``deals``; ``note`` heads each subject."""
        return [
            render_email_digest(
                batch,
                sender=self._channel.sender,
                recipients=self._channel.recipients,
                subject=f"[{note}] {render_subject(batch)}" if note else render_subject(batch),
                sent_at=self._now(),
                message_id=make_msgid(domain=_domain(self._channel.sender)),
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

    def send(self, deals: Sequence[Deal], *, note: str | None = None) -> None:
        """Deliver ``deals``; raise ``AlertError`` when the server is down or refuses."""
        messages = self.render(deals, note=note)
        if messages:
            self.send_messages(messages)

    def send_messages(self, messages: Sequence[EmailMessage]) -> None:
        """Deliver ready messages over one SMTP session, retrying temporary failures."""
        channel = self._channel
        waiting = list(messages)
        try:
            call_with_retries(lambda: self._session(waiting), self._policy, sleep=self._sleep)
        except Transient as exc:
            cause = exc.__cause__ if isinstance(exc.__cause__, Exception) else exc
            raise AlertError(
                f"SMTP {channel.host}:{channel.port} failed after {self._policy.attempts} "
                f"attempts: {_describe(cause)}",
                channel=self.name,
            ) from exc
        except (smtplib.SMTPException, OSError) as exc:
            raise AlertError(
                f"SMTP {channel.host}:{channel.port} failed: {_describe(exc)}", channel=self.name
            ) from exc

    def _session(self, waiting: list[EmailMessage]) -> None:
        """One SMTP session sending ``waiting`` in order; each accepted message leaves the list.

        Each step (connect and greeting, TLS and login, each message, goodbye) must end within
        the channel's ``timeout``: a server answering a byte at a time is cut off there.
        """
        channel = self._channel
        context = self._context or ssl.create_default_context()
        smtp = self._factory(channel, context)
        try:
            with Watchdog(lambda: smtp.sock) as watchdog:
                watchdog.arm(channel.timeout)
                with smtp:
                    smtp.connect(channel.host, channel.port)
                    if channel.security == "starttls":
                        smtp.starttls(context=context)
                    if channel.username:
                        smtp.login(channel.username, channel.password or "")
                    while waiting:
                        watchdog.arm(channel.timeout)
                        smtp.send_message(
                            waiting[0], from_addr=channel.sender, to_addrs=list(channel.recipients)
                        )
                        waiting.pop(0)
                    watchdog.arm(channel.timeout)
        except smtplib.SMTPResponseException as exc:
            if 400 <= exc.smtp_code < 500:
                raise Transient(f"SMTP {exc.smtp_code}") from exc
            raise
        except OSError as exc:  # smtplib's own errors are OSErrors too
            if watchdog.fired:
                reason = f"no answer within the {channel.timeout:g} s timeout"
                raise Transient(reason) from TimeoutError(reason)
            if isinstance(exc, smtplib.SMTPServerDisconnected | TimeoutError):
                raise Transient(type(exc).__name__) from exc
            raise


def _domain(address: str) -> str:
    """The sender's domain for the Message-ID (``rigscout.local`` when it has none)."""
    domain = parseaddr(address)[1].rpartition("@")[2]
    return domain or "rigscout.local"


def _describe(exc: Exception) -> str:
    """A one-line reason; SMTP replies are decoded, and nothing sent by us is echoed back."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return f"recipients refused ({', '.join(sorted(exc.recipients))})"
    if isinstance(exc, smtplib.SMTPResponseException):
        error = exc.smtp_error
        reply = error.decode("utf-8", "replace") if isinstance(error, bytes) else str(error)
        return f"{exc.smtp_code} {reply}".strip()
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
