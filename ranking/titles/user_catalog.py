"""The user's own catalog: SKUs and title spellings kept in TOML files next to rigscout.toml.

``[catalog] extra = ["my-skus.toml"]`` in rigscout.toml names the files (relative to it). Each
``[[sku]]`` entry has the columns of ranking/catalog/gpus.csv or servers.csv, plus ``aliases``
(how titles spell it) and ``override = true`` to change a packaged SKU (only the fields
given change; ``source`` is required). ``[aliases]`` adds spellings to a family we carry,
``[parts]`` part numbers. Mistakes raise ConfigError naming the file and entry.
"""

from __future__ import annotations

import copy
import difflib
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from core.errors import ConfigError, NormalizeError
from ranking.catalog import Catalog, Sku, load_catalog, parse_sku_row
from ranking.titles.lots import BRAND_WORDS
from ranking.titles.normalize import Normalizer, default_normalizer
from ranking.titles.tokens import compact, tokenize
from ranking.titles.vocab import load_aliases, load_vocabulary

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from pathlib import Path

COLUMNS = frozenset({
    "sku", "category", "name", "vendor", "family", "hints", "vram_gb", "mem_bandwidth_gbs",
    "fp16_tensor_tflops", "fp16_tflops", "fp32_tflops", "bf16", "tdp_w", "form_factor", "nvlink",
    "gpus_per_board", "release_year", "segment", "display_outputs", "gpu_slots",
    "gpu_form_factor", "interconnect", "pcie_gen", "power_notes", "notes", "source",
})  # fmt: skip
_OWN_KEYS = frozenset({"aliases", "override"})
_TABLES = frozenset({"sku", "aliases", "parts"})


@dataclass(frozen=True, slots=True)
class UserCatalog:
    """The packaged catalog with the user's SKUs and spellings merged in."""

    catalog: Catalog
    aliases: Mapping[str, Any]  # aliases.toml's tables, the user's spellings added
    added: tuple[str, ...] = ()
    overridden: tuple[str, ...] = ()


def load_user_catalog(paths: Sequence[Path]) -> UserCatalog:
    """Read the user's catalog files and merge them into the packaged catalog."""
    files = []
    for path in paths:
        try:
            files.append((path.name, tomllib.loads(path.read_text(encoding="utf-8"))))
        except FileNotFoundError as exc:
            raise ConfigError(f"{path}: catalog file not found ([catalog] extra)") from exc
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: cannot read catalog file: {exc}") from exc
    return merge_user_catalog(load_catalog(), load_aliases(), files)


def user_normalizer(paths: Sequence[Path]) -> Normalizer:
    """The normalizer of the packaged catalog plus the user's files (built once per version)."""
    if not paths:
        return default_normalizer()
    stamps = tuple((p, p.stat().st_mtime_ns if p.exists() else 0) for p in paths)
    return _normalizer(stamps)


def user_skus(paths: Sequence[Path] = ()) -> dict[str, Sku]:
    """Every SKU by id: the packaged catalog with the user's files merged in."""
    return {s.sku: s for s in user_normalizer(paths).catalog}


@lru_cache(maxsize=4)
def _normalizer(stamps: tuple[tuple[Path, int], ...]) -> Normalizer:
    user = load_user_catalog([p for p, _ in stamps])
    return Normalizer(user.catalog, load_vocabulary(user.catalog, aliases=user.aliases))


def merge_user_catalog(
    catalog: Catalog, aliases: Mapping[str, Any], files: Sequence[tuple[str, Mapping[str, Any]]]
) -> UserCatalog:
    """Merge parsed user files (name, TOML data) into ``catalog`` and its ``aliases``."""
    merged = copy.deepcopy(dict(aliases))
    families: dict[str, list[str]] = merged.setdefault("families", {})
    skus = {s.sku: s for s in catalog}
    owner = {_model_words(p): name for name, phrases in families.items() for p in phrases}
    added: list[str] = []
    overridden: list[str] = []
    seen: dict[str, str] = {}
    for name, data in files:
        _check_tables(name, data)
        for number, entry in enumerate(_entries(name, data), 1):
            where = f"{name}, [[sku]] #{number}"
            sku = _sku(entry, skus, seen, where)
            seen[sku.sku] = where
            (overridden if sku.sku in skus else added).append(sku.sku)
            skus[sku.sku] = sku
            phrases = _strings(entry.get("aliases", []), f"{where} ({sku.sku}) aliases")
            _add_phrases(families, owner, sku.family, phrases, f"{where} ({sku.sku})")
            if sku.family not in families:
                raise ConfigError(
                    f"{where} ({sku.sku}): titles cannot name it: give aliases = [...] "
                    "(how titles spell it) or the family of a model we carry"
                    + (f" (no family {sku.family!r})" if sku.family else "")
                )
            _carry(merged, sku, phrases)
        for family, phrases in _table(name, data, "aliases").items():
            if family not in families:
                raise ConfigError(f"{name}, [aliases]: no family {family!r} in the catalog")
            _add_phrases(families, owner, family, _strings(phrases, f"{name}, [aliases] {family}"),
                         f"{name}, [aliases]")  # fmt: skip
        for part, sku_id in _table(name, data, "parts").items():
            if sku_id not in skus:
                raise ConfigError(f"{name}, [parts]: {part!r} names no SKU {sku_id!r}")
            merged.setdefault("parts", {})[part] = sku_id
    return UserCatalog(Catalog(skus), merged, tuple(added), tuple(overridden))


def _sku(
    entry: Mapping[str, Any], skus: Mapping[str, Sku], seen: Mapping[str, str], where: str
) -> Sku:
    unknown = set(entry) - COLUMNS - _OWN_KEYS
    if unknown:
        field = sorted(unknown)[0]
        hint = difflib.get_close_matches(field, COLUMNS, n=1)
        raise ConfigError(
            f"{where}: unknown field {field!r}" + (f" (did you mean {hint[0]!r}?)" if hint else "")
        )
    sku_id = str(entry.get("sku", "")).strip()
    if not sku_id:
        raise ConfigError(f"{where}: missing 'sku' (the SKU id, e.g. 'nvidia-rtx-3090-turbo')")
    if sku_id in seen:
        raise ConfigError(f"{where}: duplicate SKU id {sku_id!r} (already in {seen[sku_id]})")
    packaged = skus.get(sku_id)
    override = entry.get("override", False) is True
    if packaged is not None and not override:
        raise ConfigError(
            f"{where}: SKU id {sku_id!r} is already in the catalog; "
            "add override = true to change it, or choose another id"
        )
    if packaged is None and override:
        raise ConfigError(f"{where}: override = true, but the catalog has no SKU {sku_id!r}")
    if override and not str(entry.get("source", "")).strip():
        raise ConfigError(f"{where} ({sku_id}): an override must cite its 'source'")
    row = _row_of(packaged) if packaged else {}
    row.update({k: _text(k, v, where) for k, v in entry.items() if k in COLUMNS})
    if not row.get("family") and entry.get("aliases"):
        row["family"] = sku_id
    try:
        return parse_sku_row(row, f"{where} ({sku_id})")
    except NormalizeError as exc:
        raise ConfigError(str(exc)) from exc


def _row_of(sku: Sku) -> dict[str, str]:
    row = {k: _text(k, v, sku.sku) for k, v in sku.as_json().items() if v is not None}
    row["bf16"] = "yes" if sku.bf16 else "no"
    return row


def _text(key: str, value: object, where: str) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list) and key == "hints":
        return "|".join(_strings(value, f"{where} hints"))
    if isinstance(value, str | int | float):
        return str(value)
    raise ConfigError(f"{where}: {key} must be a number or text, not {value!r}")


def _add_phrases(
    families: dict[str, list[str]], owner: dict[tuple[str, ...], str], family: str,
    phrases: Iterable[str], where: str,
) -> None:  # fmt: skip
    for phrase in phrases:
        key = _model_words(phrase)
        if not key:
            raise ConfigError(f"{where}: alias {phrase!r} names no model, only brand words")
        holder = owner.get(key)
        if holder is not None and holder != family:
            raise ConfigError(
                f"{where}: alias {phrase!r} already names {holder!r}; "
                "a title spelled so would match both"
            )
        owner[key] = family
        families.setdefault(family, [])
        if phrase not in families[family]:
            families[family].append(phrase)


def _model_words(phrase: str) -> tuple[str, ...]:
    """The words that tell models apart: "RTX 3090" and "3090" are one alias, "3090 turbo" not."""
    return tuple(w for w in tokenize(phrase).words if w not in BRAND_WORDS)


def _carry(merged: dict[str, Any], sku: Sku, phrases: Sequence[str]) -> None:
    """A model the user now carries is no longer "not carried" (e.g. an MI250)."""
    keys = {compact(p) for p in phrases}
    not_carried = merged.get("not_carried", {})
    for kind, listed in not_carried.items():
        not_carried[kind] = [p for p in listed if compact(p) not in keys]
    other = merged.get("other_variants", {}).get(sku.family)
    if other:
        other["vram"] = [v for v in other.get("vram", []) if v != sku.vram_gb]
        other["form"] = [f for f in other.get("form", []) if f != sku.form_factor]


def _check_tables(name: str, data: Mapping[str, Any]) -> None:
    unknown = set(data) - _TABLES
    if unknown:
        raise ConfigError(
            f"{name}: unknown table(s) {sorted(unknown)}; expected [[sku]], [aliases], [parts]"
        )


def _entries(name: str, data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    entries = data.get("sku", [])
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise ConfigError(f"{name}: SKUs are written as [[sku]] tables")
    return entries


def _table(name: str, data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    table = data.get(key, {})
    if not isinstance(table, dict):
        raise ConfigError(f"{name}: [{key}] must be a table")
    return table


def _strings(values: object, where: str) -> list[str]:
    if not isinstance(values, list) or not all(isinstance(v, str) and v.strip() for v in values):
        raise ConfigError(f'{where}: must be a list of words, e.g. ["rtx 3090 turbo"]')
    return values
