"""Decide whether a title sells a part (heatsink, shroud, PSU, bracket) instead of the hardware.

Part words are also how sellers describe what comes with a card or a server ("w/ 3D printed
blower shroud", "1600W PSU", "includes 4x SXM2 heatsinks"); those do not make an accessory.
Word lists live in ranking/catalog/vocabulary.toml ([accessory]).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from ranking.titles.features import Features
    from ranking.titles.tokens import TokenMatch

_FAN_WORDS = frozenset({"fan", "fans", "cooler"})
_REACH = 4  # how far back a negator ("with", "w/", "includes") still covers a part word


def sells_a_part(
    f: Features,
    subject: int,
    words: Mapping[str, frozenset[str]],
    absent: Callable[[], frozenset[int]] = frozenset,
    *,
    host: bool = False,
) -> bool:
    """A strong part word, or a weak one used as the head, that nothing marks as included
    or as missing.

    ``subject`` is the token index of the first model named for itself (the title's length
    when there is none); ``absent`` gives the token indices of parts the title says are
    missing (``ranking.titles.facts``: "heatsinks sold separately", "ohne Kühlkörper"), asked
    only for a part word nothing else marks as included. ``host``: that model is a server or
    a board, whose spec line lists the GPUs it comes with before their parts ("T181-G20 inkl.
    4x Tesla V100 SXM2 16GB Kühlkörper").
    """
    found = f.of("accessory.strong") + f.of("accessory.weak")
    if not found:
        return False
    heads = words["accessory.heads"]
    many_models = (
        len({m.value for m in f.of("family")} | {m.value for m in f.of("not_carried")}) >= 3
    )
    covered = -2  # end of the last part word that was negated
    for m in sorted(found, key=lambda m: m.start):
        # "w/ 3D printed blower shroud": one negator covers the run of part words after it
        if (
            m.start - covered <= 1
            or _negated(f, m, subject, words, host=host)
            or m.start in absent()
        ):
            covered = m.end
            continue
        if m.kind == "accessory.strong" or m.start < subject or many_models:
            return True
        if any(w in heads for w in f.tokens.words[m.end : m.end + 2]):
            return True
    return False


def _negated(
    f: Features,
    m: TokenMatch,
    subject: int,
    words: Mapping[str, frozenset[str]],
    *,
    host: bool = False,
) -> bool:
    tokens, seps = f.tokens.words, f.tokens.seps
    start = max(0, m.start - _REACH)
    before = tokens[start : m.start]
    if m.value in _FAN_WORDS and before and before[-1] in words["accessory.descriptors"]:
        return True
    negators = words["accessory.negators"]
    if any(
        _negator(tokens, seps, k, negators) and not _sized_between(f, k, m.start)
        for k in range(start, m.start)
    ):
        return True
    if _joined(f, m) or (m.start > subject and _added(f, subject, m)):
        return True
    if m.start > subject and _bundled(f, m, subject, negators, host=host):
        return True
    if m.end < len(tokens) and tokens[m.end] in words["accessory.trailing_negators"]:
        return True
    psu = m.value in words["included.psu"]
    return m.start > subject and (
        _counted(f, m, psu)
        or (psu and _psu_in_spec_line(f, m, subject))
        or (psu and _qualified(f, m, words["accessory.psu_qualifiers"]))
    )


def _qualified(f: Features, m: TokenMatch, qualifiers: frozenset[str]) -> bool:
    """A power supply said to be dual, double or redundant (within three words before it:
    "dual 2000W PSU"; or right after it: "PSU redundant", "alimentation redondante")."""
    tokens = f.tokens.words
    before = tokens[max(0, m.start - 3) : m.start]
    return not qualifiers.isdisjoint(before) or (
        m.end < len(tokens) and tokens[m.end] in qualifiers
    )


def _negator(
    tokens: tuple[str, ...], seps: tuple[str, ...], k: int, negators: frozenset[str]
) -> bool:
    """A negator standing as a word: the "W" of "2000W" and the "E" of "PCI-E" are glued to the
    word before them and belong to it."""
    return tokens[k] in negators and not (k > 0 and seps[k] in ("", "-"))


def _bundled(
    f: Features, m: TokenMatch, subject: int, negators: frozenset[str], *, host: bool = False
) -> bool:
    """ "RTX 3090 XTREME AND GIGABYTE GP-P850GM 850W ATX PSU": a link after the card ("and",
    "with", "und", "y") adds a part sold with it, however many words describe the part (its
    brand, part number, watts).

    Not when a memory size or another model stands between the link and the part
    (``_sized_between``: "V100 16GB and 32GB heatsink"), but after a ``host``, whose GPUs and
    their sizes come before their parts.
    """
    tokens, seps = f.tokens.words, f.tokens.seps
    links = [k for k in range(subject + 1, m.start) if _negator(tokens, seps, k, negators)]
    if not links:
        return False
    return host or not _sized_between(f, links[-1], m.start)


def _sized_between(f: Features, link: int, part: int) -> bool:
    """Whether a memory size or a model stands between a link and a part: in "V100 16GB and
    32GB heatsink" the link joins two cards the part fits. A size is a number and its unit
    ("32GB"); the "G" of a model name ("G3") is none."""
    tokens = f.tokens.words
    sizes = [u.start - 1 for u in f.of("unit") if u.start > 0 and tokens[u.start - 1].isdigit()]
    models = [x.start for kind in ("family", "not_carried") for x in f.of(kind)]
    return any(link < at < part for at in (*sizes, *models))


def _joined(f: Features, m: TokenMatch) -> bool:
    """ "V100 + heatsink", "card & shroud": the part rides along with the hardware (not when a
    size follows the "+" or "&": "V100 SXM2 16GB & 32GB heatsink" fits both)."""
    tokens, seps = f.tokens.words, f.tokens.seps
    lo = max(0, m.start - 2)
    around = [
        sep
        for k, sep in enumerate(seps[lo : m.start + 1], start=lo)
        # "80+ Platinum PSU": a plus stuck to a number is a rating, not "and"
        if not (sep.startswith("+") and k > 0 and tokens[k - 1].isdigit())
        and not _sized_between(f, k - 1, m.start)
    ] + list(seps[m.end : m.end + 1])
    return any(c in sep for sep in around for c in "+&")


def _added(f: Features, subject: int, m: TokenMatch) -> bool:
    """ "T181-G20 w/ 4x V100 16GB SXM2 + OCP 12V power shelf": added to the model named first
    (not when a size or a model follows the "+" or "&": "V100 16GB & 32GB heatsink")."""
    tokens, seps = f.tokens.words, f.tokens.seps
    return any(
        (("+" in sep and not (sep.startswith("+") and tokens[k - 1].isdigit())) or "&" in sep)
        and not _sized_between(f, k - 1, m.start)
        for k, sep in enumerate(seps[subject + 1 : m.start + 1], start=subject + 1)
    )


def _counted(f: Features, m: TokenMatch, psu: bool) -> bool:
    """ "4x PSU", "2x 1600W 80+ PSU", "4x SXM2 heatsinks" after the model: a spec line."""
    tokens, seps = f.tokens.words, f.tokens.seps
    # power supplies come with their wattage in between: "2x 1600W 80+ PSU"
    reach = 6 if psu else 3
    return any(
        tokens[k] == "x"
        and tokens[k - 1].isdigit()
        and seps[k] == ""
        and seps[k - 1] != ""
        and not _dimension(tokens, k)
        for k in range(max(1, m.start - reach), m.start)
    )


def _dimension(tokens: tuple[str, ...], x: int) -> bool:
    """ "8x10 photo" is a print size; "2x 1600W PSU" is a count of 1600 W supplies."""
    after = tokens[x + 1 : x + 3]
    return bool(after) and after[0].isdigit() and after[1:] not in (("w",), ("watt",))


def _psu_in_spec_line(f: Features, m: TokenMatch, subject: int) -> bool:
    """ "ESC4000 G3 GPU Server 2x E5-2650 v3 64GB 1600W PSU": a server listing its parts.

    A power supply sold alone names no memory size between the model and itself.
    """
    if not f.of("watt"):
        return False
    server_word = any(s.start < m.start for s in f.of("server_words"))
    memory = any(subject < u.start < m.start for u in f.of("unit"))
    return server_word and memory
