"""Read how many units a title sells: "Lot of 4", "4x", "x8", "(2)", "QTY 2", "5pcs", "pair".

Link widths ("PCIe 4.0 x16"), slot counts ("8x GPU server") and power plugs ("2x 8-pin")
are not lots; ``find_lot_cues`` skips them so callers only choose among real counts.
"""

from __future__ import annotations

import tomllib
from typing import TYPE_CHECKING, Any

from ranking.catalog import CATALOG_DIR

if TYPE_CHECKING:
    from ranking.titles.tokens import Tokens

MAX_LOT = 200


def _lot_words() -> dict[str, Any]:
    """The ``[lots]`` table of the vocabulary: every language's lot, count and pair words."""
    text = (CATALOG_DIR / "vocabulary.toml").read_text(encoding="utf-8")
    return dict(tomllib.loads(text)["lots"])


_WORDS = _lot_words()
NUMBER_WORDS: dict[str, int] = dict(_WORDS["numbers"])
_PACKS: dict[str, int] = dict(_WORDS["packs"])
_COUNT_NOUNS = frozenset(_WORDS["count_nouns"])
_GROUP_NOUNS = frozenset(_WORDS["group"])
_GROUP_LINKS = tuple(_WORDS["group_links"])
_COUNT_SUFFIXES = frozenset(_WORDS["count_suffixes"])
_PAIRS = frozenset(_WORDS["pair"])
_QUANTITY = frozenset(_WORDS["quantity"])
# the number words that count cards ("two cards"), not "dual" or "pair"
_COUNT_WORDS = frozenset(NUMBER_WORDS) - _PAIRS - {"dual"}
TRIGGERS = frozenset({"x"} | _QUANTITY | _COUNT_NOUNS | _GROUP_NOUNS | _PAIRS | set(_PACKS))
# tokens before "xN" that make it a PCIe link width ("PCIe 4.0 x16", "Gen3 x8")
_LINK = frozenset({
    "pcie", "pci", "e", "express", "gen", "0", "slot", "slots", "lane", "lanes", "link", "in",
    "mode",
})  # fmt: skip
# tokens after "Nx"/"xN" that make the number something else than units sold
_NOT_UNITS = frozenset({
    "pin", "pins", "gb", "g", "tb", "mb", "w", "watt", "v", "mm", "slot", "slots", "lane", "lanes",
    "u", "ghz", "mhz", "core", "cores", "port", "ports", "dimm", "dimms", "gpu", "gpus", "way",
    "bay", "bays", "fan", "fans", "psu", "psus", "nvme", "sas", "sata", "drive", "drives", "ddr",
    "ddr3", "ddr4", "cpu", "cpus", "xeon", "hdd", "ssd", "e", "pcie", "pci", "display", "dp",
    "hdmi", "fhd", "inch", "in",
})  # fmt: skip
# "Ventus 3X", "3X WINDFORCE Fans", "X63 ULTRA": a card's product line, not a lot
_LINE = frozenset(_WORDS["lines"])
_LINE_AFTER = frozenset(_WORDS["line_after"])
# the price is per unit ("Price Each", "Preis pro Stück"), the count is stock ("3 available")
_EACH = tuple(tuple(p.split()) for p in _WORDS["each"])
_AVAILABLE = tuple(tuple(p.split()) for p in _WORDS["available"])
_EACH_FIRST = frozenset(p[0] for p in _EACH)
_PRICE_WORDS = frozenset(_WORDS["price_words"])
_ONE_WORDS = frozenset(_WORDS["one_words"])
_ONE_NOUNS = frozenset(_WORDS["one_nouns"])
_PRICE_REACH = 5  # words from the price word to the "one card" it is for
_LOT_NOT_UNITS = frozenset(
    {"pin", "pins", "gb", "g", "tb", "mb", "w", "watt", "v", "mm", "ghz", "mhz"}
)
BRAND_WORDS = frozenset({
    "nvidia", "tesla", "geforce", "rtx", "gtx", "amd", "radeon", "instinct", "quadro", "intel",
    "arc", "pny", "dell", "hp", "hpe", "evga", "asus", "msi", "zotac", "gigabyte", "new", "used",
    "of", "the", "genuine", "oem", "nvidea", "nvida", "nividia",
})  # fmt: skip


def find_lot_cues(tokens: Tokens) -> list[tuple[int, int]]:
    """Every (token position, count) that states how many units are sold, in title order."""
    words, seps = tokens.words, tokens.seps
    cues: list[tuple[int, int]] = []
    leading = bool(words) and (words[0].isdigit() or words[0] in NUMBER_WORDS)
    if not leading and _no_trigger(words, seps) and "(" not in "".join(seps):
        return cues
    positions = [
        i for i, w in enumerate(words)
        if (w in TRIGGERS and not _glued_x(words, seps, i))
        or (w.isdigit() and seps[i].endswith("("))
    ]  # fmt: skip
    if not positions and not leading:
        return cues
    for i in positions if positions[:1] == [0] else [0, *positions]:
        word = words[i]
        count: int | None = None
        if word in _GROUP_NOUNS:
            count = _number_after(words, i + 1, skip=_GROUP_LINKS) or _suffixed(words, seps, i)
        elif word in _QUANTITY:
            count = _number_after(words, i + 1, skip=())
        elif word == "x":
            count = _times(words, seps, i)
        elif word in _COUNT_NOUNS and i > 0 and words[i - 1].isdigit():
            count = int(words[i - 1])
        elif word in _COUNT_NOUNS and i > 0 and words[i - 1] in _COUNT_WORDS:
            count = NUMBER_WORDS[words[i - 1]]  # "deux cartes", "tres tarjetas", "due schede"
        elif word in _PAIRS and not (i > 0 and words[i - 1] in ("nvlink", "sli")):
            count = 2
        elif word in _PACKS:
            count = _PACKS[word]
        elif word.isdigit() and seps[i].endswith("(") and i + 1 < len(words):
            count = _parenthesised(words, seps, i)
        elif i == 0 and len(words) > 1 and words[1] in BRAND_WORDS:
            count = _leading_count(word)
        if count is not None and 1 <= count <= MAX_LOT and not _stock(words, i, word):
            cues.append((i, count))
    return cues


def _stock(words: tuple[str, ...], i: int, word: str) -> bool:
    """ "QTY 3 Available - Price Each": how many the seller has, each sold at this price.

    A lot ("Lot of 4", "Set of 2") is always sold together, whatever else the title says.
    """
    if word in _GROUP_NOUNS:
        return False
    if not _EACH_FIRST.isdisjoint(words) and any(
        _phrase_at(words, at, _EACH) for at, w in enumerate(words) if w in _EACH_FIRST
    ):
        return True
    if not _PRICE_WORDS.isdisjoint(words) and _priced_for_one(words):
        return True
    return any(_phrase_at(words, at, _AVAILABLE) for at in range(i + 1, min(i + 4, len(words))))


def _priced_for_one(words: tuple[str, ...]) -> bool:
    """A price word, then "one"/"single" and what it counts within a few words: "price is for
    one card", "Preis gilt für eine Karte", "prezzo riferito alla singola scheda", "the price
    shown is for a single card"; or right before it ("single card price")."""
    for at, word in enumerate(words):
        if word in _PRICE_WORDS:
            for start in (*range(max(0, at - 2), at), *range(at + 1, at + 1 + _PRICE_REACH)):
                end = start
                while end < len(words) and words[end] in _ONE_WORDS:
                    end += 1  # "a single", "una sola"
                if end > start and end < len(words) and words[end] in _ONE_NOUNS:
                    return True
    return False


def _phrase_at(words: tuple[str, ...], at: int, phrases: tuple[tuple[str, ...], ...]) -> bool:
    return any(words[at : at + len(p)] == p for p in phrases)


def _no_trigger(words: tuple[str, ...], seps: tuple[str, ...]) -> bool:
    """No lot word at all, or only the "x" of "GDDR6X" (checked first: it is in most titles)."""
    if TRIGGERS.isdisjoint(words):
        return True
    return (
        TRIGGERS.intersection(words) == {"x"}
        and words.count("x") == 1
        and _glued_x(words, seps, words.index("x"))
    )


def _glued_x(words: tuple[str, ...], seps: tuple[str, ...], i: int) -> bool:
    return words[i] == "x" and seps[i] == "" and i > 1 and seps[i - 1] == ""


# between a count and the model it counts in a server: "8x NVIDIA Tesla", "4 GPU Tesla V100",
# "with 4 GPUs (V100 16GB)"
_NEAR_SKIP = BRAND_WORDS | {"gpu", "gpus"}


def count_near(tokens: Tokens, start: int, end: int) -> int | None:
    """How many of the model at tokens[start:end] a server holds: "8x V100", "V100 x 8", "(4)"."""
    words, seps = tokens.words, tokens.seps
    i = start - 1
    while i >= 0 and words[i] in _NEAR_SKIP and start - i <= 3:
        i -= 1
    if i >= 0:
        if words[i] == "x" and i > 0 and words[i - 1].isdigit():
            return _bounded(words[i - 1])
        if words[i] in _COUNT_NOUNS and i > 0 and words[i - 1].isdigit():
            return _bounded(words[i - 1])
        if words[i].isdigit() and "." not in seps[i]:
            return _bounded(words[i])
    for j in range(end, min(end + 5, len(words) - 1)):
        if words[j] == "x" and words[j + 1].isdigit() and seps[j + 1] in ("", " "):
            return _bounded(words[j + 1])
    return None


def _leading_count(word: str) -> int | None:
    if word.isdigit():
        return int(word) if int(word) <= 20 else None
    return NUMBER_WORDS.get(word) if word not in _PAIRS | {"dual"} else None


def _bounded(text: str) -> int | None:
    value = int(text)
    return value if 1 <= value <= 64 else None


def _suffixed(words: tuple[str, ...], seps: tuple[str, ...], i: int) -> int | None:
    """ "10er Set", "4er-Pack": the count glued to a suffix right before the group noun."""
    if i >= 2 and words[i - 1] in _COUNT_SUFFIXES and words[i - 2].isdigit() and not seps[i - 1]:
        return int(words[i - 2])
    return None


def _number_after(words: tuple[str, ...], at: int, skip: tuple[str, ...]) -> int | None:
    while at < len(words) and words[at] in skip:
        at += 1
    if at >= len(words):
        return None
    word = words[at]
    if word.isdigit():
        unit = words[at + 1] if at + 1 < len(words) else ""
        return None if unit in _LOT_NOT_UNITS else int(word)
    return NUMBER_WORDS.get(word)


def _times(words: tuple[str, ...], seps: tuple[str, ...], i: int) -> int | None:
    after = words[i + 1] if i + 1 < len(words) else ""
    line = (
        (i > 0 and words[i - 1] in _LINE)
        or (i > 1 and words[i - 2] in _LINE)
        or after in _LINE_AFTER
    )
    code = (
        after.isdigit() and seps[i + 1] == "" and seps[i] == "" and i > 0 and words[i - 1].isdigit()
    )
    if line or code:
        return None
    glued = i > 1 and seps[i - 1] == ""  # the "40" of "P40 x8" belongs to the model
    if (
        i > 0
        and words[i - 1].isdigit()
        and int(words[i - 1]) <= 100
        and seps[i] in ("", " ")
        and not glued
    ):
        before = words[i - 2] if i > 1 else ""
        if before in _LINK or after in _NOT_UNITS or "." in seps[i - 1]:
            return None
        if not after:  # "… Graphics Card 3x...": the title is cut before what it counts
            return None
        following = words[i + 2] if i + 2 < len(words) else ""
        if after.isdigit() and following in _NOT_UNITS:
            return None
        return int(words[i - 1])
    if after.isdigit() and seps[i + 1] in ("", " ") and (i == 0 or seps[i] != ""):
        before = words[i - 1] if i > 0 else ""
        following = words[i + 2] if i + 2 < len(words) else ""
        resolution = before.isdigit() and len(after) >= 3
        link = before in _LINK or (before.isdigit() and i > 1 and words[i - 2] in _LINK)
        line = following in _LINE_AFTER  # "RTX 3080 X63 ULTRA"
        if link or resolution or line or following in _NOT_UNITS or after == "16":
            return None
        return int(after)
    return None


def _parenthesised(words: tuple[str, ...], seps: tuple[str, ...], i: int) -> int | None:
    if seps[i + 1].startswith(")"):
        return int(words[i])
    if (
        words[i + 1] in ("x", "pcs", "pc", "units", "cards")
        and i + 2 < len(words)
        and seps[i + 2].startswith(")")
    ):
        return int(words[i])
    return None
