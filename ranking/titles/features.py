"""Extract a title's features in one pass: phrases, memory sizes, form factor, watts, part number.

The result is what ranking/titles/normalize.py decides on; nothing here chooses a SKU.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ranking.titles.specifics import specific
from ranking.titles.tokens import TokenMatch, Tokens, tokenize

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from ranking.titles.vocab import Vocabulary

_NONE: frozenset[int] = frozenset()
_UNIT_SEPS = frozenset({"", " ", "-"})


class Features(NamedTuple):
    """What one scan of a title found. ``vrams`` are memory sizes in title order."""

    tokens: Tokens
    matches: tuple[TokenMatch, ...]
    vrams: tuple[float, ...]
    form: str | None
    part: str | None
    watts: frozenset[int]
    by_kind: dict[str, list[TokenMatch]]

    def of(self, kind: str) -> list[TokenMatch]:
        return self.by_kind.get(kind, [])

    def has(self, kind: str, value: str) -> bool:
        return any(m.value == value for m in self.by_kind.get(kind, ()))

    @property
    def marks(self) -> frozenset[str]:
        """Every token, and every matched model name written as one word ("v100s")."""
        joined = ("".join(self.tokens.words[m.start : m.end]) for m in self.matches)
        return frozenset(self.tokens.words).union(joined)


def extract_features(
    title: str, vocabulary: Vocabulary, specifics: Mapping[str, str] | None = None
) -> Features:
    """Scan ``title`` once against ``vocabulary``; ``specifics`` may add a memory size."""
    tokens = tokenize(title)
    matches = tuple(vocabulary.index.scan(tokens))
    by_kind: dict[str, list[TokenMatch]] = {}
    for m in matches:
        group = by_kind.get(m.kind)
        if group is None:
            by_kind[m.kind] = [m]
        else:
            group.append(m)
    units = by_kind.get("unit")
    vrams = _numbers_before(tokens, units) if units else ()
    if specifics:
        vrams += _specific_vram(specifics)
    watt_units = by_kind.get("watt")
    watts = frozenset(int(w) for w in _numbers_before(tokens, watt_units)) if watt_units else _NONE
    parts = by_kind.get("part")
    part = parts[0].value if parts else None
    form = (
        _form(tokens, by_kind, vocabulary.words["form.negators"], vocabulary.words["form.brackets"])
        if "form" in by_kind or "accessory.weak" in by_kind
        else None
    )
    return Features(tokens, matches, vrams, form, part, watts, by_kind)


def _numbers_before(tokens: Tokens, units: Iterable[TokenMatch]) -> tuple[float, ...]:
    """The numbers written right before a unit: "16GB", "24 GB", "250W" (not "1.5GB")."""
    words, seps = tokens.words, tokens.seps
    found = []
    for m in units:
        at = m.start - 1
        if at >= 0 and seps[m.start] in _UNIT_SEPS:
            number = words[at]
            if number.isdigit() and len(number) <= 3 and "." not in seps[at]:
                found.append(float(number))
    return tuple(found)


def _form(
    tokens: Tokens,
    by_kind: dict[str, list[TokenMatch]],
    negators: frozenset[str],
    bracket_words: frozenset[str],
) -> str | None:
    """The form factor the title states; SXM wins over PCIe ("SXM2 module on PCIe adapter")."""
    words = tokens.words
    stated = by_kind.get("form", [])
    if len(stated) == 1 and "accessory.weak" not in by_kind:
        m = stated[0]
        return None if m.start and words[m.start - 1] in negators else m.value
    forms = [m.value for m in stated if not (m.start and words[m.start - 1] in negators)]
    brackets = [m for m in by_kind.get("accessory.weak", ()) if m.value in bracket_words]
    forms += ["PCIe" for m in brackets if not (m.start and words[m.start - 1] in negators)]
    sxm = [f for f in forms if f.startswith("SXM")]
    if sxm:
        return sxm[0]
    return "PCIe" if forms else None


def _specific_vram(specifics: Mapping[str, str]) -> tuple[float, ...]:
    digits = "".join(c for c in specific(specifics, "gpu_memory") or "" if c.isdigit())
    return (float(digits),) if digits and len(digits) <= 3 else ()
