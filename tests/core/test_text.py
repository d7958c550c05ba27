"""One normal form for every matcher: what a seller types around a filter folds to plain text."""

from __future__ import annotations

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
