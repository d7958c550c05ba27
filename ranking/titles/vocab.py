"""Compile the catalog and its phrase files (aliases.toml, vocabulary.toml) for the normalizer.

Everything a title is matched against ends up in one PhraseIndex, so a title is scanned
once; SKUs are grouped by model family for the final dict lookups.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from core.errors import NormalizeError
from ranking.catalog import CATALOG_DIR
from ranking.titles.facts import (
    FactReader,
    add_fault_phrases,
    load_reader,
    read_phrase_file,
    read_vocabulary,
)
from ranking.titles.tokens import PhraseIndex, compact

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from core.models import Category
    from ranking.catalog import Catalog, Sku

FORMS = {
    "pcie": "PCIe", "pci e": "PCIe", "pci express": "PCIe", "pci": "PCIe", "pcle": "PCIe",
    "sxm": "SXM", "smx": "SXM", "sxm2": "SXM2", "smx2": "SXM2", "sxm 2": "SXM2", "sxm3": "SXM3",
    "smx3": "SXM3", "sxm4": "SXM4", "smx4": "SXM4", "sxm 4": "SXM4", "sxm5": "SXM5",
    "nvlink sxm2": "SXM2", "fhfl": "PCIe", "full height": "PCIe",
}  # fmt: skip
UNITS = ("gb", "g", "gig", "gigs", "gbs", "gib", "gbyte", "go")  # "go": French gigaoctet
_VOCAB_KINDS = (
    ("accessory", "strong"), ("accessory", "weak"), ("other", "phrases"),
    ("barebones", "phrases"), ("server_words", "phrases"), ("board_words", "phrases"),
    ("other", "boxes"), ("accessory", "empty"), ("accessory", "packaging"), ("other", "systems"),
    ("other", "server_makers"), ("other", "oem_lines"),
)  # fmt: skip
_WORD_SETS = (
    ("accessory", "descriptors"), ("accessory", "negators"), ("accessory", "trailing_negators"),
    ("accessory", "heads"), ("accessory", "psu_qualifiers"), ("other", "negators"),
    ("other", "fillers"),
    ("other", "trailing_negators"), ("compat", "phrases"), ("server_words", "trailing_negators"),
    ("other", "system_links"), ("other", "card_words"), ("form", "negators"),
    ("form", "brackets"),
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Family:
    """One model family: its carried SKUs and what a title that says nothing more means."""

    name: str
    category: Category
    skus: tuple[Sku, ...]
    default_vram: float | None = None
    default_form: str | None = None
    other_vram: frozenset[float] = frozenset()
    other_forms: frozenset[str] = frozenset()
    vrams: frozenset[float] = frozenset()  # carried and other memory sizes
    forms: frozenset[str] = frozenset()  # carried form factors
    hinted: bool = False  # some member is told apart by a hint word ("ada", "v100s")

    @property
    def simple(self) -> bool:
        """One SKU and no look-alike variant: naming the family names the SKU."""
        return len(self.skus) == 1 and not (
            self.other_vram or self.other_forms or self.default_vram
        )


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """The compiled matching data: one phrase index, families, part numbers and word sets, and
    the reader of what a title states (faults, parts included or missing)."""

    index: PhraseIndex
    families: Mapping[str, Family]
    parts: Mapping[str, str]
    facts: FactReader
    words: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # tokens that let a bare model number ("3090") name a card (aliases.toml [number_context])
    number_context: frozenset[str] = frozenset()


def load_aliases(directory: Path = CATALOG_DIR) -> dict[str, Any]:
    """The packaged title spellings (aliases.toml) as plain data."""
    return read_phrase_file(directory / "aliases.toml")


def load_vocabulary(
    catalog: Catalog, directory: Path = CATALOG_DIR, aliases: Mapping[str, Any] | None = None
) -> Vocabulary:
    """Build the matching data for ``catalog`` from the phrase files in ``directory``.

    ``aliases`` replaces ``directory``'s aliases.toml (the user's catalog merges its own in).
    """
    aliases = load_aliases(directory) if aliases is None else aliases
    vocabulary = read_vocabulary(directory)
    families = _families(catalog, aliases)
    boundaries = _table(aliases, "boundaries")
    index = PhraseIndex(
        left_ok=frozenset(boundaries.get("left", ())),
        right_ok=frozenset(boundaries.get("right", ())),
    )
    for phrase, form in FORMS.items():
        index.add(phrase, "form", form)
    for unit in UNITS:
        index.add(unit, "unit", unit)
    for unit in ("w", "watt", "watts"):
        index.add(unit, "watt", unit)
    for table, key in _VOCAB_KINDS:
        kind = f"{table}.{key}" if table == "accessory" or key != "phrases" else table
        for phrase in _strings(vocabulary, table, key):
            index.add(phrase, kind, compact(phrase))
    add_fault_phrases(index, vocabulary)
    for kind, phrases in _table(aliases, "not_carried").items():
        for phrase in phrases:
            index.add(phrase, "not_carried", kind, bounded=True)
    # a smaller catalog than the packaged one simply leaves some families unmatched
    for name, phrases in _table(aliases, "families").items():
        if name not in families:
            continue
        for phrase in phrases:
            index.add(phrase, "family", name, bounded=True)
    parts = {
        k.upper(): _text(sku, k) for k, sku in _table(aliases, "parts").items() if sku in catalog
    }
    for key, sku in parts.items():
        index.add(key, "part", sku)
    words = {
        f"{table}.{key}": frozenset(_split_words(_strings(vocabulary, table, key)))
        for table, key in _WORD_SETS
    }
    # what a power supply's part word matches as, in every language ([included] psu)
    words["included.psu"] = frozenset(compact(p) for p in _strings(vocabulary, "included", "psu"))
    # what a main board's word matches as ("carte mere" -> "cartemere")
    words["board_words.motherboards"] = frozenset(
        compact(p) for p in _strings(vocabulary, "board_words", "motherboards")
    )
    context = _table(aliases, "number_context").get("words", [])
    return Vocabulary(
        index=index,
        families=families,
        parts=parts,
        facts=load_reader(directory),
        words=words,
        number_context=frozenset(compact(w) for w in context),
    )


def _families(catalog: Catalog, aliases: Mapping[str, Any]) -> dict[str, Family]:
    grouped: dict[str, list[Sku]] = {}
    for sku in catalog:
        if sku.family:
            grouped.setdefault(sku.family, []).append(sku)
    defaults = _table(aliases, "defaults")
    others = _table(aliases, "other_variants")
    families: dict[str, Family] = {}
    for name, skus in grouped.items():
        default = defaults.get(name, {})
        other = others.get(name, {})
        other_vram = frozenset(float(v) for v in other.get("vram", ()))
        families[name] = Family(
            name=name,
            category=skus[0].category,
            skus=tuple(skus),
            default_vram=default.get("vram"),
            default_form=default.get("form"),
            other_vram=other_vram,
            other_forms=frozenset(other.get("form", ())),
            vrams=frozenset(s.vram_gb for s in skus if s.vram_gb) | other_vram,
            forms=frozenset(s.form_factor for s in skus if s.form_factor),
            hinted=any(s.hints for s in skus),
        )
    return families


def _text(value: object, key: str) -> str:
    if not isinstance(value, str):
        raise NormalizeError(f"aliases.toml: part {key!r} must name a SKU id")
    return value


def _table(data: Mapping[str, Any], name: str) -> dict[str, Any]:
    table = data.get(name, {})
    if not isinstance(table, dict):
        raise NormalizeError(f"phrase file: [{name}] must be a table")
    return table


def _strings(data: Mapping[str, Any], table: str, key: str) -> list[str]:
    values = _table(data, table).get(key, [])
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise NormalizeError(f"vocabulary.toml: [{table}] {key} must be a list of strings")
    return values


def _split_words(phrases: list[str]) -> list[str]:
    """Word sets are checked one token at a time: "compatible with" stands as "compatible"."""
    return [compact(phrase.split()[0]) for phrase in phrases if phrase.split()]
