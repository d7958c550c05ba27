"""What the alert stage takes: the channels to send to and the rules that pick deals for them.

Read and checked at the edge (``rigscout.config``); secrets arrive here already read from the
environment and never appear in a repr.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import timedelta

    from alerts.quiet import QuietHours
    from core.models import Deal

DEFAULT_WEBHOOK_ENV = "RIGSCOUT_DISCORD_WEBHOOK"
# How a channel that has a mode batches a run's deals: a message per deal, or one per run.
MODES = ("instant", "digest")
OLD_MODES = {"immediate": "instant"}  # email's word for "instant" until 2026-11


def batches_for(mode: str, deals: Sequence[Deal]) -> list[tuple[Deal, ...]]:
    """The deals of each message in ``mode`` (``MODES``)."""
    if not deals:
        return []
    if mode == "digest":
        return [tuple(deals)]
    return [(deal,) for deal in deals]


@dataclass(frozen=True, slots=True)
class SmtpChannel:
    name: str
    host: str
    port: int
    sender: str
    recipients: tuple[str, ...]
    security: str = "starttls"  # "starttls", "ssl" or "none"
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    mode: str = "digest"  # MODES: one mail per run (the default) or one per deal
    timeout: float = 30.0
    quiet_hours: QuietHours | None = None


@dataclass(frozen=True, slots=True)
class DiscordChannel:
    """``webhook_url`` is empty when its variable is not set: fine for ``--dry-run`` and
    ``rank``; ``missing_secrets`` names it before anything is sent."""

    name: str
    webhook_url: str = field(repr=False)
    username: str = "rigscout"
    timeout: float = 30.0
    webhook_url_env: str = DEFAULT_WEBHOOK_ENV
    quiet_hours: QuietHours | None = None


@dataclass(frozen=True, slots=True)
class AppriseChannel:
    """Any service apprise speaks (ntfy, Telegram, Slack, Pushover, Matrix…), by URL.

    ``urls`` are read from the variables ``urls_env`` names (each may hold several URLs,
    separated by spaces or commas); they carry the service's tokens, so they never appear in a
    repr. Empty when no variable is set: ``missing_secrets`` names them before anything is sent.
    """

    name: str
    urls: tuple[str, ...] = field(repr=False)
    urls_env: tuple[str, ...]
    mode: str = "instant"  # MODES: a message per deal (the default) or one per run
    timeout: float = 30.0
    quiet_hours: QuietHours | None = None


Channel = SmtpChannel | DiscordChannel | AppriseChannel


@dataclass(frozen=True, slots=True)
class AlertRule:
    """A deal matches when every condition that is set holds."""

    name: str
    channels: tuple[str, ...]
    skus: tuple[str, ...] = ()
    category: str | None = None
    max_price: Decimal | None = None  # landed unit price, user's currency
    min_discount: float | None = None  # 0.2 = at least 20 % under the market
    min_score: float | None = None
    profile: str | None = None
    new_low_days: int | None = None  # the lowest landed price of its SKU in this many days
    min_drop: float | None = None  # its own landed price fell by this fraction since first seen
    ending_within: timedelta | None = None  # a running auction ending this soon
    max_per_run: int | None = None  # at most this many deals per run, best first


@dataclass(frozen=True, slots=True)
class AlertSettings:
    rules: tuple[AlertRule, ...] = ()
    channels: Mapping[str, Channel] = field(default_factory=dict)
    price_drop: Decimal = Decimal("0.05")  # re-alert only below last sent price by this share
