"""Compile the catalog and its phrase files (aliases.toml, vocabulary.toml) for the normalizer.

Everything a title is matched against ends up in one PhraseIndex, so a title is scanned
once; SKUs are grouped by model family for the final dict lookups.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ranking.catalog import CATALOG_DIR
from ranking.normalize_tokens import PhraseIndex, compact
from rigscout.errors import NormalizeError
from rigscout.models import Category

if TYPE_CHECKING:
    from ranking.catalog import Catalog, Sku

FORMS = {
    "pcie": "PCIe", "pci e": "PCIe", "pci express": "PCIe", "pci": "PCIe", "pcle": "PCIe",
    "sxm": "SXM", "smx": "SXM", "sxm2": "SXM2", "smx2": "SXM2", "sxm 2": "SXM2", "sxm3": "SXM3",
    "smx3": "SXM3", "sxm4": "SXM4", "smx4": "SXM4", "sxm 4": "SXM4", "sxm5": "SXM5", "nvlink sxm2": "SXM2",
    "fhfl": "PCIe", "full height": "PCIe",
}  # fmt: skip
UNITS = ("gb", "g", "gig", "gigs", "gbs", "gib", "gbyte")
_VOCAB_KINDS = (
    ("accessory", "strong"), ("accessory", "weak"), ("for_parts", "phrases"), ("other", "phrases"),
    ("barebones", "phrases"), ("server_words", "phrases"), ("board_words", "phrases"),
)  # fmt: skip
_WORD_SETS = (
    ("accessory", "descriptors"), ("accessory", "negators"), ("accessory", "trailing_negators"),
    ("accessory", "heads"), ("for_parts", "negators"), ("other", "negators"),
    ("other", "trailing_negators"), ("compat", "phrases"),
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

    @property
    def vrams(self) -> frozenset[float]:
        return frozenset(s.vram_gb for s in self.skus if s.vram_gb) | self.other_vram

    @property
    def forms(self) -> frozenset[str]:
        return frozenset(s.form_factor for s in self.skus if s.form_factor)


@dataclass(frozen=True, slots=True)
class Vocabulary:
    """The compiled matching data: one phrase index, families, part numbers and word sets."""

    index: PhraseIndex
    families: Mapping[str, Family]
    parts: Mapping[str, str]
    words: Mapping[str, frozenset[str]] = field(default_factory=dict)


def load_vocabulary(catalog: Catalog, directory: Path = CATALOG_DIR) -> Vocabulary:
    """Build the matching data for ``catalog`` from the phrase files in ``directory``."""
    aliases = _read_toml(directory / "aliases.toml")
    vocabulary = _read_toml(directory / "vocabulary.toml")
    families = _families(catalog, aliases)
    boundaries = _table(aliases, "boundaries")
    index = PhraseIndex(
        left_ok=frozenset(boundaries.get("left", ())), right_ok=frozenset(boundaries.get("right", ()))
    )
    for phrase, form in FORMS.items():
        index.add(phrase, "form", form)
    for unit in UNITS:
        index.add(unit, "unit", unit)
    for table, key in _VOCAB_KINDS:
        kind = f"{table}.{key}" if table == "accessory" else table
        for phrase in _strings(vocabulary, table, key):
            index.add(phrase, kind, compact(phrase))
    for kind, phrases in _table(aliases, "not_carried").items():
        for phrase in phrases:
            index.add(phrase, "not_carried", kind, bounded=True)
    for name, phrases in _table(aliases, "families").items():
        if name not in families:
            raise NormalizeError(f"aliases.toml: family {name!r} has no SKU in the catalog")
        for phrase in phrases:
            index.add(phrase, "family", name, bounded=True)
    parts = {key.upper(): _known(catalog, sku, key) for key, sku in _table(aliases, "parts").items()}
    words = {
        f"{table}.{key}": frozenset(_split_words(_strings(vocabulary, table, key)))
        for table, key in _WORD_SETS
    }
    return Vocabulary(index=index, families=families, parts=parts, words=words)


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
        families[name] = Family(
            name=name,
            category=skus[0].category,
            skus=tuple(skus),
            default_vram=default.get("vram"),
            default_form=default.get("form"),
            other_vram=frozenset(float(v) for v in other.get("vram", ())),
            other_forms=frozenset(other.get("form", ())),
        )
    return families


def _known(catalog: Catalog, sku: str, key: str) -> str:
    if sku not in catalog:
        raise NormalizeError(f"aliases.toml: part {key!r} names unknown SKU {sku!r}")
    return sku


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise NormalizeError(f"{path}: cannot read phrase file: {exc}") from exc


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
    return [compact(word) for phrase in phrases for word in phrase.split()]
