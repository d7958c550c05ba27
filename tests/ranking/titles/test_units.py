"""How many units a title sells, in every language a marketplace speaks: one reader answers
every phrasing the same way. The phrasings are written here from how sellers word lots on each
marketplace, not read from the vocabulary, so a word dropped from the data file fails a test."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ranking.titles import normalize_title

CARDS = {
    "NVIDIA Tesla P40 24GB": "nvidia-tesla-p40",
    "NVIDIA GeForce RTX 3090 24GB": "nvidia-rtx-3090",
    "NVIDIA RTX A4000 16GB": "nvidia-rtx-a4000",
}
# {n} is the count; each phrase heads the title
LOTS = {
    "en": ["Lot of {n}", "LOT OF {n}", "{n}x", "{n} pcs", "Set of {n}", "Bundle of {n}"],
    "de": ["Konvolut {n}x", "{n} Stück", "{n} Stk.", "Paket {n}x", "Lot {n}x"],
    "fr": ["Lot de {n}", "{n} pièces", "Lot de {n} cartes"],
    "it": ["Lotto di {n}", "{n} pezzi", "Lotto {n} schede"],
    "es": ["Lote de {n}", "{n} unidades", "Lote {n} tarjetas"],
}
PAIRS = ["Pair of", "1 Paar", "Paire de", "Coppia di", "Pareja de"]
WORDS = {
    2: ["two", "zwei", "deux", "due", "dos"],
    3: ["three", "drei", "trois", "tre", "tres"],
    4: ["four", "vier", "quatre", "quattro", "cuatro"],
}
PHRASES = [p for phrases in LOTS.values() for p in phrases]


def _cases(text: str) -> st.SearchStrategy[str]:
    return st.sampled_from([text, text.upper(), text.lower()])


@settings(max_examples=300, deadline=None)
@given(
    card=st.sampled_from(sorted(CARDS)),
    phrase=st.sampled_from(PHRASES),
    count=st.integers(min_value=2, max_value=12),
    sep=st.sampled_from([" ", " - ", ": ", " * "]),
    data=st.data(),
)
def test_a_lot_in_any_language_counts_its_units(card, phrase, count, sep, data):
    head = data.draw(_cases(phrase.format(n=count)))
    read = normalize_title(f"{head}{sep}{card}")
    assert (read.sku, read.quantity) == (CARDS[card], count), head


@settings(max_examples=100, deadline=None)
@given(card=st.sampled_from(sorted(CARDS)), pair=st.sampled_from(PAIRS), data=st.data())
def test_a_pair_in_any_language_is_two(card, pair, data):
    read = normalize_title(f"{data.draw(_cases(pair))} {card}")
    assert (read.sku, read.quantity) == (CARDS[card], 2)


@settings(max_examples=100, deadline=None)
@given(
    card=st.sampled_from(sorted(CARDS)),
    group=st.sampled_from(["Lot of", "Lot de", "Lote de", "Lotto di", "Konvolut"]),
    count=st.sampled_from(sorted(WORDS)),
    data=st.data(),
)
def test_a_count_in_words_after_a_lot_word_counts_too(card, group, count, data):
    word = data.draw(st.sampled_from(WORDS[count]))
    read = normalize_title(f"{group} {word} {card}")
    assert (read.sku, read.quantity) == (CARDS[card], count)


def test_stock_is_not_a_lot_in_any_language():
    for title in (
        "NVIDIA Tesla P40 24GB - price each, 6 available",
        "NVIDIA Tesla P40 24GB - Preis pro Stück",
        "NVIDIA Tesla P40 24GB - prix à l'unité",
    ):
        assert normalize_title(title).quantity == 1, title
