"""The channel types an alert can go out through, in one table.

A type is one row: the settings record the config builds for it, the secret values it holds
(masked wherever text leaves the process), the line that says a secret is missing, and how to
make its notifier. The daily run, the fast lane, ``alerts test`` and the log filter read this
table; none of them names a channel type, and a settings record no row claims is an error
rather than a guess.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from alerts.discord import DiscordNotifier
from alerts.email import EmailNotifier
from alerts.settings import DiscordChannel, SmtpChannel
from core.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    import httpx

    from alerts.dispatch import Notifier

C = TypeVar("C")


@dataclass(frozen=True, slots=True)
class Collaborators:
    """What a notifier may need from the run: the HTTP client, a sleep, the report's URL."""

    client: httpx.Client
    sleep: Callable[[float], None] = field(default=time.sleep)
    report_url: str | None = None


@dataclass(frozen=True, slots=True)
class ChannelType(Generic[C]):
    name: str  # the config file's ``type = "..."``
    settings: type[C]
    secrets: Callable[[C], tuple[str | None, ...]]
    missing: Callable[[C], str | None]
    notifier: Callable[[C, Collaborators], Notifier]


def _no_secret_missing(channel: object) -> None:
    return None


def _discord_missing(channel: DiscordChannel) -> str | None:
    if channel.webhook_url:
        return None
    return (
        f"alert channel {channel.name!r}: environment variable {channel.webhook_url_env} is not set"
    )


EMAIL = ChannelType(
    "email",
    SmtpChannel,
    secrets=lambda c: (c.username, c.password),
    missing=_no_secret_missing,
    notifier=lambda c, run: EmailNotifier(c, report_url=run.report_url),
)
DISCORD = ChannelType(
    "discord",
    DiscordChannel,
    secrets=lambda c: (c.webhook_url,),
    missing=_discord_missing,
    notifier=lambda c, run: DiscordNotifier(c, run.client, sleep=run.sleep),
)
CHANNEL_TYPES: tuple[ChannelType[Any], ...] = (EMAIL, DISCORD)


def channel_type(channel: object) -> ChannelType[Any]:
    """The row of ``channel``'s settings record; an unknown record is a ``ConfigError``."""
    for row in CHANNEL_TYPES:
        if isinstance(channel, row.settings):
            return row
    raise ConfigError(f"no alert channel type takes {type(channel).__name__} settings")


def build_notifiers(
    channels: Mapping[str, object],
    *,
    client: httpx.Client,
    sleep: Callable[[float], None] = time.sleep,
    report_url: str | None = None,
) -> dict[str, Notifier]:
    """One notifier per configured channel, by channel name; emails link ``report_url``."""
    run = Collaborators(client, sleep, report_url)
    return {name: channel_type(c).notifier(c, run) for name, c in channels.items()}


def secret_values(channels: Iterable[object]) -> tuple[str, ...]:
    """Every secret value the channels hold, for the log filter to mask."""
    return tuple(s for c in channels for s in channel_type(c).secrets(c) if s)


def missing_secrets(channels: Mapping[str, object]) -> list[str]:
    """One line per channel that cannot send because its secret is not set."""
    return [line for c in channels.values() if (line := channel_type(c).missing(c))]
