"""The one form of text every matcher sees: titles, seller names, locations and conditions.

eBay shows what sellers type, and some type around filters: fullwidth letters
(``ＦＯＲ ＰＡＲＴＳ``), zero-width spaces inside words (``for\u200bparts``), a zero-width
joiner inside a model number, soft hyphens, odd spaces, and a combining accent laid over a
letter (``PARTS`` + U+0301). Sellers in Germany, France or Spain write "für", "défectueux",
"España". ``match_form`` folds all of these into plain text (Unicode NFKC, format characters
removed, accents and other combining marks dropped, "ß" as "ss", trademark signs as spaces,
whitespace runs to one space)
before any rule reads it, so a phrase file lists "fur teile" once for "für Teile" and "fur
teile". What is stored and shown stays what eBay showed.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

_MARK_SIGNS = ("\u2122", "\u00ae", "\u00a9", "\u2120")  # ™ ® © ℠
_MARKS = str.maketrans(dict.fromkeys(_MARK_SIGNS, " "))
_LEARNED = 50_000  # code points a table remembers; past that it still answers, from scratch


class _Dropping(dict[int, int | None]):
    """A ``str.translate`` table that drops the characters ``drop`` picks, asking it once per
    code point: translating in C is several times faster than testing each character in Python."""

    def __init__(self, drop: Callable[[str], object]) -> None:
        super().__init__()
        self._drop = drop

    def __missing__(self, code: int) -> int | None:
        kept = None if self._drop(chr(code)) else code
        if len(self) < _LEARNED:
            self[code] = kept
        return kept


_FORMAT_CHARACTERS = _Dropping(lambda c: unicodedata.category(c) == "Cf")
_COMBINING_MARKS = _Dropping(unicodedata.combining)


def match_form(text: str) -> str:
    """``"ＦＯＲ ＰＡＲＴＳ  RTX\u200b3090"`` -> ``"FOR PARTS RTX3090"``; ``"für Teile"`` ->
    ``"fur Teile"``."""
    if text.isascii():
        return text if "  " not in text and "\t" not in text and "\n" not in text else _fold(text)
    # a trademark sign is a mark, not letters: NFKC would glue "RTX™4090" into "RTXTM4090"
    if any(mark in text for mark in _MARK_SIGNS):
        text = text.translate(_MARKS)
    folded = unicodedata.normalize("NFKC", text)
    folded = folded.translate(_FORMAT_CHARACTERS)
    if not folded.isascii():
        decomposed = unicodedata.normalize("NFKD", folded)
        folded = decomposed.translate(_COMBINING_MARKS)
        folded = unicodedata.normalize("NFC", folded).replace("ß", "ss").replace("ẞ", "SS")
    return _fold(folded)


def _fold(text: str) -> str:
    # str.split() splits on the whitespace "\\s" matches, and drops it at both ends
    return " ".join(text.split())


# Characters that change the direction text is shown in (embeddings, overrides, isolates and
# marks): in a seller's title they can make the words after it read backwards.
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_ISOLATE, _POP_ISOLATE = "\u2068", "\u2069"  # first-strong isolate … pop directional isolate


def without_bidi(text: str) -> str:
    """``text`` without direction controls: for messages, where nothing may turn around."""
    return _BIDI.sub("", text)


def bidi_isolated(text: str) -> str:
    """``text`` wrapped in a directional isolate when it holds direction controls, so that what
    follows it (our own words) is shown in its own direction; other text as it is."""
    return f"{_ISOLATE}{text}{_POP_ISOLATE}" if _BIDI.search(text) else text
