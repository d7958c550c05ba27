"""Send deals through apprise: one library, one URL per destination, a hundred-odd services.

apprise is used in-process and sends with its own HTTP code, so a failure reaches us as a
result and its log lines, not an exception: a service that answers 429 or 5xx, or that cannot
be reached, is retried under the ``apprise`` policy of ``core.retry`` (apprise does not pass on
a Retry-After, so the waits are the policy's backoff); once the tries are spent the channel
fails and its alerts stay pending for the next run. A refusal (4xx but 429) fails at once.
The URLs hold tokens: errors and the repr show apprise's privacy form of them, and every text
that leaves passes through ``core.secrets.redact``.
"""

from __future__ import annotations

import re
import time
from functools import partial
from typing import TYPE_CHECKING

from alerts.render_apprise import AppriseMessage, render_digest, render_instant
from alerts.render_email import render_plain
from alerts.settings import batches_for
from core.errors import AlertError
from core.retry import RetryPolicy, Transient, call_with_retries, policy_for
from core.secrets import redact

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    import apprise

    from alerts.settings import AppriseChannel
    from core.models import Deal

# apprise's plugins log an HTTP failure as "... error=429." (its one convention for it).
_STATUS = re.compile(r"\berror=(\d{3})\b")


class AppriseNotifier:
    """Delivers deals to every URL of one ``AppriseChannel``."""

    def __init__(
        self,
        channel: AppriseChannel,
        *,
        sleep: Callable[[float], None] = time.sleep,
        policy: RetryPolicy | None = None,
        report_url: str | None = None,
    ) -> None:
        self.name = channel.name
        self._channel = channel
        self._sleep = sleep
        self._policy = policy or policy_for("apprise")
        self._report_url = report_url
        self._apprise: apprise.Apprise | None = None

    def __repr__(self) -> str:
        return f"AppriseNotifier(name={self.name!r}, urls={len(self._channel.urls)})"

    def batches(self, deals: Sequence[Deal]) -> list[tuple[Deal, ...]]:
        """A digest channel sends all of a run's deals as one message; instant, one each."""
        return batches_for(self._channel.mode, deals)

    def render(self, deals: Sequence[Deal], *, note: str | None = None) -> list[AppriseMessage]:
        """The messages ``send`` delivers for ``deals``."""
        if self._channel.mode == "digest":
            return [render_digest(deals, note=note, report_url=self._report_url)] if deals else []
        return [render_instant(deal, note=note) for deal in deals]

    def preview(self, deals: Sequence[Deal]) -> list[str]:
        """What ``send`` would deliver, as text."""
        where = ", ".join(self._services()) or "(no URL set)"
        return [
            f"apprise message to {where}:\n{render_plain(batch)}" for batch in self.batches(deals)
        ]

    def send(self, deals: Sequence[Deal], *, note: str | None = None) -> None:
        """Deliver every message for ``deals``; raise ``AlertError`` once retries are spent."""
        for message in self.render(deals, note=note):
            try:
                call_with_retries(partial(self._notify, message), self._policy, sleep=self._sleep)
            except Transient as exc:
                attempts = self._policy.attempts
                raise self._error(f"failed after {attempts} attempts: {exc.reason}") from None

    def _notify(self, message: AppriseMessage) -> None:
        """One notify call to every URL; Transient for what is worth retrying."""
        import apprise

        sender = self._sender()
        result = sender.notify(
            body=message.body,
            title=message.title,
            body_format=apprise.NotifyFormat.TEXT,
            timeout=self._channel.timeout,
        )
        if result:
            return
        lines = [str(entry.message) for entry in result.logs() if entry.level != "DEBUG"]
        reason = redact("; ".join(lines[-3:]) or f"apprise reported {result.status.name}")
        statuses = {int(code) for line in lines for code in _STATUS.findall(line)}
        refused = {s for s in statuses if 400 <= s < 500 and s != 429}
        if refused:
            raise self._error(f"refused: {reason}")
        raise Transient(reason, status=429 if 429 in statuses else None)

    def _sender(self) -> apprise.Apprise:
        """The apprise object with every URL added (built once, on first use)."""
        if self._apprise is None:
            import apprise

            sender = apprise.Apprise()
            for url in self._channel.urls:
                if not sender.add(url):
                    scheme = url.split("://", 1)[0] if "://" in url else "?"
                    raise self._error(
                        f"a URL in {', '.join(self._channel.urls_env)} is not one apprise can use"
                        f" (scheme {scheme!r}); see the README's table of services"
                    )
            self._apprise = sender
        return self._apprise

    def _services(self) -> list[str]:
        """The destinations in apprise's privacy form (tokens masked), for people to read."""
        try:
            return [redact(url) for url in self._sender().urls(privacy=True)]
        except AlertError:
            return []

    def _error(self, message: str) -> AlertError:
        return AlertError(redact(message), channel=self.name)
