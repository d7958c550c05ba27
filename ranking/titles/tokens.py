"""Split a listing title into tokens and find known phrases in one left-to-right pass.

A title becomes letter runs and digit runs with the separator text before each
("RTX3090-Ti" -> rtx, 3090, ti); phrases are found by dict lookups on their first two tokens.
"""

from __future__ import annotations

import html
import re
from typing import NamedTuple

from core.text import match_form

_TOKEN = re.compile(r"([a-z]+|[0-9]+)")
_WORD_PART = re.compile(r"[a-z]+|[0-9]+|#")
_MARKUP = re.compile(r"<[^<>]{0,40}>")
_TIGHT = frozenset({"", "-"})
_FOLD = str.maketrans({"×": "x", "’": "'", "–": "-", "—": "-", "‐": "-"})
MAX_TITLE = 400  # eBay titles stop at 80 characters; longer text is not a title


class Tokens(NamedTuple):
    """A title's tokens and, for each, the separator text that came before it."""

    words: tuple[str, ...]
    seps: tuple[str, ...]


class TokenMatch(NamedTuple):
    """One phrase found in a title: what it means, and the token span it covers.

    A NamedTuple rather than a frozen dataclass: a title makes several, and building a
    tuple is several times cheaper.
    """

    kind: str
    value: str
    start: int
    end: int


def tokenize(title: str) -> Tokens:
    """Lower-case the title and split it into tokens (only the first MAX_TITLE characters)."""
    text = match_form(title[:MAX_TITLE])
    if "&" in text:
        text = html.unescape(text)
    if "<" in text:
        text = _MARKUP.sub(" ", text)
    text = text.lower()
    if not text.isascii():
        text = text.translate(_FOLD)
    # split with a capturing group alternates separator, token, separator, ..., separator
    parts = _TOKEN.split(text)
    return Tokens(tuple(parts[1::2]), tuple(parts[0:-1:2]))


def compact(phrase: str) -> str:
    """The phrase as one key without separators: "L40 S" -> "l40s"."""
    return "".join(_WORD_PART.findall(phrase.lower()))


# one compiled phrase: the tokens after the first, whether each must be glued to the one
# before it, what a match means, and whether it must stand alone as a word
_Entry = tuple[tuple[str, ...], tuple[bool, ...], str, str, bool]
# entries of one first token: longer phrases keyed by their second token, then one-token ones
_Level = tuple[dict[str, list[_Entry]], list[_Entry]]


class PhraseIndex:
    """Phrases keyed by their first two tokens, longest first, for greedy matching.

    A bounded phrase (a model name) must not be glued to the text around it, so the "A10"
    inside "ZT-P10610A-10L" or the "P4" of "04G-P4-3966" is not a match. ``left_ok`` and
    ``right_ok`` list neighbours it may touch anyway ("RTX3090", "V100-SXM2"). A "#" in a
    phrase stands for any number ("gtx #").
    """

    def __init__(
        self, left_ok: frozenset[str] = frozenset(), right_ok: frozenset[str] = frozenset()
    ) -> None:
        self._levels: dict[str, _Level] = {}
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
        longer, single = self._levels.setdefault(tokens[0], ({}, []))
        entry = (tuple(tokens[1:]), tuple(tight[1:]), kind, value, bounded)
        if len(tokens) == 1:
            single.append(entry)
            return
        entries = longer.setdefault(tokens[1], [])
        entries.append(entry)
        entries.sort(key=lambda e: -len(e[0]))

    def scan(self, tokens: Tokens) -> list[TokenMatch]:
        """Every phrase in the title, longest match first at each position, no overlaps."""
        words = tokens.words
        levels = self._levels
        found: list[TokenMatch] = []
        count = len(words)
        covered = 0  # tokens before this index belong to an earlier match
        for i, (longer, single) in [
            (i, level) for i, word in enumerate(words) if (level := levels.get(word)) is not None
        ]:
            if i < covered:
                continue
            candidates = None
            if longer and i + 1 < count:
                following = words[i + 1]
                candidates = longer.get(following)
                if candidates is None and following.isdigit():
                    candidates = longer.get("#")
            if candidates:
                covered = self._match_at(tokens, i, candidates, single, found) or covered
            elif single:
                # most hits are one free-standing word ("gb", "heatsink"): no phrase to walk
                rest, _, kind, value, bounded = single[0]
                if not rest and not bounded and len(single) == 1:
                    found.append(TokenMatch(kind, value, i, i + 1))
                    covered = i + 1
                else:
                    covered = self._match_at(tokens, i, None, single, found) or covered
        return found

    def _match_at(
        self,
        tokens: Tokens,
        i: int,
        candidates: list[_Entry] | None,
        single: list[_Entry],
        found: list[TokenMatch],
    ) -> int:
        words, seps = tokens.words, tokens.seps
        for rest, tight, kind, value, bounded in (*(candidates or ()), *single):
            end = i + 1 + len(rest)
            if (
                end <= len(words)
                and _fits(words, seps, i + 1, rest, tight)
                and (not bounded or self._alone(words, seps, i, end))
            ):
                found.append(TokenMatch(kind, value, i, end))
                return end
        return 0

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
        word = words[at + offset]
        any_number = token == "#" and word.isdigit()  # noqa: S105 (a phrase token, not a secret)
        if (word != token and not any_number) or (
            tight[offset] and seps[at + offset] not in _TIGHT
        ):
            return False
    return True
