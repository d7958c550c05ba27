"""The apprise channel type: ntfy, Telegram, Slack, Pushover, Matrix, Gotify… by URL.

The URLs hold the services' tokens, so the config file only names the environment variables
that hold them (``urls_env``, one or several; each may hold several URLs separated by spaces or
commas).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Literal
from urllib.parse import parse_qsl, urlsplit

from pydantic import BeforeValidator

from alerts.channels.base import ChannelSectionBase, ChannelType, Collaborators, Mode
from alerts.settings import AppriseChannel
from core.config_types import EnvName, PositiveFloat, one_or_many
from core.secrets import credential_forms
from core.settings import build_settings

if TYPE_CHECKING:
    from collections.abc import Mapping

    from alerts.dispatch import Notifier

_SEPARATORS = re.compile(r"[\s,]+")
_ADDRESS = re.compile(r"[\w-]+(\.[\w-]+)+(:\d+)?")  # a host name or IP, maybe with its port


class AppriseChannelSection(ChannelSectionBase):
    type: Literal["apprise"]
    urls_env: Annotated[list[EnvName], BeforeValidator(one_or_many)]
    mode: Mode | None = None
    timeout: PositiveFloat | None = None


def from_section(
    name: str, section: AppriseChannelSection, environ: Mapping[str, str]
) -> AppriseChannel:
    values = section.model_dump(exclude_unset=True, exclude={"type", "urls_env", "quiet_hours"})
    urls = tuple(
        url for variable in section.urls_env for url in _SEPARATORS.split(environ.get(variable, ""))
        if url
    )  # fmt: skip
    return build_settings(
        AppriseChannel, {**values, "name": name, "urls": urls, "urls_env": tuple(section.urls_env)}
    )


def secrets(channel: AppriseChannel) -> tuple[str | None, ...]:
    """Each URL, and each part of it that can hold a token (the host of ``tgram://TOKEN/…``,
    a path segment such as an ntfy topic, a password, a query value)."""
    return tuple(part for url in channel.urls for part in (url, *url_secrets(url)))


def url_secrets(url: str) -> tuple[str, ...]:
    parts = urlsplit(url)
    try:
        host = parts.hostname or ""
    except ValueError:
        host = ""
    # A token may sit anywhere in the address: tgram://BOT_ID:BOT_TOKEN/CHAT puts it where a
    # host and port would be.
    pieces = [parts.password or "", parts.username or "", host, parts.netloc]
    pieces += [p for chunk in parts.netloc.split("@") for p in (chunk, *chunk.split(":"))]
    # An address (a dotted host name, an IP) or a short word is not a token; a path segment or
    # query value is one from four characters on (an ntfy topic is the secret, however short).
    found = [p for p in pieces if len(p) >= 6 and not _ADDRESS.fullmatch(p)]
    found += [
        p
        for p in [*parts.path.split("/"), *(value for _, value in parse_qsl(parts.query))]
        if len(p) >= 4 and not _ADDRESS.fullmatch(p)
    ]
    # a login in the URL travels as a Basic header, which a server may echo
    return (*dict.fromkeys(found), *credential_forms(parts.username, parts.password))


def missing(channel: AppriseChannel) -> str | None:
    if channel.urls:
        return None
    variables = " or ".join(channel.urls_env)
    return f"alert channel {channel.name!r}: environment variable {variables} is not set"


def notifier(channel: AppriseChannel, run: Collaborators) -> Notifier:
    from alerts.apprise_notifier import AppriseNotifier

    return AppriseNotifier(channel, sleep=run.sleep, report_url=run.report_url)


APPRISE = ChannelType(
    "apprise", AppriseChannelSection, AppriseChannel, from_section, secrets, missing, notifier
)
