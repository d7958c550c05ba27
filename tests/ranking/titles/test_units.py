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
    "de": [
        "Konvolut {n}x",
        "{n} Stück",
        "{n} Stk.",
        "Paket {n}x",
        "Lot {n}x",
        "{n}er Set",
        "{n}er-Pack",
        "Satz {n}x",
    ],
    "fr": ["Lot de {n}", "{n} pièces", "Lot de {n} cartes", "Paquet de {n}"],
    "it": ["Lotto di {n}", "{n} pezzi", "Lotto {n} schede"],
    "es": ["Lote de {n}", "{n} unidades", "Lote {n} tarjetas", "Paquete de {n}", "Juego de {n}"],
}
PAIRS = ["Pair of", "1 Paar", "Paire de", "Coppia di", "Pareja de"]
WORDS = {
    2: ["two", "zwei", "deux", "due", "dos", "twee"],
    3: ["three", "drei", "trois", "tre", "tres", "drie"],
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


@settings(max_examples=100, deadline=None)
@given(
    card=st.sampled_from(sorted(CARDS)),
    count=st.sampled_from(sorted(WORDS)),
    noun=st.sampled_from(["cards", "Karten", "cartes", "schede", "tarjetas", "kaarten", "Stück"]),
    data=st.data(),
)
def test_a_count_in_words_before_a_count_noun_counts(card, count, noun, data):
    word = data.draw(st.sampled_from(WORDS[count]))
    read = normalize_title(f"{word} {noun} {card}")
    assert (read.sku, read.quantity) == (CARDS[card], count), f"{word} {noun}"


def test_a_quantity_word_in_any_language_counts_unless_the_price_is_each():
    for word in ("QTY", "Quantity:", "Menge:", "Anzahl", "Cantidad:", "quantité", "Aantal"):
        assert normalize_title(f"NVIDIA Tesla P40 24GB, {word} 3").quantity == 3, word
    assert normalize_title("NVIDIA Tesla P40 24GB, Menge: 3, Preis pro Stück").quantity == 1


def test_stock_is_not_a_lot_in_any_language():
    for title in (
        "NVIDIA Tesla P40 24GB - price each, 6 available",
        "NVIDIA Tesla P40 24GB - Preis pro Stück",
        "NVIDIA Tesla P40 24GB - prix à l'unité",
        "NVIDIA Tesla P40 24GB x3 - Preis gilt pro Karte",
        "3x NVIDIA Tesla P40 24GB prix par carte",
        "3x NVIDIA Tesla P40 24GB precio por tarjeta",
        "NVIDIA Tesla P40 24GB (3 unità) prezzo per scheda",
        "4x NVIDIA Tesla P40 24GB - price per GPU",
    ):
        assert normalize_title(title).quantity == 1, title


# A count glued to a product line is the line's name ("RTX 3080 X63 ULTRA", a typo of XC3);
# the same count before the card, or after it with nothing of a product line, is a lot.
LINE_WORDS = ["Ultra", "Gaming", "Black", "Hybrid", "Trio", "FTW3", "XC3", "OC", "Edition"]


@settings(max_examples=150, deadline=None)
@given(
    card=st.sampled_from(sorted(CARDS)),
    count=st.integers(min_value=2, max_value=99),
    line=st.sampled_from(LINE_WORDS),
    data=st.data(),
)
def test_a_count_inside_a_product_name_is_no_lot(card, count, line, data):
    name = data.draw(_cases(f"X{count} {line}"))
    read = normalize_title(f"{card} {name}")
    assert (read.sku, read.quantity) == (CARDS[card], 1), name


@settings(max_examples=100, deadline=None)
@given(
    card=st.sampled_from(sorted(CARDS)),
    count=st.integers(min_value=2, max_value=9),
    cut=st.sampled_from(["...", "…", "", " ..."]),
)
def test_a_count_the_title_cut_before_what_it_counts_is_no_lot(card, count, cut):
    read = normalize_title(f"{card} Graphics Card {count}x{cut}")
    assert (read.sku, read.quantity) == (CARDS[card], 1)


# A card sold with a power supply, in each marketplace's words: the link, then however many
# words describe the supply (brand, model code, watts, form factor), then what it is.
LINKS = ["and", "AND", "with", "w/", "+", "&", "und", "mit", "et", "avec", "y", "con", "en", "met"]
BRANDS = ["Corsair RM1000x", "GIGABYTE GP-P850GM", "be quiet! Dark Power 12", "Seasonic Focus",
          "EVGA SuperNOVA G3"]  # fmt: skip
SUPPLIES = ["PSU", "Power Supply", "Netzteil", "alimentation", "fuente de alimentación",
            "alimentatore", "voeding"]  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(
    card=st.sampled_from(sorted(CARDS)),
    link=st.sampled_from(LINKS),
    brand=st.sampled_from(BRANDS),
    watts=st.sampled_from(["", " 850W", " 1000 W", " 1200W ATX", " 750W SFX modular"]),
    supply=st.sampled_from(SUPPLIES),
)
def test_a_card_sold_with_a_power_supply_is_the_card(card, link, brand, watts, supply):
    title = f"{card} {link} {brand}{watts} {supply}"
    read = normalize_title(title)
    assert (read.sku, read.kind.value, read.quantity) == (CARDS[card], "item", 1), title


# A gift or an extra sold with the card, in each marketplace's words, does not make the
# listing the gift.
GIFTS = ["FREE EVGA Shirt", "+ free T-Shirt", "bonus hoodie", "inkl. Geschenk T-Shirt",
         "gratis Poster", "avec poster offert", "con regalo poster", "omaggio t-shirt",
         "plus free mug", "incl. keychain"]  # fmt: skip


@settings(max_examples=100, deadline=None)
@given(card=st.sampled_from(sorted(CARDS)), gift=st.sampled_from(GIFTS), data=st.data())
def test_a_gift_with_the_card_leaves_it_the_card(card, gift, data):
    title = f"{card} {data.draw(_cases(gift))}"
    read = normalize_title(title)
    assert (read.sku, read.kind.value) == (CARDS[card], "item"), title


# A part named after two sizes joined by a link fits both: it is the part, not the card.
@settings(max_examples=100, deadline=None)
@given(
    link=st.sampled_from(["and", "&", "+", "und", "et", "y", "/", "or"]),
    order=st.sampled_from(
        ["Tesla V100 SXM2 16GB {l} 32GB {p}", "Tesla V100 16GB {l} 32GB SXM2 {p}"]
    ),
    part=st.sampled_from(["heatsink", "Heatsink", "Kühlkörper", "dissipateur", "disipador"]),
)
def test_a_part_that_fits_two_sizes_is_the_part(link, order, part):
    title = order.format(l=link, p=part)
    assert normalize_title(title).kind.value == "accessory", title
