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

_SPACES = re.compile(r"\s+")
_MARKS = str.maketrans({"\u2122": " ", "\u00ae": " ", "\u00a9": " ", "\u2120": " "})  # ™ ® © ℠


def match_form(text: str) -> str:
    """``"ＦＯＲ ＰＡＲＴＳ  RTX\u200b3090"`` -> ``"FOR PARTS RTX3090"``; ``"für Teile"`` ->
    ``"fur Teile"``."""
    if text.isascii():
        return text if "  " not in text and "\t" not in text and "\n" not in text else _fold(text)
    # a trademark sign is a mark, not letters: NFKC would glue "RTX™4090" into "RTXTM4090"
    folded = unicodedata.normalize("NFKC", text.translate(_MARKS))
    folded = "".join(c for c in folded if unicodedata.category(c) != "Cf")
    if not folded.isascii():
        decomposed = unicodedata.normalize("NFKD", folded)
        folded = "".join(c for c in decomposed if not unicodedata.combining(c))
        folded = unicodedata.normalize("NFC", folded).replace("ß", "ss").replace("ẞ", "SS")
    return _fold(folded)


def _fold(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


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
