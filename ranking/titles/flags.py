"""Risk signals: title wording and listing facts a buyer checks before trusting a price.

Which signals exist, their severity (SEVERITIES), their score penalty and the title
phrases that raise them are data, in ``ranking/titles/flags.toml``; this module only matches them.
Titles are matched word by word through an index keyed by each phrase's rarest word, so a
title costs a tokenization and a set test (a combined regular expression of the same
phrases was six times slower: 19 µs a title). Pure: rows in, ``Flag`` tuples out.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

from core.errors import ConfigError
from core.models import EXCLUDE, SEVERITIES, Flag
from core.text import match_form
from ranking.catalog import CATALOG_DIR
from ranking.rows import TitleReading
from ranking.titles.facts import NO, read_title, signal_of
from ranking.titles.origin import DOMESTIC, OVERSEAS, ship_origin

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from decimal import Decimal

    from ranking.rows import ActiveRow

_WORDS = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|\*")
_PHRASE_WORDS = re.compile(r"[a-z0-9]+(?:'[a-z]+)?\*?|\*")  # "desc*": a prefix
RECENT_TITLES = 1024  # titles whose readings ``Signals.read`` keeps


@dataclass(frozen=True, slots=True)
class Phrase:
    """Consecutive title words; a word ending in ``*`` matches any word it begins.

    ``anchor`` is the position of the phrase's rarest exact word (its longest; "parts" in
    "for parts"), the one titles are indexed by, or -1 when every word is a prefix. ``parts``
    holds each word as (text without ``*``, is a prefix).
    """

    words: tuple[str, ...]
    code: str
    anchor: int
    parts: tuple[tuple[str, bool], ...] = ()

    def start_if_matched(self, words: Sequence[str], anchor_at: int) -> int | None:
        """Where the phrase starts when its anchor word stands at ``anchor_at``, if it matches."""
        start = anchor_at - self.anchor if self.anchor > 0 else anchor_at
        if start < 0 or start + len(self.parts) > len(words):
            return None
        for k, (text, prefix) in enumerate(self.parts):
            word = words[start + k]
            if not (word.startswith(text) if prefix else word == text):
                return None
        return start


def _phrase(words: tuple[str, ...], code: str) -> Phrase:
    parts = tuple((w[:-1], True) if len(w) > 1 and w.endswith("*") else (w, False) for w in words)
    exact = [i for i, (_, prefix) in enumerate(parts) if not prefix]
    anchor = max(exact, key=lambda i: len(words[i]), default=-1)
    return Phrase(words, code, anchor, parts)


@dataclass(frozen=True, slots=True)
class Signal:
    code: str
    label: str
    severity: str  # SEVERITIES
    penalty: float
    why: str


@dataclass(frozen=True, slots=True)
class Signals:
    """Every signal by code and the title matcher."""

    by_code: Mapping[str, Signal]
    by_family: Mapping[str, str]  # catalog model family -> signal code
    by_anchor: Mapping[str, tuple[Phrase, ...]]
    prefix_only: tuple[Phrase, ...]  # phrases of prefix words only ("artifact*")
    plain: Mapping[str, Flag]  # each signal's flag with its own label, one instance per code
    # Card families current software has left behind, with the flag's wording
    # (``catalog/support.toml``): "CUDA ≤ 12 — Pascal: CUDA 12.x at most (…), driver R580".
    support: Mapping[str, str] = field(default_factory=dict)
    # The last titles' readings: pricing a listing asks for its codes twice in a row (is it
    # an asking price, and its flags); cleared when full, so a pass over a store keeps few.
    _recent: dict[str, TitleReading] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def codes_for(self, title: str, *, headless: bool = False) -> list[str]:
        """The codes of the signals the title raises, in order of appearance: this file's
        wording signals, and what ``ranking.titles.facts`` reads (faults, a missing heatsink);
        on a ``headless`` card (the catalog's ``display_outputs = no``), "no video" is no
        fault."""
        return list(self.read(title).codes(headless=headless))

    def read(self, title: str) -> TitleReading:
        """What the title says, as the flags and the planner read it (``TitleReading``)."""
        reading = self._recent.get(title)
        if reading is None:
            if len(self._recent) >= RECENT_TITLES:
                self._recent.clear()
            reading = self._recent[title] = self._reading(title)
        return reading

    def reading_of(self, row: ActiveRow) -> TitleReading:
        """The listing's ``TitleReading``: kept with its priced row (``ActiveRow.reading``), or
        read from its title."""
        return row.reading if row.reading is not None else self.read(row.title)

    def keeps_out(self, reading: TitleReading) -> bool:
        """Whether the title raises a signal that keeps a listing out of every reference
        (headless: "no video" is no fault here; a card's real faults still are)."""
        return any(self.plain[code].severity == EXCLUDE for code in reading.headless)

    def _reading(self, title: str) -> TitleReading:
        wording = self._positions(title)
        facts = read_title(title)
        both = []
        for headless in (False, True):
            found = dict(wording)
            for fault in facts.faults_for(headless=headless):
                code = signal_of(fault.code, headless=headless)
                if code in self.by_code:
                    found.setdefault(code, fault.offset)
            if facts.part("heatsink") == NO:
                found.setdefault("no_heatsink", facts.part_offsets["heatsink"])
            both.append(tuple(sorted(found, key=found.__getitem__)) if found else ())
        return TitleReading(both[0], both[1], facts.part("heatsink"))

    def _positions(self, title: str) -> dict[str, int]:
        """Each wording signal the title raises, with the character offset it starts at."""
        lowered = match_form(title).casefold().replace("\u2019", "'")
        spans = [(m.group(), m.start()) for m in _WORDS.finditer(lowered)]
        words = [w for w, _ in spans]
        found: dict[str, int] = {}
        if not self.by_anchor.keys().isdisjoint(words):  # most titles: no anchor, no phrase
            for at, word in enumerate(words):
                for phrase in self.by_anchor.get(word, ()):
                    self._note(found, phrase, phrase.start_if_matched(words, at))
        for phrase in self.prefix_only:
            if phrase.words[0][:-1] not in lowered:
                continue
            for at in range(len(words)):
                self._note(found, phrase, phrase.start_if_matched(words, at))
        return {code: spans[start][1] for code, start in found.items()}

    @staticmethod
    def _note(found: dict[str, int], phrase: Phrase, start: int | None) -> None:
        if start is not None and start < found.get(phrase.code, len(phrase.words) + 10**6):
            found[phrase.code] = start

    def flag(self, code: str, label: str | None = None) -> Flag:
        signal = self.by_code[code]
        return Flag(code, label or signal.label, signal.severity)

    def penalty(self, flags: Sequence[Flag]) -> float:
        """Score points lost to the warnings among ``flags``."""
        total = 0.0
        for f in flags:
            if f.severity != EXCLUDE:
                total += self.by_code[f.code].penalty
        return total


@cache
def flags_file() -> dict[str, Any]:
    """``ranking/titles/flags.toml``, parsed once: the signals, and the ``[scam]`` and
    ``[topology_claim]`` tables ``ranking.market.scam`` and ``ranking.topology`` read."""
    text = resources.files("ranking.titles").joinpath("flags.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


@cache
def load_signals() -> Signals:
    """The signals shipped in ``ranking/titles/flags.toml`` (read once)."""
    return parse_signals(flags_file(), load_support())


def load_support() -> dict[str, str]:
    """Each left-behind card family with its flag's wording, from ``catalog/support.toml``."""
    text = (CATALOG_DIR / "support.toml").read_text(encoding="utf-8")
    return {
        family: f"{arch['tag']} — {arch['detail']}"
        for arch in tomllib.loads(text).values()
        for family in arch["families"]
    }


def parse_signals(raw: Mapping[str, Any], support: Mapping[str, str] | None = None) -> Signals:
    """Signals from the parsed TOML; a ConfigError names the first bad entry."""
    signals: dict[str, Signal] = {}
    by_anchor: dict[str, list[Phrase]] = {}
    prefix_only: list[Phrase] = []
    by_family: dict[str, str] = {}
    for code, spec in raw.get("signal", {}).items():
        severity = spec.get("severity")
        if severity not in SEVERITIES:
            raise ConfigError(
                f"flags.toml: signal {code}: severity must be {', '.join(SEVERITIES)}"
            )
        signals[code] = Signal(
            code, spec["label"], severity, float(spec.get("penalty", 0)), spec.get("why", "")
        )
        by_family.update(dict.fromkeys(spec.get("families", []), code))
        for text in spec.get("phrases", []):
            words = tuple(_PHRASE_WORDS.findall(text.casefold()))
            if not words or " ".join(words) != " ".join(text.casefold().split()):
                raise ConfigError(f"flags.toml: signal {code}: phrase {text!r} is not plain words")
            phrase = _phrase(words, code)
            if phrase.anchor < 0:
                prefix_only.append(phrase)
            else:
                by_anchor.setdefault(words[phrase.anchor], []).append(phrase)
    index = {word: tuple(phrases) for word, phrases in by_anchor.items()}
    plain = {code: Flag(code, sig.label, sig.severity) for code, sig in signals.items()}
    return Signals(
        signals,
        by_family,
        index,
        tuple(prefix_only),
        plain,
        support=dict(support or {}),
    )


def short_label(flag: Flag) -> str:
    """A flag as a badge or table note: the software-support tag before its dash ("CUDA ≤ 12"),
    else the code in words ("ships from abroad")."""
    if flag.code == "software_support":
        return flag.label.split(" — ")[0]
    return flag.code.replace("_", " ")


def flag_listing(
    row: ActiveRow,
    signals: Signals,
    *,
    family: str = "",
    headless: bool = False,
    cpu_heatsinks: bool = False,
    min_seller_feedback: int,
    min_seller_positive_pct: Decimal,
) -> tuple[Flag, ...]:
    """The title's signals, the model's, then the seller's and the location's, each once.
    ``cpu_heatsinks``: the listing is a PCIe server, whose heatsinks are CPU coolers (a part
    of its bill of materials), not GPU heatsinks: "no heatsinks" raises no flag there."""
    plain = signals.plain
    codes = signals.reading_of(row).codes(headless=headless)
    flags = [plain[code] for code in codes if not (cpu_heatsinks and code == "no_heatsink")]
    family_code = signals.by_family.get(family) if family else None
    if family_code is not None and all(f.code != family_code for f in flags):
        flags.append(plain[family_code])
    if family in signals.support:
        flags.append(signals.flag("software_support", signals.support[family]))
    feedback = row.seller_feedback
    if feedback is not None and feedback <= 0:
        flags.append(plain["seller_no_feedback"])
    elif feedback is not None and feedback < min_seller_feedback:
        flags.append(signals.flag("seller_low_feedback", f"seller has only {feedback} feedback"))
    pct = row.seller_positive_pct
    if min_seller_positive_pct > 0 and (pct is None or pct < min_seller_positive_pct):
        label = f"seller's positive feedback is {pct or 'unknown'}%"
        flags.append(signals.flag("seller_low_positive", label))
    origin = ship_origin(row.marketplace, row.location)
    if origin != DOMESTIC:
        label = f"ships from {row.location}"
        if origin == OVERSEAS:
            label += " (overseas: customs or import duty may apply)"
        flags.append(signals.flag("ships_from_abroad", label))
    return tuple(flags)
