"""The email channel type: SMTP with STARTTLS, TLS or none, a digest or a mail per deal."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field

from alerts.channels.base import ChannelSectionBase, ChannelType, Collaborators, Mode
from alerts.settings import SmtpChannel
from core.config_types import EnvName, Names, PositiveFloat
from core.secrets import credential_forms
from core.settings import build_settings

if TYPE_CHECKING:
    from collections.abc import Mapping

    from alerts.dispatch import Notifier

DEFAULT_PORT = 587
USER_ENV, PASSWORD_ENV = "RIGSCOUT_SMTP_USER", "RIGSCOUT_SMTP_PASSWORD"


class EmailChannelSection(ChannelSectionBase):
    type: Literal["email"]
    host: Annotated[str, Field(min_length=1)]
    port: Annotated[int, Field(ge=1, le=65535)] | None = None
    security: Literal["starttls", "ssl", "none"] | None = None
    sender: Annotated[str, Field(alias="from", min_length=3)]
    to: Annotated[Names, Field(min_length=1)]
    username_env: EnvName | None = None
    password_env: EnvName | None = None
    mode: Mode | None = None
    timeout: PositiveFloat | None = None


def from_section(
    name: str, section: EmailChannelSection, environ: Mapping[str, str]
) -> SmtpChannel:
    values = section.model_dump(
        exclude_unset=True,
        exclude={"type", "sender", "to", "username_env", "password_env", "quiet_hours"},
    )
    return build_settings(
        SmtpChannel,
        {
            **values,
            "name": name,
            "port": section.port or DEFAULT_PORT,
            "sender": section.sender,
            "recipients": tuple(section.to),
            "username": environ.get(section.username_env or USER_ENV) or None,
            "password": environ.get(section.password_env or PASSWORD_ENV) or None,
        },
    )


def secrets(channel: SmtpChannel) -> tuple[str | None, ...]:
    """The login, as written and as SMTP AUTH sends it (base64), which -vv's protocol trace
    or a server's error reply may show."""
    return (
        channel.username,
        channel.password,
        *credential_forms(channel.username, channel.password),
    )


def missing(channel: SmtpChannel) -> str | None:
    return None  # a server without login needs no secret


def notifier(channel: SmtpChannel, run: Collaborators) -> Notifier:
    from alerts.email import EmailNotifier

    return EmailNotifier(channel, report_url=run.report_url)


EMAIL = ChannelType(
    "email", EmailChannelSection, SmtpChannel, from_section, secrets, missing, notifier
)
