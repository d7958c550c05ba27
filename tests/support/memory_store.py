"""A stand-in for the database in collector tests: what was stored, and what is already known."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from core.models import Listing


class MemoryStore:
    """Stored listings by item id; ``is_known`` answers like ``db.store.load_known_item_ids``."""

    def __init__(self) -> None:
        self.rows: dict[str, Listing] = {}

    def is_known(self, listings: Sequence[Listing]) -> set[str]:
        return {item.item_id for item in listings if self.rows.get(item.item_id) == item}

    def save(self, listings: Sequence[Listing]) -> None:
        self.rows.update((item.item_id, item) for item in listings)
