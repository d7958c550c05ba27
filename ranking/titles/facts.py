"""What a title states about the thing sold, read once by one reader for every stage.

Two kinds of fact, both from ``ranking/catalog/vocabulary.toml``:

- **faults** (``[faults]``): "broken", "für Teile", "no video", "untested"… each phrase raises
  the risk signal it is listed under, unless a negator stands right before it ("not broken",
  "nicht defekt", "no artifacts") or right after it ("no display issues");
- **parts included or missing** (``[included]``): a part named plainly comes with the listing
  ("with heatsinks", "2x PSU"); named after "no", "W/O", "ohne", "sans", "sin"… (a few filler
  words may stand between: "no GPU heatsinks") or before "not included", "sold separately",
  "nicht enthalten"…, it is missing.

The normalizer (kind), the risk signals (flags), the server configuration and the rig
planner's bill of materials all ask this module, so they cannot disagree about a title. Pure:
a title or its tokens in, frozen records out; the phrase file is compiled once.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from core.errors import NormalizeError
from ranking.catalog import CATALOG_DIR
from ranking.titles.tokens import PhraseIndex, TokenMatch, Tokens, tokenize

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path

YES, NO, UNKNOWN = "yes", "no", "unknown"
FAULT, PART = "fault", "included"
_REACH = 3  # tokens a part's absence phrase may sit from the part ("no SXM2 GPU heatsinks")


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault the title states: its group and where it starts (character offset in the
    title's folded text, to order it among other wording)."""

    code: str
    offset: int


@dataclass(frozen=True, slots=True)
class TitleFacts:
    """Everything ``read_title`` found: the faults in title order, and each named part as
    ``"yes"`` (comes with it) or ``"no"`` (said to be missing). A part not named is absent
    from ``parts``; ``part`` answers ``"unknown"`` for it."""

    faults: tuple[Fault, ...]
    parts: Mapping[str, str]
    broken_faults: frozenset[str] = frozenset()  # the fault groups that make a broken part
    part_offsets: Mapping[str, int] = field(default_factory=dict)  # where each part is named
    absent_tokens: frozenset[int] = frozenset()  # token indices of the parts said missing

    def broken(self, *, headless: bool = False) -> bool:
        """The title says the thing is broken. ``headless``: a card without display outputs,
        on which "no video" is how it is made (``no_picture`` is no fault there) and "no
        signal" is a thing to verify (``no_signal``), not a broken part."""
        return bool(self.broken_faults - _HEADLESS_NOT_BROKEN if headless else self.broken_faults)

    def faults_for(self, *, headless: bool = False) -> tuple[Fault, ...]:
        """The faults, less ``no_picture`` on a ``headless`` card."""
        if not headless:
            return self.faults
        return tuple(f for f in self.faults if f.code not in _HEADLESS_OK)

    def part(self, name: str) -> str:
        return self.parts.get(name, UNKNOWN)


_HEADLESS_OK = frozenset({"no_picture"})
_HEADLESS_NOT_BROKEN = _HEADLESS_OK | {"no_signal"}


def signal_of(code: str, *, headless: bool = False) -> str:
    """The risk signal a fault group raises: ``no_picture`` is one of ``no_display``'s, and so
    is ``no_signal`` but on a headless card, where it is ``verify_fault``."""
    if code == "no_signal":
        return "verify_fault" if headless else "no_display"
    return "no_display" if code == "no_picture" else code


@dataclass(frozen=True, slots=True)
class FactReader:
    """The compiled ``[faults]`` and ``[included]`` tables: one phrase index and the word
    lists that negate a fault or make a part missing."""

    index: PhraseIndex
    broken: frozenset[str]
    negators: tuple[tuple[str, ...], ...]
    trailing: frozenset[str]
    absent_before: tuple[tuple[str, ...], ...]
    absent_after: tuple[tuple[str, ...], ...]
    gap: frozenset[str]
    before_only: frozenset[str] = frozenset()  # parts said missing only by a word before them
    joins: frozenset[str] = frozenset()  # words that carry a part's absence to the next part
    present_after: tuple[tuple[str, ...], ...] = ()  # after a list of parts: they come with it
    bare: frozenset[tuple[str, ...]] = frozenset()  # the module alone: its heatsink is missing

    def read(self, title: str) -> TitleFacts:
        """The facts ``title`` states."""
        return self.read_tokens(tokenize(title))

    def read_tokens(self, tokens: Tokens) -> TitleFacts:
        """As ``read``, for a title already tokenized (the normalizer's tokens)."""
        words = tokens.words
        matches = self.index.scan(tokens)
        if not matches:
            return _NOTHING
        offsets = _offsets(tokens)
        faults: list[Fault] = []
        parts: dict[str, str] = {}
        part_offsets: dict[str, int] = {}
        absent: set[int] = set()
        named = [m for m in matches if m.kind == PART]
        said = {m.start for m in named if self._absent(words, m)}  # missing by their own words
        missing = said | self._carried(words, named, said)
        for m in matches:
            if m.kind == FAULT:
                if not self._negated(words, m):
                    faults.append(Fault(m.value, offsets[m.start]))
            elif m.kind == PART:
                bare = words[m.start : m.end] in self.bare
                state = NO if bare or m.start in missing else YES
                if state == NO:
                    absent.update(range(m.start, m.end))
                if parts.get(m.value) != NO:  # "no heatsink … heatsink pictured": missing
                    parts[m.value] = state
                    part_offsets[m.value] = offsets[m.start]
        broken = frozenset(f.code for f in faults) & self.broken
        return TitleFacts(tuple(faults), parts, broken, part_offsets, frozenset(absent))

    def _carried(self, words: tuple[str, ...], parts: list[TokenMatch], said: set[int]) -> set[int]:
        """Where the parts start that a list carries an absence to: "no CPU or RAM", "sin CPU
        ni RAM", "no CPU/RAM", "no HDD, CPU, RAM" (parts joined by ``joins`` words or bare
        separators, after one said missing: ``said``, where they start); not when the list
        ends with the parts said included ("no HDD, CPU and RAM included")."""
        carried: set[int] = set()
        run: list[TokenMatch] = []
        for m in [*parts, None]:
            if m is not None and run and self.joins.issuperset(words[run[-1].end : m.start]):
                run.append(m)
                continue
            if len(run) > 1 and not _starts_at(words, run[-1].end, self.present_after):
                missing = next((k for k, p in enumerate(run) if p.start in said), None)
                if missing is not None:
                    carried.update(p.start for p in run[missing + 1 :])
            run = [m] if m is not None else []
        return carried

    def _negated(self, words: tuple[str, ...], m: TokenMatch) -> bool:
        if m.end < len(words) and words[m.end] in self.trailing:
            return True
        return _ends_at(words, m.start, self.negators)

    def _absent(self, words: tuple[str, ...], m: TokenMatch) -> bool:
        if m.value not in self.before_only and _starts_at(words, m.end, self.absent_after):
            return True
        # "no heatsink", "without the GPU heatsinks", "W/O 2x PSU": the absence word, then
        # at most _REACH filler words, then the part
        at = m.start
        for _ in range(_REACH + 1):
            if _ends_at(words, at, self.absent_before):
                return True
            if at == 0 or words[at - 1] not in self.gap:
                return False
            at -= 1
        return False


_NOTHING = TitleFacts((), {})


def _offsets(tokens: Tokens) -> list[int]:
    """Each token's character offset in the folded title."""
    found, at = [], 0
    for sep, word in zip(tokens.seps, tokens.words, strict=True):
        at += len(sep)
        found.append(at)
        at += len(word)
    return found


def _ends_at(words: tuple[str, ...], at: int, phrases: Iterable[tuple[str, ...]]) -> bool:
    """Some phrase's tokens stand right before index ``at``."""
    return any(len(p) <= at and words[at - len(p) : at] == p for p in phrases)


def _starts_at(words: tuple[str, ...], at: int, phrases: Iterable[tuple[str, ...]]) -> bool:
    return any(words[at : at + len(p)] == p for p in phrases)


def add_fault_phrases(index: PhraseIndex, vocabulary: Mapping[str, Any]) -> None:
    """Put every fault phrase of ``vocabulary`` (vocabulary.toml, parsed) into ``index`` as a
    match of kind ``"fault"`` (value: its group). The normalizer's index holds them so that a
    title naming a fault never takes its one-plain-card shortcut; what they mean is then
    decided here, by ``FactReader.read_tokens`` on the reader's own scan."""
    for group, phrases in _fault_groups(vocabulary).items():
        for phrase in phrases:
            index.add(phrase, FAULT, group)


def build_reader(vocabulary: Mapping[str, Any]) -> FactReader:
    """The reader of a parsed vocabulary.toml (a ``NormalizeError`` names a bad entry)."""
    index = PhraseIndex()
    add_fault_phrases(index, vocabulary)
    for part, phrases in _part_groups(vocabulary).items():
        for phrase in phrases:
            index.add(phrase, PART, part)
    faults = _section(vocabulary, "faults")
    included = _section(vocabulary, "included")
    for phrase in _strings(included, "bare"):
        index.add(phrase, PART, "heatsink")
    broken = frozenset(_strings(faults, "broken"))
    unknown = broken - _fault_groups(vocabulary).keys()
    if unknown:
        raise NormalizeError(f"vocabulary.toml: [faults] broken names no group: {sorted(unknown)}")
    return FactReader(
        index=index,
        broken=broken,
        negators=_token_phrases(_strings(faults, "negators")),
        trailing=frozenset(_strings(faults, "trailing_negators")),
        absent_before=_token_phrases(_strings(included, "absent_before")),
        absent_after=_token_phrases(_strings(included, "absent_after")),
        gap=frozenset(_strings(included, "absent_gap")),
        before_only=frozenset(_strings(included, "before_only")),
        joins=frozenset(_strings(included, "absent_joins")),
        present_after=_token_phrases(_strings(included, "present_after")),
        bare=frozenset(_token_phrases(_strings(included, "bare"))),
    )


@cache
def load_reader(directory: Path = CATALOG_DIR) -> FactReader:
    """The reader of the packaged vocabulary (compiled once per process)."""
    return build_reader(read_vocabulary(directory))


def read_title(title: str) -> TitleFacts:
    """``load_reader().read(title)``: what the title states, with the packaged vocabulary."""
    return load_reader().read(title)


@lru_cache(maxsize=1024)  # eBay's conditions are a handful of strings per marketplace
def condition_broken(condition: str) -> bool:
    """eBay's condition of a listing says it is broken, read with the titles' fault words in
    every language: "For parts or not working", "Als Ersatzteil / defekt", "Pour pièces
    détachées ou ne fonctionne pas", "Para desguace o no funciona"."""
    return read_title(condition).broken()


@cache
def read_vocabulary(directory: Path = CATALOG_DIR) -> Mapping[str, Any]:
    """``vocabulary.toml`` of ``directory``, parsed once (the normalizer reads it too)."""
    return read_phrase_file(directory / "vocabulary.toml")


def read_phrase_file(path: Path) -> dict[str, Any]:
    """A phrase file of the catalog, parsed (a ``NormalizeError`` when unreadable)."""
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise NormalizeError(f"{path}: cannot read phrase file: {exc}") from exc


_FAULT_KEYS = ("broken", "negators", "trailing_negators")
_PART_KEYS = (
    "absent_before",
    "absent_after",
    "absent_gap",
    "absent_joins",
    "present_after",
    "before_only",
    "bare",
)


def _fault_groups(vocabulary: Mapping[str, Any]) -> dict[str, list[str]]:
    faults = _section(vocabulary, "faults")
    return {k: _strings(faults, k) for k in faults if k not in _FAULT_KEYS}


def _part_groups(vocabulary: Mapping[str, Any]) -> dict[str, list[str]]:
    included = _section(vocabulary, "included")
    return {k: _strings(included, k) for k in included if k not in _PART_KEYS}


def _section(vocabulary: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    table = vocabulary.get(name, {})
    if not isinstance(table, dict):
        raise NormalizeError(f"vocabulary.toml: [{name}] must be a table")
    return table


def _strings(table: Mapping[str, Any], key: str) -> list[str]:
    values = table.get(key, [])
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise NormalizeError(f"vocabulary.toml: {key} must be a list of strings")
    return values


def _token_phrases(phrases: Iterable[str]) -> tuple[tuple[str, ...], ...]:
    """Each phrase as the tokens a title's tokenizer makes of it ("w/o" -> ("w", "o"))."""
    found = {tuple(tokenize(p).words) for p in phrases}
    return tuple(sorted((p for p in found if p), key=len, reverse=True))
