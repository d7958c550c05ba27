"""The words of a title the reader did not account for (issue #32, "what it did not
understand, it says").

Pure: a title in, its unread words out. A word is accounted for when a data file names it:
the catalog (names, vendors, families, hints), aliases.toml, vocabulary.toml, parts.toml,
flags.toml, or ordinary_words.toml (filler in every marketplace's language). Numbers, part
numbers and words under three letters are not words here. A listing far under its market whose
title has unread words gets the "check the title" flag (``ranking.pricing``).
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ranking.catalog import CATALOG_DIR, load_catalog
from ranking.titles.tokens import tokenize

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ranking.catalog import Sku

ORDINARY_FILE = Path(__file__).with_name("ordinary_words.toml")
FLAGS_FILE = Path(__file__).with_name("flags.toml")
PHRASE_FILES = (
    CATALOG_DIR / "vocabulary.toml",
    CATALOG_DIR / "aliases.toml",
    CATALOG_DIR / "parts.toml",
    FLAGS_FILE,
)
MIN_LENGTH = 3
MAX_SHOWN = 4


def unread_words(title: str, sku: Sku | None = None) -> tuple[str, ...]:
    """The title's words (lower case, accents folded, first seen first) that no data file
    names; the words of ``sku`` (a user catalog's own) count as named."""
    known = _lexicon()
    own = _sku_words(sku) if sku is not None else frozenset()
    return tuple(
        word
        for word in dict.fromkeys(tokenize(title).words)
        if len(word) >= MIN_LENGTH and word.isalpha() and word not in known and word not in own
    )


def check_title_under() -> float:
    """How far under its market a listing with unread words is flagged (ordinary_words.toml)."""
    return float(_ordinary()["check"]["under_market"])


def describe_unread(words: Iterable[str]) -> str:
    """ "check the title: it says 'leihgabe', 'nachbau', which rigscout does not read" """
    listed = list(words)
    shown = ", ".join(f"'{w}'" for w in listed[:MAX_SHOWN])
    more = f" and {len(listed) - MAX_SHOWN} more" if len(listed) > MAX_SHOWN else ""
    return f"check the title: it says {shown}{more}, which rigscout does not read"


@cache
def _ordinary() -> dict[str, Any]:
    return tomllib.loads(ORDINARY_FILE.read_text(encoding="utf-8"))


@cache
def _lexicon() -> frozenset[str]:
    words: set[str] = set()
    for path in PHRASE_FILES:
        _collect(tomllib.loads(path.read_text(encoding="utf-8")), words)
    _collect(_ordinary()["words"], words)
    for sku in load_catalog():
        words |= _sku_words(sku)
    return frozenset(words)


def _sku_words(sku: Sku) -> frozenset[str]:
    text = " ".join((sku.sku, sku.name, sku.vendor, sku.family, *sku.hints))
    return frozenset(tokenize(text.replace("-", " ")).words)


def _collect(value: object, into: set[str]) -> None:
    """Every word of every string (keys too) in a parsed TOML value."""
    if isinstance(value, str):
        into.update(tokenize(value).words)
    elif isinstance(value, dict):
        for key, item in value.items():
            _collect(key, into)
            _collect(item, into)
    elif isinstance(value, list):
        for item in value:
            _collect(item, into)
