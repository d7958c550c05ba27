"""What the alert stage takes: the channels to send to and the rules that pick deals for them.

Read and checked at the edge (``rigscout.config``); secrets arrive here already read from the
environment and never appear in a repr.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

DEFAULT_WEBHOOK_ENV = "RIGSCOUT_DISCORD_WEBHOOK"


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
    mode: str = "digest"  # "digest" (one mail per run) or "immediate" (one mail per deal)
    timeout: float = 30.0


@dataclass(frozen=True, slots=True)
class DiscordChannel:
    """``webhook_url`` is empty when its variable is not set: fine for ``--dry-run`` and
    ``rank``; ``missing_secrets`` names it before anything is sent."""

    name: str
    webhook_url: str = field(repr=False)
    username: str = "rigscout"
    timeout: float = 30.0
    webhook_url_env: str = DEFAULT_WEBHOOK_ENV


Channel = SmtpChannel | DiscordChannel


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


@dataclass(frozen=True, slots=True)
class AlertSettings:
    rules: tuple[AlertRule, ...] = ()
    channels: Mapping[str, Channel] = field(default_factory=dict)
    price_drop: Decimal = Decimal("0.05")  # re-alert only below last sent price by this share
