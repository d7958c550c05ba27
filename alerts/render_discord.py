"""Render deals as Discord webhook payloads: one embed per deal, split to fit Discord's limits.

Pure. Listing text is one-lined, Markdown-escaped and mention-neutralised, and every payload
carries ``allowed_mentions: {"parse": []}`` so a hostile title can ping nobody.
Lengths are counted in UTF-16 code units, as Discord counts them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from alerts.format import (
    RIG,
    format_discount,
    format_landed,
    lead_line,
    one_line,
    safe_url,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from core.models import Deal

EMBEDS_PER_MESSAGE = 10
CHARS_PER_MESSAGE = 6000
TITLE_LIMIT = 256
DESCRIPTION_LIMIT = 1000  # Discord allows 4096; a reason is one sentence, keep posts compact
FIELD_VALUE_LIMIT = 1024
CONTENT_LIMIT = 2000
USERNAME_LIMIT = 80
EMBED_COLOUR = 0x2E7D32

_MARKDOWN = re.compile(r"([\\*_~`|>\[\]()#])")
_ZWSP = "\u200b"


def units(text: str) -> int:
    """Length as Discord measures it (UTF-16 code units)."""
    return len(text.encode("utf-16-le")) // 2


def escape_markdown(text: str) -> str:
    """Backslash-escape Markdown and put a zero-width space after every ``@``."""
    # allowed_mentions already stops pings; breaking the text too keeps a forwarded or
    # quoted copy of the message harmless.
    return _MARKDOWN.sub(r"\\\1", text).replace("@", "@" + _ZWSP)


def clip(text: str, limit: int) -> str:
    """Cut escaped text to ``limit`` units, never leaving a dangling escape backslash."""
    if units(text) <= limit:
        return text
    cut = text[: limit - 1]
    while units(cut) > limit - 1:
        cut = cut[:-1]
    trailing = len(cut) - len(cut.rstrip("\\"))
    if trailing % 2:
        cut = cut[:-1]
    return cut + "…"


def safe_text(text: str, limit: int) -> str:
    """Listing text made inert for Discord and cut to ``limit``."""
    return clip(escape_markdown(one_line(text)), limit)


def render_embed(deal: Deal) -> dict[str, Any]:
    """One deal as one embed: title, link, reason, price, discount, SKU and thumbnail."""
    embed: dict[str, Any] = {
        "title": safe_text(deal.title, TITLE_LIMIT),
        "description": safe_text(deal.reason, DESCRIPTION_LIMIT),
        "color": EMBED_COLOUR,
        "fields": [
            _field(
                "Rig total" if deal.price_basis == RIG else "Landed unit price", format_landed(deal)
            ),
            _field("Discount", format_discount(deal)),
            _field("SKU", deal.sku_name),
        ],
    }
    url = safe_url(deal.url)
    if url:
        embed["url"] = url
    image = safe_url(deal.image_url)
    if image:
        embed["thumbnail"] = {"url": image}
    return embed


def _field(name: str, value: str) -> dict[str, Any]:
    return {"name": name, "value": safe_text(value, FIELD_VALUE_LIMIT), "inline": True}


def embed_size(embed: dict[str, Any]) -> int:
    """The characters Discord counts towards the 6000 per message (title, description, fields)."""
    size = units(str(embed.get("title", ""))) + units(str(embed.get("description", "")))
    fields = embed.get("fields", [])
    assert isinstance(fields, list)
    for field in fields:
        size += units(str(field["name"])) + units(str(field["value"]))
    return size


def render_discord_batches(deals: Sequence[Deal]) -> list[tuple[Deal, ...]]:
    """How ``deals`` split into posts: at most 10 embeds and 6000 characters per post."""
    batches: list[tuple[Deal, ...]] = []
    current: list[Deal] = []
    size = 0
    for deal in deals:
        grows = embed_size(render_embed(deal))
        if current and (len(current) == EMBEDS_PER_MESSAGE or size + grows > CHARS_PER_MESSAGE):
            batches.append(tuple(current))
            current, size = [], 0
        current.append(deal)
        size += grows
    if current:
        batches.append(tuple(current))
    return batches


def render_discord_payloads(
    deals: Sequence[Deal], *, username: str, note: str | None = None
) -> list[dict[str, Any]]:
    """The webhook JSON bodies for ``deals``, one per post, each within Discord's limits;
    ``note`` (a repeat after an interruption, say) heads each post."""
    batches = render_discord_batches(deals)
    head = f"⚠ {note}\n" if note else ""
    return [
        render_message(
            f"{head}{lead_line(batch)}"
            + (f" (post {i} of {len(batches)})" if len(batches) > 1 else ""),
            [render_embed(deal) for deal in batch],
            username=username,
        )
        for i, batch in enumerate(batches, start=1)
    ]


def render_message(
    content: str, embeds: Sequence[dict[str, Any]], *, username: str
) -> dict[str, Any]:
    """A webhook body with ``content`` and ``embeds`` that can mention nobody."""
    return {
        "username": clip(one_line(username), USERNAME_LIMIT),
        "content": safe_text(content, CONTENT_LIMIT),
        "embeds": list(embeds),
        "allowed_mentions": {"parse": []},
    }
