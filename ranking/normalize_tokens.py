"""Split a listing title into tokens and find known phrases in one left-to-right pass.

A title becomes letter runs and digit runs with the separator text before each
("RTX3090-Ti" -> rtx, 3090, ti); phrases are matched by dict lookup on their first token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(r"([^a-z0-9]*)([a-z]+|[0-9]+)")
_WORD_PART = re.compile(r"[a-z]+|[0-9]+")
_TIGHT = frozenset({"", "-"})
_FOLD = str.maketrans({"×": "x", "’": "'", "–": "-", "—": "-", "‐": "-"})
MAX_TITLE = 400  # eBay titles stop at 80 characters; longer text is not a title


@dataclass(frozen=True, slots=True)
class Tokens:
    """A title's tokens and, for each, the separator text that came before it."""

    words: tuple[str, ...]
    seps: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Match:
    """One phrase found in a title: what it means, and the token span it covers."""

    kind: str
    value: str
    start: int
    end: int


def tokenize(title: str) -> Tokens:
    """Lower-case the title and split it into tokens (only the first MAX_TITLE characters)."""
    pairs = _TOKEN.findall(title[:MAX_TITLE].lower().translate(_FOLD))
    if not pairs:
        return Tokens((), ())
    seps, words = zip(*pairs, strict=True)
    return Tokens(words, seps)


def compact(phrase: str) -> str:
    """The phrase as one key without separators: "L40 S" -> "l40s"."""
    return "".join(_WORD_PART.findall(phrase.lower()))


# one compiled phrase: the tokens after the first, whether each must be glued to the one
# before it, and what a match means
_Entry = tuple[tuple[str, ...], tuple[bool, ...], str, str]


class PhraseIndex:
    """Phrases keyed by their first token, longest first, for greedy matching."""

    def __init__(self) -> None:
        self._by_first: dict[str, list[_Entry]] = {}

    def add(self, phrase: str, kind: str, value: str) -> None:
        tokens: list[str] = []
        tight: list[bool] = []
        for word in phrase.lower().split():
            for position, part in enumerate(_WORD_PART.findall(word)):
                tokens.append(part)
                tight.append(position > 0)
        if not tokens:
            return
        entries = self._by_first.setdefault(tokens[0], [])
        entries.append((tuple(tokens[1:]), tuple(tight[1:]), kind, value))
        entries.sort(key=lambda entry: -len(entry[0]))

    def scan(self, tokens: Tokens) -> list[Match]:
        """Every phrase in the title, longest match first at each position, no overlaps."""
        words, seps = tokens.words, tokens.seps
        by_first = self._by_first
        found: list[Match] = []
        i, count = 0, len(words)
        while i < count:
            entries = by_first.get(words[i])
            if entries is not None:
                for rest, tight, kind, value in entries:
                    end = i + 1 + len(rest)
                    if end <= count and _fits(words, seps, i + 1, rest, tight):
                        found.append(Match(kind, value, i, end))
                        i = end - 1
                        break
            i += 1
        return found


def _fits(
    words: tuple[str, ...], seps: tuple[str, ...], at: int, rest: tuple[str, ...], tight: tuple[bool, ...]
) -> bool:
    for offset, token in enumerate(rest):
        if words[at + offset] != token or (tight[offset] and seps[at + offset] not in _TIGHT):
            return False
    return True
