"""Render deals as apprise messages: a title and a short plain-text body per message.

Pure. apprise hands the text to services that render Markdown (Telegram, Slack, Matrix) or
HTML, and to some that expand ``@everyone``; so every string from a listing is one-lined and
made inert: a zero-width space follows each character that starts markup or a mention, which
leaves the text readable everywhere and formatted nowhere. A long digest is left to apprise to
split as each service allows (``overflow=upstream``, its default).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from alerts.format import (
    TEST,
    TEST_HEADLINE,
    format_discount,
    format_landed,
    format_unit,
    one_line,
    safe_url,
)
from core import fmt
from ranking.titles import short_label

if TYPE_CHECKING:
    from collections.abc import Sequence

    from core.models import Deal

TITLE_LIMIT = 120
LINE_LIMIT = 300
_ZWSP = "\u200b"
# Markdown, HTML and mention starters: *bold* _it_ ~strike~ `code` [link](url) # <tag> @all |
_MARKUP = re.compile(r"([*_~`\[\]()#<>@|\\!])")


@dataclass(frozen=True, slots=True)
class AppriseMessage:
    """One notification: its title and its plain-text body."""

    title: str
    body: str


def inert(text: str, limit: int = LINE_LIMIT) -> str:
    """Listing text one-lined, cut to ``limit`` and unable to format, link or mention."""
    return _MARKUP.sub(lambda m: m.group(1) + _ZWSP, one_line(text, limit))


def render_instant(deal: Deal, *, note: str | None = None) -> AppriseMessage:
    """One deal as one message: what, the landed price, why, the flags and the link."""
    lines = [note, ""] if note else []
    lines += _deal_lines(deal)
    price = fmt.money(deal.landed_unit_price, deal.currency)
    title = f"rigscout: {inert(deal.sku_name, 60)} at {price}"
    if deal.price_basis == TEST:
        title = TEST_HEADLINE
    return AppriseMessage(one_line(title, TITLE_LIMIT), "\n".join(lines).strip())


def render_digest(
    deals: Sequence[Deal], *, note: str | None = None, report_url: str | None = None
) -> AppriseMessage:
    """Several deals as one message, one short block each, best first as ranked."""
    lines = [note, ""] if note else []
    for deal in deals:
        lines += [*_deal_lines(deal), ""]
    if report_url and (link := safe_url(report_url)):
        lines.append(f"Today's report: {link}")
    best = min(deals, key=lambda d: d.landed_unit_price)
    title = (
        f"rigscout: {len(deals)} deal(s), from {fmt.money(best.landed_unit_price, best.currency)}"
    )
    return AppriseMessage(one_line(title, TITLE_LIMIT), "\n".join(lines).strip())


def _deal_lines(deal: Deal) -> list[str]:
    lines = [
        inert(deal.title),
        f"{format_landed(deal)} {format_unit(deal)} · {format_discount(deal)}",
        inert(deal.reason, 2 * LINE_LIMIT),
    ]
    if deal.flags:
        lines.append("Check: " + ", ".join(inert(short_label(f), 60) for f in deal.flags))
    lines.append(safe_url(deal.url) or "(no link)")
    return lines
