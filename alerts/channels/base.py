"""What a channel type declares: one row of the registry in ``alerts/channels/__init__.py``."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Generic, Literal, TypeVar

from pydantic import AfterValidator, BeforeValidator

from alerts.quiet import parse_quiet_hours
from alerts.settings import OLD_MODES
from core.config_types import Section

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    import httpx

    from alerts.dispatch import Notifier

C = TypeVar("C")
S = TypeVar("S")
log = logging.getLogger(__name__)


def _mode(value: object) -> object:
    """A mode in today's words; an old word is read, with a line saying what to write."""
    if isinstance(value, str) and value in OLD_MODES:
        new = OLD_MODES[value]
        log.warning('alert channel mode "%s" is deprecated: write mode = "%s"', value, new)
        return new
    return value


# How a channel batches a run's deals (``alerts.settings.MODES``), old words accepted.
Mode = Annotated[Literal["instant", "digest"], BeforeValidator(_mode)]


def _quiet_hours(text: str) -> str:
    parse_quiet_hours(text)  # a ValueError says what is wrong with it
    return text


class ChannelSectionBase(Section):
    """What every ``[alerts.channels.NAME]`` table may set, whatever its type."""

    quiet_hours: Annotated[str, AfterValidator(_quiet_hours)] | None = None


@dataclass(frozen=True, slots=True)
class Collaborators:
    """What a notifier may need from the run: the HTTP client, a sleep, the report's URL."""

    client: httpx.Client
    sleep: Callable[[float], None] = field(default=time.sleep)
    report_url: str | None = None


@dataclass(frozen=True, slots=True)
class ChannelType(Generic[S, C]):
    """One kind of alert channel.

    ``section`` is its ``[alerts.channels.NAME]`` table in the config file (with ``type =
    name``); ``from_section`` turns a checked table into the frozen settings record, reading
    its secrets from the environment; ``secrets`` lists the secret values a record holds (masked
    wherever text leaves the process); ``missing`` says which secret is not set, if any;
    ``notifier`` makes the channel's notifier (importing what it needs only then, so start-up
    stays light).
    """

    name: str
    section: type[ChannelSectionBase]
    settings: type[C]
    from_section: Callable[[str, S, Mapping[str, str]], C]
    secrets: Callable[[C], tuple[str | None, ...]]
    missing: Callable[[C], str | None]
    notifier: Callable[[C, Collaborators], Notifier]
