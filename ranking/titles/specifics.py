"""Item specifics by what they mean, whatever language the item page names them in.

An item page lists its specifics under the site's own names ("Memory Size", "Speichergröße",
"Taille de la mémoire", "Tamaño de la memoria"); ``[specifics]`` of vocabulary.toml gives every
name each fact goes by. Names are compared folded (accents and case ignored, spaces collapsed).
Pure: a mapping in, a value out.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from core.text import match_form
from ranking.titles.facts import read_vocabulary

if TYPE_CHECKING:
    from collections.abc import Mapping


def _fold(name: str) -> str:
    return " ".join(match_form(name).casefold().split())


@cache
def _names() -> dict[str, tuple[str, ...]]:
    table = read_vocabulary().get("specifics", {})
    return {fact: tuple(_fold(n) for n in names) for fact, names in table.items()}


def specific(specifics: Mapping[str, str], fact: str) -> str | None:
    """The value of the first of ``fact``'s names the specifics hold ("gpu_memory", "ram",
    "cpus", "cpu_model"), accents folded; None when they hold none."""
    folded = {_fold(k): v for k, v in specifics.items()}
    for name in _names()[fact]:
        value = folded.get(name)
        if value:
            return match_form(value)
    return None
