"""Post deals to a Discord webhook, honouring rate limits and retrying server errors.

HTTP 429 waits the ``retry_after`` Discord gives (JSON body, else the Retry-After header);
5xx and network failures retry with backoff; anything else fails at once. Retries follow the
``discord`` policy of ``core.retry`` (a rate limit longer than its ``max_retry_wait``
fails the channel; its alerts stay pending for the next run). The webhook URL
holds a secret token, so it never appears in an error, a log line or a repr.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx

from alerts.render_discord import render_discord_batches, render_discord_payloads
from alerts.render_email import render_plain
from core.deadline import fetch_within
from core.errors import AlertError
from core.retry import RetryPolicy, Transient, call_with_retries, parse_retry_after, policy_for

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from alerts.settings import DiscordChannel
    from core.models import Deal


def mask_webhook(url: str) -> str:
    """``https://discord.com/api/webhooks/123/tok`` -> ``https://discord.com/api/webhooks/***``."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/…/***" if parts.netloc else "***"


class DiscordNotifier:
    """Delivers deals as embeds to one ``DiscordChannel``'s webhook."""

    def __init__(
        self,
        channel: DiscordChannel,
        client: httpx.Client,
        *,
        sleep: Callable[[float], None] = time.sleep,
        policy: RetryPolicy | None = None,
    ) -> None:
        self.name = channel.name
        self._channel = channel
        self._client = client
        self._sleep = sleep
        self._policy = policy or policy_for("discord")

    def __repr__(self) -> str:
        webhook = mask_webhook(self._channel.webhook_url)
        return f"DiscordNotifier(name={self.name!r}, webhook={webhook!r})"

    def batches(self, deals: Sequence[Deal]) -> list[tuple[Deal, ...]]:
        """The deals of each post, as Discord's size limits split them."""
        return render_discord_batches(deals)

    def render(self, deals: Sequence[Deal], *, note: str | None = None) -> list[dict[str, Any]]:
        """The webhook bodies ``send`` posts for ``deals``."""
        return render_discord_payloads(deals, username=self._channel.username, note=note)

    def preview(self, deals: Sequence[Deal]) -> list[str]:
        """What ``send`` would post, as a person reads it: one text block per post."""
        return [
            f"Discord post as {self._channel.username}:\n{render_plain(batch)}"
            for batch in self.batches(deals)
        ]

    def send(self, deals: Sequence[Deal], *, note: str | None = None) -> None:
        """Post every payload for ``deals``; raise ``AlertError`` once retries are spent."""
        for payload in self.render(deals, note=note):
            self.send_payload(payload)

    def send_payload(self, payload: dict[str, Any]) -> None:
        """POST one webhook body, waiting out 429s and retrying 5xx (bounded)."""
        try:
            call_with_retries(lambda: self._post(payload), self._policy, sleep=self._sleep)
        except Transient as exc:
            wait = exc.defer_for(self._policy)
            if wait is not None:
                raise self._error(f"webhook rate-limited for {wait:.0f} s") from None
            attempts = self._policy.attempts
            raise self._error(f"webhook failed after {attempts} attempts: {exc.reason}") from None

    def _post(self, payload: dict[str, Any]) -> None:
        """One POST; Transient for what is worth retrying, AlertError for a refusal."""
        try:
            response = fetch_within(
                self._client,
                "POST",
                self._channel.webhook_url,
                seconds=self._channel.timeout,
                json=payload,
            )
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise self._error(f"webhook URL is not usable ({type(exc).__name__})") from None
        except httpx.TransportError as exc:
            raise Transient(f"network error ({type(exc).__name__})") from None
        if response.is_success:
            return
        problem = f"HTTP {response.status_code}"
        if response.status_code == 429:
            raise Transient(problem, status=429, retry_after=_retry_after_seconds(response))
        if response.is_server_error:
            raise Transient(problem, status=response.status_code)
        reason = _reason(response)
        raise self._error(f"webhook refused the post: HTTP {response.status_code}{reason}")

    def _error(self, message: str) -> AlertError:
        secret = self._channel.webhook_url
        text = message.replace(secret, mask_webhook(secret))
        token = urlsplit(secret).path.rstrip("/").rsplit("/", 1)[-1]
        if len(token) >= 8:
            text = text.replace(token, "***")
        return AlertError(text, channel=self.name)


def _retry_after_seconds(response: httpx.Response) -> float:
    """Discord's ``retry_after`` (JSON seconds), else the Retry-After header, else one second."""
    seconds = _as_seconds(_json_field(response, "retry_after"))
    if seconds is None:
        seconds = parse_retry_after(response.headers)
    return 1.0 if seconds is None else seconds


def _as_seconds(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _json_field(response: httpx.Response, key: str) -> object:
    try:
        body = response.json()
    except ValueError:
        return None
    return body.get(key) if isinstance(body, dict) else None


def _reason(response: httpx.Response) -> str:
    """Discord's short error message, e.g. ``Invalid Webhook Token`` (cut to 200 chars)."""
    message = _json_field(response, "message")
    return f" ({str(message)[:200]})" if message else ""
