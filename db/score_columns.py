"""The priced rows' score inputs, kept as columns: a ranking reads a few blobs, not every row.

At a million listings a ranking read 450,000 rows (listing id, SKU, packed inputs) to score
them: 0.5 s, most of it building Python objects row by row. Here they are kept as arrays: a
base (every packed row when it was written) and after it one change per save of the ``priced``
table, written by that save in its transaction (``record_changes``, called by
``db.priced_rows``): the listings written, with their SKU and inputs, and the listings gone or
no longer packed. ``load_columns`` reads the last base and the changes after it in one
statement, applies them in order, and checks the result against the count of priced rows (by
the index on the outcome) read in the same statement; where there is no base, or it does not
add up (a row changed by other means), it reads the table through instead. A save writes a
new base once the changes after the last one hold half as many rows: a reader applies at most
that many, and pricing a whole store again writes a base a few times, not at every save.

On PostgreSQL the writers take one transaction-scoped advisory lock before they append, so
changes are numbered in the order they commit; SQLite has one writer at a time.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np
from sqlalchemy import delete, func, insert, select

from db.dialect import driver_rows
from db.models import PricedRow, ScoreColumnsRow
from ranking.kept import WIDTH, PricedColumns

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from numpy.typing import NDArray
    from sqlalchemy.orm import Session

IS_PRICED = PricedRow.outcome == "priced"
# The same rows (only a priced row packs score inputs), without the outcome's index: a reader
# of most priced rows reads the table through, in the order it is stored. They are counted by
# that index (``IS_PRICED``): a partial index of these made SQLite read the table through it.
PACKED = PricedRow.inputs.is_not(None)
_LOCK = 7_213_905_101  # pg_advisory_xact_lock key of the score columns' writers
_REBASE_SHARE = 2  # a new base once the changes hold half as many rows as it
_MOST_CHANGES = 256  # or once there are this many changes after it
_FEWEST_REBASED = 5_000  # changes of fewer rows never make a new base

# One change as saved: (listing id, SKU, packed inputs or None: no longer packed).
Written = tuple[int, "str | None", "bytes | None"]


@dataclass(frozen=True, slots=True)
class Columns:
    """Packed rows as arrays, sorted by listing id; ``codes`` index ``skus``."""

    ids: NDArray[np.int64]
    codes: NDArray[np.int32]
    skus: tuple[str, ...]
    table: NDArray[np.float64]  # (rows, WIDTH)

    def priced(self) -> PricedColumns:
        return PricedColumns.unpack(self.ids, self.codes, self.skus, self.table)


@dataclass(frozen=True, slots=True)
class Change:
    """What one save did: listings written (packed) and listings gone or no longer packed."""

    written: Columns
    removed: NDArray[np.int64]


def record_changes(
    session: Session, written: Iterable[Written] = (), removed: Iterable[int] = ()
) -> None:
    """Append what a save of the ``priced`` table changed (in the caller's transaction)."""
    packed = [w for w in written if w[2] is not None and w[1] is not None]
    gone = [*removed, *(w[0] for w in written if w[2] is None or w[1] is None)]
    if not packed and not gone:
        return
    skus = tuple(dict.fromkeys(str(w[1]) for w in packed))
    index = {sku: i for i, sku in enumerate(skus)}
    _lock(session)
    session.execute(
        insert(ScoreColumnsRow).values(
            base=False,
            width=WIDTH,
            ids=np.array([w[0] for w in packed], dtype=np.int64).tobytes(),
            removed=np.array(gone, dtype=np.int64).tobytes(),
            skus=json.dumps(skus),
            codes=np.array([index[str(w[1])] for w in packed], dtype=np.int32).tobytes(),
            inputs=b"".join(w[2] for w in packed if w[2] is not None),
        )
    )
    _rebase_when_due(session)


def load_columns(session: Session) -> PricedColumns:
    """Every priced row's score inputs, as arrays (sorted by listing id)."""
    kept = load_kept(session)
    return (kept if kept is not None else load_columns_through(session)).priced()


def load_columns_through(session: Session) -> Columns:
    """The packed rows read from the table itself, row by row, taken apart column-wise: the
    per-row Python work is what the ranking waits for."""
    stmt = select(PricedRow.listing_id, PricedRow.sku, PricedRow.inputs).where(PACKED)
    rows = list(driver_rows(session, stmt))
    # a column at a time (``zip(*rows)`` passes every row as an argument: five times slower)
    codes = list(map(itemgetter(1), rows))
    skus = tuple(dict.fromkeys(codes))
    index = {code: i for i, code in enumerate(skus)}
    return _sorted(
        Columns(
            ids=np.array(list(map(itemgetter(0), rows)), dtype=np.int64),
            codes=np.array(list(map(index.__getitem__, codes)), dtype=np.int32),
            skus=skus,
            table=_table(b"".join(map(itemgetter(2), rows))),
        )
    )


def apply_changes(base: Columns, changes: Sequence[Change]) -> Columns:
    """``base`` after ``changes``, in order: the last change of a listing holds."""
    if not changes:
        return base
    index = {sku: i for i, sku in enumerate(base.skus)}  # grows with the changes' new SKUs
    event_ids, event_rows, codes, tables = [], [], [], []
    written = 0
    for change in changes:
        new = change.written
        # removals first: no save both writes and removes one listing
        event_ids += [change.removed, new.ids]
        event_rows += [np.full(len(change.removed), -1), written + np.arange(len(new.ids))]
        written += len(new.ids)
        mapped = np.array([index.setdefault(s, len(index)) for s in new.skus], dtype=np.int32)
        codes.append(mapped[new.codes] if len(new.codes) else new.codes)
        tables.append(new.table)
    ids, rows = np.concatenate(event_ids), np.concatenate(event_rows)
    order = np.lexsort((np.arange(len(ids)), ids))  # by listing, then in the order saved
    ids, rows = ids[order], rows[order]
    last = np.append(ids[1:] != ids[:-1], True)
    ids, rows = ids[last], rows[last]
    kept = ~np.isin(base.ids, ids, assume_unique=True)
    added = rows >= 0
    return _sorted(
        Columns(
            ids=np.concatenate([base.ids[kept], ids[added]]),
            codes=np.concatenate([base.codes[kept], np.concatenate(codes)[rows[added]]]).astype(
                np.int32
            ),
            skus=tuple(index),
            table=np.concatenate([base.table[kept], np.concatenate(tables)[rows[added]]]),
        )
    )


def load_kept(session: Session) -> Columns | None:
    """The last base with the changes after it applied, where they add up to the table."""
    count = select(func.count()).select_from(PricedRow).where(IS_PRICED).scalar_subquery()
    stmt = select(
        ScoreColumnsRow.seq,
        ScoreColumnsRow.base,
        ScoreColumnsRow.width,
        ScoreColumnsRow.ids,
        ScoreColumnsRow.removed,
        ScoreColumnsRow.skus,
        ScoreColumnsRow.codes,
        ScoreColumnsRow.inputs,
        count,
    ).order_by(ScoreColumnsRow.seq)
    rows = list(driver_rows(session, stmt))
    bases = [i for i, row in enumerate(rows) if row[1]]  # (seq, base, width, ...)
    if not bases or any(row[2] != WIDTH for row in rows[bases[-1] :]):
        return None
    first, *later = (_change(row) for row in rows[bases[-1] :])
    columns = apply_changes(first.written, later)
    return columns if len(columns.ids) == rows[0][-1] else None


def _change(row: Sequence[Any]) -> Change:
    _seq, _base, _width, ids, removed, skus, codes, inputs, _count = row
    written = Columns(
        ids=np.frombuffer(bytes(ids), dtype=np.int64),
        codes=np.frombuffer(bytes(codes), dtype=np.int32),
        skus=tuple(json.loads(skus)),
        table=_table(bytes(inputs)),
    )
    return Change(written, removed=np.frombuffer(bytes(removed), dtype=np.int64))


def _rebase_when_due(session: Session) -> None:
    """Write a new base when the changes after the last one are many (or there is none)."""
    last_base = select(func.max(ScoreColumnsRow.seq)).where(ScoreColumnsRow.base).scalar_subquery()
    base_rows = select(func.length(ScoreColumnsRow.ids)).where(ScoreColumnsRow.seq == last_base)
    size = session.execute(
        select(
            func.count(),
            func.coalesce(func.sum(func.length(ScoreColumnsRow.ids)), 0)
            + func.coalesce(func.sum(func.length(ScoreColumnsRow.removed)), 0),
            base_rows.scalar_subquery(),
        ).where(ScoreColumnsRow.seq > func.coalesce(last_base, 0))
    ).one()
    changes, changed_bytes, base_bytes = size
    due = (
        base_bytes is None
        or changes > _MOST_CHANGES
        or (changed_bytes // 8 >= max(_FEWEST_REBASED, base_bytes // 8 // _REBASE_SHARE))
    )
    if due:
        save_base(session, load_kept(session) or load_columns_through(session))


def save_base(session: Session, columns: Columns) -> None:
    """Replace every kept row with ``columns`` as the base (in the caller's transaction)."""
    _lock(session)
    session.execute(delete(ScoreColumnsRow))
    session.execute(
        insert(ScoreColumnsRow).values(
            base=True,
            width=WIDTH,
            ids=columns.ids.tobytes(),
            removed=b"",
            skus=json.dumps(columns.skus),
            codes=columns.codes.tobytes(),
            inputs=columns.table.tobytes(),
        )
    )


def _lock(session: Session) -> None:
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        connection.execute(select(func.pg_advisory_xact_lock(_LOCK)))


def _table(inputs: bytes) -> NDArray[np.float64]:
    return np.frombuffer(inputs, dtype=np.float64).reshape(-1, WIDTH)


def _sorted(columns: Columns) -> Columns:
    order = np.argsort(columns.ids, kind="stable")
    return Columns(
        ids=columns.ids[order],
        codes=columns.codes[order],
        skus=columns.skus,
        table=columns.table[order],
    )
