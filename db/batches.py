"""Long ``IN (...)`` lists sent in batches, so no statement binds more parameters than SQLite
or PostgreSQL accept. The one helper the store's readers and writers share."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

T = TypeVar("T")


def batches(values: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """``values`` in consecutive slices of at most ``size``."""
    for start in range(0, len(values), size):
        yield values[start : start + size]
