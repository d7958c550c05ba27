"""The Discord channel type: embeds posted to a webhook whose URL comes from the environment."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from alerts.channels.base import ChannelSectionBase, ChannelType, Collaborators
from alerts.settings import DEFAULT_WEBHOOK_ENV, DiscordChannel
from core.config_types import EnvName, PositiveFloat
from core.settings import build_settings

if TYPE_CHECKING:
    from collections.abc import Mapping

    from alerts.dispatch import Notifier


class DiscordChannelSection(ChannelSectionBase):
    type: Literal["discord"]
    webhook_url_env: EnvName | None = None
    username: str | None = None
    timeout: PositiveFloat | None = None


def from_section(
    name: str, section: DiscordChannelSection, environ: Mapping[str, str]
) -> DiscordChannel:
    variable = section.webhook_url_env or DEFAULT_WEBHOOK_ENV
    values = section.model_dump(exclude_unset=True, exclude={"type", "quiet_hours"})
    return build_settings(
        DiscordChannel,
        {
            **values,
            "name": name,
            "webhook_url": environ.get(variable, ""),
            "webhook_url_env": variable,
        },
    )


def secrets(channel: DiscordChannel) -> tuple[str | None, ...]:
    return (channel.webhook_url,)


def missing(channel: DiscordChannel) -> str | None:
    if channel.webhook_url:
        return None
    variable = channel.webhook_url_env
    return f"alert channel {channel.name!r}: environment variable {variable} is not set"


def notifier(channel: DiscordChannel, run: Collaborators) -> Notifier:
    from alerts.discord import DiscordNotifier

    return DiscordNotifier(channel, run.client, sleep=run.sleep)


DISCORD = ChannelType(
    "discord", DiscordChannelSection, DiscordChannel, from_section, secrets, missing, notifier
)
