"""One normal form for every matcher: what a seller types around a filter folds to plain text."""

from __future__ import annotations

import random
import re
import unicodedata

import pytest

from core.text import match_form


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("ＦＯＲ ＰＡＲＴＳ NVIDIA RTX 3090", "FOR PARTS NVIDIA RTX 3090"),  # fullwidth
        ("f\u200bor p\u200barts", "for parts"),  # zero-width spaces inside the words
        ("Tesla P\u200d40", "Tesla P40"),  # a zero-width joiner in a model number
        ("V100\u00adSXM2", "V100SXM2"),  # a soft hyphen
        ("\ufeffTesla  P40\u00a0\u2003 24GB\n", "Tesla P40 24GB"),  # BOM, odd spaces, newline
        ("Tesla P40 24GB", "Tesla P40 24GB"),  # plain text is left alone
        ("FOR PARTS\u0301", "FOR PARTS"),  # a combining accent laid over a letter
        ("für Teile, défectueux", "fur Teile, defectueux"),  # accents of the marketplaces
        ("Straße, Österreich, España", "Strasse, Osterreich, Espana"),
    ],
)
def test_typed_text_folds_to_what_a_reader_sees(typed: str, read: str) -> None:
    assert match_form(typed) == read


def _match_form_by_definition(text: str) -> str:
    """What ``match_form`` is specified to do, one character at a time (its first version)."""
    if text.isascii() and "  " not in text and "\t" not in text and "\n" not in text:
        return text
    folded = unicodedata.normalize(
        "NFKC", text.translate(str.maketrans(dict.fromkeys("\u2122\u00ae\u00a9\u2120", " ")))
    )
    folded = "".join(c for c in folded if unicodedata.category(c) != "Cf")
    if not folded.isascii():
        decomposed = unicodedata.normalize("NFKD", folded)
        folded = "".join(c for c in decomposed if not unicodedata.combining(c))
        folded = unicodedata.normalize("NFC", folded).replace("ß", "ss").replace("ẞ", "SS")
    return re.sub(r"\s+", " ", folded).strip()


def test_the_fast_fold_reads_any_text_as_the_definition_does() -> None:
    """Random text from every plane the titles draw on (letters, accents, combining marks,
    format characters, emoji, odd spaces, fullwidth forms, Hangul): the same fold, character
    for character."""
    rng = random.Random(36)
    pools = [
        "abcXYZ 0123-/()",
        "äöüßẞéèçñÅØ",
        "\u0300\u0301\u0308\u0327\u20dd\u0e48",
        "\u00ad\u200b\u200c\u200d\u2060\ufeff\u200e\u202e\u2066",
        "\u00a0\u2003\u3000\t\n\x0b\x0c\x1c\x85",
        "ＦＯＲｐａｒｔｓ１２",
        "™®©℠🔥✅⚡️",
        "가각\u1100\u1161\u11a8",
    ]
    for _ in range(4000):
        text = "".join(rng.choice(rng.choice(pools)) for _ in range(rng.randint(0, 24)))
        if rng.random() < 0.5:
            text += "".join(chr(rng.randint(0x80, 0x2FFFF)) for _ in range(rng.randint(1, 4)))
        assert match_form(text) == _match_form_by_definition(text), repr(text)
