"""Unicode cannot walk a title past the filters: fullwidth letters and zero-width characters
give the same SKU, kind, quantity and risk flags as the plain title (issue: "ＦＯＲ ＰＡＲＴＳ"
was ranked and alerted as a deal)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ranking.titles.flags import load_signals
from ranking.titles.normalize import normalize_title

CASES = tomllib.loads((Path(__file__).parent / "normalizer_cases.toml").read_text("utf-8"))["case"]
TITLES = [str(case["title"]) for case in CASES]
ZERO_WIDTH = ("\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad")


def fullwidth(text: str) -> str:
    """Every printable ASCII character as its fullwidth twin (the space as an ideographic one)."""
    return "".join(
        "\u3000" if c == " " else chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text
    )


def what_it_is(title: str) -> tuple[object, ...]:
    found = normalize_title(title)
    return (found.sku, found.kind, found.quantity, tuple(load_signals().codes_for(title)))


@pytest.mark.parametrize("title", TITLES)
def test_a_fullwidth_title_is_the_same_listing(title: str) -> None:
    assert what_it_is(fullwidth(title)) == what_it_is(title)


@settings(max_examples=200, deadline=None)
@given(title=st.sampled_from(TITLES), data=st.data())
def test_zero_width_characters_anywhere_change_nothing(title: str, data: st.DataObject) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(title)), max_size=6))
    chars = data.draw(st.lists(st.sampled_from(ZERO_WIDTH), min_size=len(cuts), max_size=len(cuts)))
    hostile = title
    for at, char in sorted(zip(cuts, chars, strict=True), reverse=True):
        hostile = hostile[:at] + char + hostile[at:]
    assert what_it_is(hostile) == what_it_is(title)


@pytest.mark.parametrize(
    ("title", "kind", "flag"),
    [
        ("ＦＯＲ ＰＡＲＴＳ NVIDIA GeForce RTX 3090 24GB", "for_parts", "for_parts"),
        ("f\u200bor p\u200barts NVIDIA GeForce RTX 3090 24GB", "for_parts", "for_parts"),
        ("NVIDIA GeForce RTX 3090 24GB ＮＯ ＤＩＳＰＬＡＹ", "for_parts", "no_display"),
        ("NVIDIA GeForce RTX 3090 24GB ＡＳ ＩＳ", "for_parts", "as_is"),
        ("NVIDIA GeForce RTX 3090 ｒｅａｄ ｄｅｓｃｒｉｐｔｉｏｎ", "item", "read_description"),
    ],
)
def test_the_words_that_keep_a_listing_out_are_read_in_any_width(
    title: str, kind: str, flag: str
) -> None:
    found = normalize_title(title)
    assert (found.sku, found.kind.value) == ("nvidia-rtx-3090", kind)
    assert flag in load_signals().codes_for(title)


def test_a_fullwidth_lot_and_model_number_are_read() -> None:
    lot = normalize_title("ＬＯＴ ＯＦ ４ NVIDIA Tesla P40 24GB")
    assert (lot.sku, lot.quantity) == ("nvidia-tesla-p40", 4)
    assert normalize_title("NVIDIA Tesla Ｐ４０ 24GB").sku == "nvidia-tesla-p40"
    assert normalize_title("NVIDIA GeForce ＲＴＸ ３０９０ 24GB").sku == "nvidia-rtx-3090"
    assert normalize_title("NVIDIA Tesla P\u200d40 24GB").sku == "nvidia-tesla-p40"
