"""What a PCIe GPU server's title claims about its topology (``[topology_claim]`` of
``flags.toml``): "SYS-4028GR-TRT … w/ X10DRG-O-PCIE Single Root Upgrade" claims single-root
PCIe though its catalog model is split (dual-root) — guide 001's whole point. The claim is
what the buyer is offered, so it is what the sentence shows, marked as a claim to verify."""

from __future__ import annotations

import re
from functools import cache

from core.text import match_form
from ranking.titles import flags_file

_NOT_WORD = re.compile(r"[^a-z0-9]+")


@cache
def _claims() -> tuple[tuple[str, str, str], ...]:
    """(compact key, wording, topology), longest first: "x10drgopcie" before "singleroot"."""
    table = flags_file()["topology_claim"]
    rows = [(_compact(words), words, topology) for words, topology in table.items()]
    return tuple(sorted(rows, key=lambda row: -len(row[0])))


def _compact(text: str) -> str:
    return _NOT_WORD.sub("", match_form(text).casefold())


def title_topology(title: str) -> tuple[str, str] | None:
    """(topology, the title's wording) when the title names a board or root layout."""
    compact = _compact(title)
    for key, words, topology in _claims():
        if key in compact:
            return topology, words.upper() if "-" in words else words
    return None
