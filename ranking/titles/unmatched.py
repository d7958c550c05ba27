"""Group the stored titles no SKU matched by the model they most likely name.

``rigscout catalog unmatched`` shows the groups, largest first: the model word ("mi250",
"a800", "4070"), the words most titles of the group share, how many listings, their price
range and one example title, so a user sees in one screen which SKUs to add to their catalog.
Pure: the listings come in from ``db/unmatched.py``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from decimal import Decimal

NO_MODEL = "(no model number)"
SHARED_SHARE = 0.6  # a word most titles of a group carry: at least this share of them
MAX_SHARED = 6
_WORD = re.compile(r"[a-z0-9]+(?:[-/.][a-z0-9]+)*")
# Words every GPU listing carries: they name no model.
_COMMON = frozenset({
    "nvidia", "amd", "intel", "geforce", "radeon", "quadro", "tesla", "instinct", "rtx", "gtx",
    "gpu", "gpus", "graphics", "card", "cards", "video", "new", "used", "the", "and", "for", "with",
    "w", "of", "in", "lot", "oc", "pcie", "pci-e", "gddr6", "gddr6x", "gddr5", "hbm2", "hbm2e",
    "tested", "working", "fast", "free", "shipping", "ship", "sealed", "open", "box", "edition",
    "gaming", "server", "accelerator", "compute", "ai", "deep", "learning", "x", "-",
})  # fmt: skip
# "16GB", "250W", "x16", "gen4", "2x": sizes, counts and links, not model numbers
_NOT_MODEL = re.compile(
    r"^(\d+(gb|g|tb|mb|w|mhz|ghz|v|mm|pcs|pc|x|bit|nm|u|gbps|tb/s|gb/s)|x\d+|gen\d|pcie\d|"
    r"\d+(st|nd|rd|th)|v\d|[0-9]{1,2}|(19|20)\d\d|ddr\d|gddr\d+x?|hbm\d+e?|sxm\d|e\d-\d+.*)$"
)


@dataclass(frozen=True, slots=True)
class UnmatchedListing:
    """One stored listing no SKU matched, with the lowest and highest price it was seen at."""

    title: str
    currency: str
    low: Decimal | None = None
    high: Decimal | None = None


@dataclass(frozen=True, slots=True)
class UnmatchedGroup:
    """Listings that most likely name one model we do not carry."""

    model: str
    listings: int
    shared: tuple[str, ...]
    currency: str | None
    low: Decimal | None
    high: Decimal | None
    example: str


def model_word(title: str) -> str:
    """The first word of ``title`` that looks like a model number ("MI250" -> "mi250").

    Example: ``model_word("NVIDIA A800 80GB PCIe")`` is ``"a800"``.
    """
    for word in _words(title):
        if any(c.isdigit() for c in word) and not _NOT_MODEL.match(word):
            return word.removeprefix("sys-").replace("-", "")
    return NO_MODEL


def group_unmatched(listings: Iterable[UnmatchedListing]) -> list[UnmatchedGroup]:
    """Group ``listings`` by model word, largest group first (then by model)."""
    by_model: dict[str, list[UnmatchedListing]] = {}
    for listing in listings:
        by_model.setdefault(model_word(listing.title), []).append(listing)
    groups = [_group(model, members) for model, members in by_model.items()]
    return sorted(groups, key=lambda g: (g.model == NO_MODEL, -g.listings, g.model))


def _group(model: str, members: Sequence[UnmatchedListing]) -> UnmatchedGroup:
    titles = Counter(m.title for m in members)
    words = Counter(w for title in titles for w in dict.fromkeys(_words(title)))
    needed = max(1, SHARED_SHARE * len(titles))
    first = titles.most_common(1)[0][0]
    shared = [w for w in dict.fromkeys(_words(first)) if words[w] >= needed and w not in _COMMON][
        :MAX_SHARED
    ]
    currency = Counter(m.currency for m in members).most_common(1)[0][0]
    lows = [m.low for m in members if m.currency == currency and m.low is not None]
    highs = [m.high for m in members if m.currency == currency and m.high is not None]
    return UnmatchedGroup(
        model=model,
        listings=len(members),
        shared=tuple(shared),
        currency=currency if lows or highs else None,
        low=min(lows) if lows else None,
        high=max(highs) if highs else None,
        example=first,
    )


def _words(title: str) -> list[str]:
    return _WORD.findall(title.lower())


def render_unmatched(
    groups: Sequence[UnmatchedGroup], *, limit: int, width: int = 200
) -> list[str]:
    """The groups as aligned text lines in ``width`` columns: listings, price range, model,
    shared words, then as much of an example title as fits (cut with "…")."""
    words = max(min(width - 46, 30), 12)
    room = width - 46 - words - 1  # what is left for the example
    example = room >= 12

    def line(count: str, prices: str, model: str, shared: str, title: str) -> str:
        text = f"{count:>8}  {prices:<19} {model:<14} {shared:<{words}}"
        if example:
            text += " " + (title if len(title) <= room else title[: room - 1] + "…")
        return text.rstrip()

    lines = [line("listings", "price range", "model", "shared words", "example")]
    for g in groups[:limit]:
        shared = " ".join(g.shared)
        shared = shared if len(shared) <= words else shared[: words - 1] + "…"
        lines.append(line(str(g.listings), _price_range(g), g.model[:14], shared, g.example))
    hidden = len(groups) - limit
    if hidden > 0:
        lines.append(f"… and {hidden} smaller groups (--limit to see more)")
    return lines


def _price_range(group: UnmatchedGroup) -> str:
    if group.low is None or group.high is None:
        return "-"
    low, high = f"{group.low:,.0f}", f"{group.high:,.0f}"
    return f"{low}–{high} {group.currency}" if low != high else f"{low} {group.currency}"
