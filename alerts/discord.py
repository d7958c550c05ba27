"""Post deals to a Discord webhook, honouring rate limits and retrying server errors.

HTTP 429 waits the ``retry_after`` Discord gives (JSON body, else the Retry-After header);
5xx and network failures retry with backoff; anything else fails at once. The webhook URL
holds a secret token, so it never appears in an error, a log line or a repr.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx

from alerts.render_discord import render_discord_batches, render_discord_payloads
from alerts.render_email import render_plain
from rigscout.errors import AlertError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from rigscout.config import DiscordChannel
    from rigscout.models import Deal

MAX_RETRY_AFTER = 60.0  # seconds; a longer rate limit fails the channel until the next run


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
        attempts: int = 4,
        backoff: float = 1.0,
    ) -> None:
        self.name = channel.name
        self._channel = channel
        self._client = client
        self._sleep = sleep
        self._attempts = max(1, attempts)
        self._backoff = backoff

    def __repr__(self) -> str:
        webhook = mask_webhook(self._channel.webhook_url)
        return f"DiscordNotifier(name={self.name!r}, webhook={webhook!r})"

    def batches(self, deals: Sequence[Deal]) -> list[tuple[Deal, ...]]:
        """The deals of each post, as Discord's size limits split them."""
        return render_discord_batches(deals)

    def render(self, deals: Sequence[Deal]) -> list[dict[str, Any]]:
        """The webhook bodies ``send`` posts for ``deals``."""
        return render_discord_payloads(deals, username=self._channel.username)

    def preview(self, deals: Sequence[Deal]) -> list[str]:
        """What ``send`` would post, as a person reads it: one text block per post."""
        return [
            f"Discord post as {self._channel.username}:\n{render_plain(batch)}"
            for batch in self.batches(deals)
        ]

    def send(self, deals: Sequence[Deal]) -> None:
        """Post every payload for ``deals``; raise ``AlertError`` once retries are spent."""
        for payload in self.render(deals):
            self.send_payload(payload)

    def send_payload(self, payload: dict[str, Any]) -> None:
        """POST one webhook body, waiting out 429s and retrying 5xx (bounded)."""
        problem = ""
        for attempt in range(self._attempts):
            try:
                response = self._client.post(
                    self._channel.webhook_url, json=payload, timeout=self._channel.timeout
                )
            except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
                raise self._error(f"webhook URL is not usable ({type(exc).__name__})") from None
            except httpx.TransportError as exc:
                problem, wait = f"network error ({type(exc).__name__})", self._pause(attempt)
            else:
                if response.is_success:
                    return
                problem, wait = f"HTTP {response.status_code}", self._wait_for(response, attempt)
            if attempt + 1 < self._attempts:
                self._sleep(wait)
        raise self._error(f"webhook failed after {self._attempts} attempts: {problem}")

    def _wait_for(self, response: httpx.Response, attempt: int) -> float:
        """Seconds to wait before retrying ``response``; a 4xx other than 429 fails at once."""
        if response.status_code == 429:
            return self._retry_after(response)
        if response.is_server_error:
            return self._pause(attempt)
        reason = _reason(response)
        raise self._error(f"webhook refused the post: HTTP {response.status_code}{reason}")

    def _pause(self, attempt: int) -> float:
        """Exponential backoff: 1 s, 2 s, 4 s... with the default ``backoff``."""
        return self._backoff * 2.0**attempt

    def _retry_after(self, response: httpx.Response) -> float:
        seconds = _retry_after_seconds(response)
        if seconds > MAX_RETRY_AFTER:
            raise self._error(f"webhook rate-limited for {seconds:.0f} s")
        return seconds

    def _error(self, message: str) -> AlertError:
        secret = self._channel.webhook_url
        text = message.replace(secret, mask_webhook(secret))
        token = urlsplit(secret).path.rstrip("/").rsplit("/", 1)[-1]
        if len(token) >= 8:
            text = text.replace(token, "***")
        return AlertError(text, channel=self.name)


def _retry_after_seconds(response: httpx.Response) -> float:
    """Discord's ``retry_after`` (JSON seconds), else the Retry-After header, else one second."""
    for value in (_json_field(response, "retry_after"), response.headers.get("Retry-After")):
        seconds = _as_seconds(value)
        if seconds is not None:
            return seconds
    return 1.0


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
