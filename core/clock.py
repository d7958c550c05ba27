"""The real clock, in one place; everything below the edge takes ``now`` as an argument."""

from __future__ import annotations

from datetime import UTC, datetime


def utcnow() -> datetime:
    return datetime.now(UTC)
