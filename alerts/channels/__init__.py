"""The alert channel types, in one table.

Each type is one module in this package declaring its config section, how its settings are
built (secrets read from the environment), its secret values, the line for a missing secret
and its notifier. The config file's schema, the config loader, the daily run, the fast lane,
``alerts test`` and the log filter read this table; none of them names a channel type, and a
settings record no row claims is an error rather than a guess. A new type (Slack, say) is one
new module and one line in ``CHANNEL_TYPES`` and in ``ChannelSection``.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from alerts.channels.apprise import APPRISE, AppriseChannelSection
from alerts.channels.base import ChannelType, Collaborators
from alerts.channels.discord import DISCORD, DiscordChannelSection
from alerts.channels.email import EMAIL, EmailChannelSection
from alerts.quiet import parse_quiet_hours
from core.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    import httpx

    from alerts.dispatch import Notifier

CHANNEL_TYPES: tuple[ChannelType[Any, Any], ...] = (EMAIL, DISCORD, APPRISE)
# The [alerts.channels.NAME] table, told apart by its ``type``.
ChannelSection = Annotated[
    EmailChannelSection | DiscordChannelSection | AppriseChannelSection,
    Field(discriminator="type"),
]


def channel_type(channel: object) -> ChannelType[Any, Any]:
    """The row of ``channel``'s settings record; an unknown record is a ``ConfigError``."""
    for row in CHANNEL_TYPES:
        if isinstance(channel, row.settings):
            return row
    raise ConfigError(f"no alert channel type takes {type(channel).__name__} settings")


def channel_from_section(name: str, section: Any, environ: Mapping[str, str]) -> object:
    """The settings record of a checked ``[alerts.channels.NAME]`` table."""
    for row in CHANNEL_TYPES:
        if isinstance(section, row.section):
            record = row.from_section(name, section, environ)
            text = section.quiet_hours
            return replace(record, quiet_hours=parse_quiet_hours(text)) if text else record
    raise ConfigError(f"[alerts.channels.{name}]: no alert channel type reads this table")


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
