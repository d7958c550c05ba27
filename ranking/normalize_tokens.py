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
# before it, what a match means, and whether it must stand alone as a word
_Entry = tuple[tuple[str, ...], tuple[bool, ...], str, str, bool]


class PhraseIndex:
    """Phrases keyed by their first token, longest first, for greedy matching.

    A bounded phrase (a model name) must not be glued to the text around it, so the "A10"
    inside "ZT-P10610A-10L" or the "P4" of "04G-P4-3966" is not a match. ``left_ok`` and
    ``right_ok`` list neighbours it may touch anyway ("RTX3090", "V100-SXM2").
    """

    def __init__(self, left_ok: frozenset[str] = frozenset(), right_ok: frozenset[str] = frozenset()) -> None:
        self._by_first: dict[str, list[_Entry]] = {}
        self._left_ok = left_ok
        self._right_ok = right_ok

    def add(self, phrase: str, kind: str, value: str, *, bounded: bool = False) -> None:
        tokens: list[str] = []
        tight: list[bool] = []
        for word in phrase.lower().split():
            for position, part in enumerate(_WORD_PART.findall(word)):
                tokens.append(part)
                tight.append(position > 0)
        if not tokens:
            return
        entries = self._by_first.setdefault(tokens[0], [])
        entries.append((tuple(tokens[1:]), tuple(tight[1:]), kind, value, bounded))
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
                for rest, tight, kind, value, bounded in entries:
                    end = i + 1 + len(rest)
                    if (
                        end <= count
                        and _fits(words, seps, i + 1, rest, tight)
                        and (not bounded or self._alone(words, seps, i, end))
                    ):
                        found.append(Match(kind, value, i, end))
                        i = end - 1
                        break
            i += 1
        return found


    def _alone(self, words: tuple[str, ...], seps: tuple[str, ...], start: int, end: int) -> bool:
        if start > 0 and seps[start] in _TIGHT and words[start - 1] not in self._left_ok:
            return False
        if end >= len(words) or seps[end] not in _TIGHT or words[end] in self._right_ok:
            return True
        after = words[end]
        return after.isdigit() and end + 1 < len(words) and words[end + 1] in self._right_ok


def _fits(
    words: tuple[str, ...],
    seps: tuple[str, ...],
    at: int,
    rest: tuple[str, ...],
    tight: tuple[bool, ...],
) -> bool:
    for offset, token in enumerate(rest):
        if words[at + offset] != token or (tight[offset] and seps[at + offset] not in _TIGHT):
            return False
    return True
