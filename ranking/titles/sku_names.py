"""A SKU as a person types it: ``p40``, ``Tesla-P40``, ``NVIDIA-TESLA-P40``, ``esc4000 g3``.

Pure: a name and the catalog in, a ``SkuName`` out. A name is the SKU it unambiguously means,
read in this order: the catalog id, any case; the id without its vendor, or the catalog's
display name; then the name read as a listing title is read (the normalizer, so ``p40`` means
what "Tesla P40" in a title means). A name that could be several SKUs (``v100``) or none gets
the SKUs it most likely means, by meaning before spelling: the model it names first, then
ids a character or two away, with look-alike characters (``p4O``, ``l40``/``140``) read as
the digit a person meant.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ranking.titles.normalize import normalize_title

if TYPE_CHECKING:
    from ranking.catalog import Catalog

MAX_SUGGESTIONS = 6
_SEPARATORS = re.compile(r"[\s_\-/]+")
# A letter typed for a digit inside a model number: "p4O" is p40, "a1OO" is a100.
_LOOKALIKE = str.maketrans({"o": "0"})
_MODEL_TOKEN = re.compile(r"[a-z]*\d[a-z0-9]*")


@dataclass(frozen=True, slots=True)
class SkuName:
    """What a typed name means: ``sku`` when it means exactly one, else ``suggestions``."""

    name: str
    sku: str | None
    suggestions: tuple[str, ...] = ()

    @property
    def exact(self) -> bool:
        """The name is the catalog id itself (nothing to tell the user)."""
        return self.sku == self.name

    @property
    def hint(self) -> str:
        """What to tell someone whose name is not the catalog id: the SKU it means ("did you
        mean …?"), the SKUs it could mean, or where to see them all."""
        meant = (self.sku,) if self.sku else self.suggestions
        if len(meant) == 1:
            return f"did you mean {meant[0]}?"
        if meant:
            return f"it could be any of: {', '.join(meant)}"
        return "`rigscout catalog` lists them all"


def read_sku_name(name: str, catalog: Catalog) -> SkuName:
    key = _words(name)
    by_id = {_words(s.sku): s.sku for s in catalog}
    if key in by_id:
        return SkuName(name, by_id[key])
    short = {_words(_without_vendor(s.sku, s.vendor)): s.sku for s in catalog}.get(key)
    short = short or {_words(s.name): s.sku for s in catalog}.get(key)
    if short:
        return SkuName(name, short)
    if not _has_lookalike(key):  # "p4O" is not read as a title would be: it is asked about
        read = normalize_title(key, catalog)
        if read.sku is not None and read.kind.value == "item":
            return SkuName(name, read.sku)
    return SkuName(name, None, _suggestions(key, catalog, by_id))


def _has_lookalike(key: str) -> bool:
    return any(t != t.translate(_LOOKALIKE) for t in _MODEL_TOKEN.findall(key))


def _suggestions(key: str, catalog: Catalog, by_id: dict[str, str]) -> tuple[str, ...]:
    """The SKUs a name most likely means: every SKU whose id holds the model numbers it
    names (look-alikes read as digits), else the ids closest in spelling."""
    meant = " ".join(
        t.translate(_LOOKALIKE) if any(c.isdigit() for c in t) else t for t in key.split()
    )
    read = normalize_title(meant, catalog)
    if read.sku is not None:
        return (read.sku,)
    ids = {s.sku: _words(s.sku).split() for s in catalog}

    def named(model: str, words: list[str]) -> bool:
        return any(w.startswith(model) for w in words)

    # The model numbers the catalog knows ("v100" of "v100-sxm9"): each SKU holding them all,
    # closest in spelling first.
    models = [
        t
        for t in _MODEL_TOKEN.findall(meant)
        if any(c.isdigit() for c in t) and any(named(t, w) for w in ids.values())
    ]
    if models:
        holding = [sku for sku, words in ids.items() if all(named(m, words) for m in models)]
        by_spelling = sorted(holding, key=lambda sku: -_similarity(meant, _words(sku)))
        return tuple(by_spelling[:MAX_SUGGESTIONS])
    close = difflib.get_close_matches(meant, list(by_id), n=3, cutoff=0.75)
    return tuple(by_id[c] for c in close)


def _similarity(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b).ratio()


def _words(text: str) -> str:
    """Lower case, any run of separators one space: "NVIDIA-Tesla_P40" → "nvidia tesla p40"."""
    return _SEPARATORS.sub(" ", text.strip().lower()).strip()


def _without_vendor(sku: str, vendor: str) -> str:
    prefix = _words(vendor).replace(" ", "-") + "-"
    return sku[len(prefix) :] if sku.startswith(prefix) else sku
