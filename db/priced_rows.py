"""The ranker's priced rows (the ``priced`` table): which are out of date, saving them, reading
their score inputs back as columns.

No rule lives here: what a row holds is decided by ``rigscout/jobs/priced.py`` from
``ranking.rank``'s pricing; this module only finds the rows whose inputs moved and moves data.
A row is current while its listing is active with a SKU, its newest observation and
``changed_at`` are those it was priced from, its basis is the caller's, and ``valid_until`` is
still ahead; its market digest and account label are checked by the caller (they come from the
markets and the other listings).

After ``delete_unranked`` the table holds the ranked listings only, so the readers of a ranking
(``load_outcomes``, ``load_part_prices``, and ``db.score_columns.load_columns`` through the
changes each save records there) read it alone, without a join.
"""

from __future__ import annotations

import contextlib
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlalchemy import Column, case, delete, func, or_, select, text, tuple_
from sqlalchemy.sql.visitors import iterate

from db.batches import batches
from db.dialect import driver_rows, upsert_insert
from db.latest import IS_LATEST, LATEST
from db.models import APPROX_UNIT_PRICE, PART_ROWS, PRICED_ROWS, ListingRow, PricedRow
from db.rank_rows import ACTIVE_COLUMNS, active_row
from db.ranked import RANKED
from db.score_columns import IS_PRICED, PACKED, record_changes
from ranking.rows import TitleReading

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Sequence
    from datetime import datetime

    from sqlalchemy import ColumnElement, Table
    from sqlalchemy.orm import Session

    from db.history import AnySelect
    from ranking.rows import ActiveRow

CHUNK = 500  # ids per IN (...) list: SQLite allows 999 parameters
PRICED: Table = PricedRow.__table__  # type: ignore[assignment]
# the columns an index of the table holds (``save_priced`` sets them only where they changed)
_INDEXED = frozenset(
    node.name
    for index in PRICED.indexes
    for expression in index.expressions
    if not isinstance(expression, str)
    for node in iterate(expression)
    if isinstance(node, Column)
) - {"listing_id"}
_JOINED = ListingRow.id == PricedRow.listing_id

Stale = tuple["ActiveRow", int, "datetime | None"]  # the row, its observation, its changed_at


def load_stale_rows(
    session: Session, *, basis: str, now: datetime, saved_after: int | None = None
) -> list[Stale]:
    """Ranked listings never priced, or priced from another observation, another version of
    the listing, another basis, or whose price has expired (an auction's); each with its
    title's kept reading where it still holds (``_kept_reading``: a new price is not a new
    title).

    ``saved_after``: the newest ``saved_seq`` when every row was last brought up to date under
    ``basis``. Then only the listings saved since, and the other rows of their items (whose
    place in the ranking they may take, ``db.ranked``), can be stale but for a price that
    expired: those are read by the indexes on ``saved_seq``, ``item_id`` and ``valid_until``,
    not by a pass over every listing."""
    stale = or_(
        PricedRow.listing_id.is_(None),
        PricedRow.observation_id != ListingRow.latest_observation_id,
        PricedRow.changed_at.is_distinct_from(ListingRow.changed_at),
        PricedRow.basis != basis,
        PricedRow.valid_until <= now,
    )
    stmt = _rows(_kept_reading(basis)).outerjoin(PricedRow, _JOINED).where(RANKED, stale)
    if saved_after is None:
        return _stale(session, stmt, read=True)
    found = _stale(session, stmt.where(_saved_items(saved_after)), read=True)
    seen = {row.listing_id for row, _, _ in found}
    expired = [i for i in load_expired(session, now) if i not in seen]
    return found + load_rows(session, expired, basis=basis)


def load_rows(session: Session, listing_ids: Collection[int], *, basis: str) -> list[Stale]:
    """These ranked listings, to be priced (again), each with its title's kept reading where
    it still holds under ``basis`` (``_kept_reading``)."""
    stmt = _rows(_kept_reading(basis)).outerjoin(PricedRow, _JOINED).where(RANKED)
    found: list[Stale] = []
    for chunk in batches(sorted(listing_ids), CHUNK):
        found += _stale(session, stmt.where(ListingRow.id.in_(chunk)), read=True)
    return found


def load_digests(session: Session) -> list[tuple[str, bool, str]]:
    """The (SKU, auction, market digest) the current priced rows were priced against.

    Only a priced row has a digest (a SHA-256; the others keep ""), so the distinct triples
    are read off ``ix_priced_sku_digest`` alone, not the table (a quarter of the time)."""
    stmt = (
        select(PricedRow.sku, PricedRow.auction, PricedRow.digest)
        .where(PricedRow.digest != "")
        .distinct()
    )
    return [(str(s), bool(a), str(d)) for s, a, d in session.execute(stmt)]


def load_rows_priced_against(
    session: Session, digests: Collection[tuple[str, bool, str]], *, basis: str
) -> list[Stale]:
    """The ranked listings priced against these (SKU, auction, market digest): the markets
    that moved since. One statement per few hundred digests (by ``ix_priced_sku_digest``), not
    one per digest and then the listings by lists of ids: after a sold page moves every
    market, that is most of a large store's listings. Each comes with its title's kept
    reading (``ActiveRow.reading``) where its row was priced under ``basis`` from the listing
    as it is."""
    found: list[Stale] = []
    priced = tuple_(PricedRow.sku, PricedRow.auction, PricedRow.digest)
    for chunk in batches(sorted(digests), CHUNK // 3):
        which = _rows(_kept_reading(basis)).join(PricedRow, _JOINED)
        found += _stale(session, which.where(RANKED, IS_PRICED, priced.in_(chunk)), read=True)
    return found


def _kept_reading(basis: str) -> Any:
    """A priced row's kept reading of its title (``ActiveRow.reading``) where it was priced
    under ``basis`` from the listing as it is (``changed_at``: a new title, SKU or seller is
    a change; a new price is not), else NULL: the title is read again."""
    same = (PricedRow.basis == basis) & PricedRow.changed_at.is_not_distinct_from(
        ListingRow.changed_at
    )
    return case((same, PricedRow.reading), else_=None)


def load_asking(
    session: Session, *, besides: Collection[str] = ()
) -> list[tuple[int, str, Decimal]]:
    """(listing id, SKU, landed unit price) of the priced rows that are asking prices, but
    those of the SKUs ``besides``. Most priced rows are: read through the table, in the order
    it is stored (``PACKED``), not by the outcome's index (at a million listings 0.72 s of
    SQL against 0.59 s)."""
    stmt = select(PricedRow.listing_id, PricedRow.sku, PricedRow.unit_price).where(
        PACKED, PricedRow.asking
    )
    if besides:
        stmt = stmt.where(PricedRow.sku.not_in(sorted(besides)))
    return [(i, str(s), Decimal(str(p))) for i, s, p in session.connection().execute(stmt)]


def load_sellers_under(
    session: Session, feedback: int, *, sellers: Collection[str] | None = None
) -> list[tuple[int, str, int, int, Decimal, str | None]]:
    """(listing id, seller, feedback, quantity, unit price, account label) of the priced rows
    of sellers with less than ``feedback``: the only ones a new-account pattern can flag;
    with ``sellers``, of those alone. Read off the priced rows (each keeps its listing's
    seller, feedback and lot size as it was priced: the row is written again whenever they
    change), and of those off ``ix_priced_seller_stake`` alone, which holds every column read
    (``PRICED_ROWS``: the priced rows, as that index answers for them)."""
    stmt = select(
        PricedRow.listing_id,
        PricedRow.seller,
        PricedRow.seller_feedback,
        PricedRow.quantity,
        PricedRow.unit_price,
        PricedRow.account,
    ).where(
        text(PRICED_ROWS[session.get_bind().dialect.name]),
        PricedRow.seller.is_not(None),
        PricedRow.seller_feedback < feedback,
    )
    if sellers is None:
        chunks = [stmt]
    else:
        chunks = [stmt.where(PricedRow.seller.in_(c)) for c in batches(sorted(sellers), CHUNK)]
    return [
        (i, str(s), int(f or 0), int(q or 0), Decimal(str(p)), a)
        for chunk in chunks
        for i, s, f, q, p, a in driver_rows(session, chunk)
    ]


def save_priced(session: Session, rows: Sequence[dict[str, Any]]) -> None:
    """Insert or replace these priced rows.

    A row already stored is updated in the columns an index holds only where their value
    changed: SQLite rewrites an index's entry whenever an update sets one of its columns, even
    to the value it had. At a million listings, the 11,000 rows a ranking after a run saves,
    most keeping their SKU, seller, outcome and market digest, took 0.54 s of SQLite's time
    with every column set, 0.27 s now. The stored values are read first, by the primary key."""
    if not rows:
        return
    names = [name for name in rows[0] if name != "listing_id"]
    indexed = [name for name in names if name in _INDEXED]
    stored = _load_indexed(session, [r["listing_id"] for r in rows], indexed)
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for row in rows:
        old = stored.get(row["listing_id"])
        changed = (
            tuple(indexed)
            if old is None
            else tuple(name for name, value in zip(indexed, old, strict=True) if row[name] != value)
        )
        groups.setdefault(changed, []).append(row)
    for changed, group in groups.items():
        stmt = upsert_insert(session, PRICED)
        upsert = stmt.on_conflict_do_update(
            index_elements=["listing_id"],
            set_={n: stmt.excluded[n] for n in names if n not in _INDEXED or n in changed},
        )
        for chunk in batches(group, 5_000):
            session.execute(upsert, list(chunk))
    record_changes(session, written=[(r["listing_id"], r["sku"], r["inputs"]) for r in rows])


def _load_indexed(
    session: Session, listing_ids: Sequence[int], names: Sequence[str]
) -> dict[int, tuple[Any, ...]]:
    """The stored values of these columns of these listings' rows (those stored)."""
    columns = [PRICED.c[name] for name in names]
    found: dict[int, tuple[Any, ...]] = {}
    for chunk in batches(sorted(listing_ids), CHUNK):
        stmt = select(PricedRow.listing_id, *columns).where(PricedRow.listing_id.in_(chunk))
        found.update((int(i), tuple(values)) for i, *values in session.execute(stmt))
    return found


def delete_unranked(session: Session, *, saved_after: int | None = None) -> set[str]:
    """Drop the rows of listings no longer ranked (sold, ended, unmatched since), and return
    their sellers; ``saved_after``: as ``load_stale_rows``'s (only a listing saved since, or
    another row of its item, can have left the ranking)."""
    ranked = select(ListingRow.id).where(ListingRow.id == PricedRow.listing_id, RANKED)
    stmt = delete(PricedRow).where(~ranked.exists())
    if saved_after is not None:
        stmt = stmt.where(
            PricedRow.listing_id.in_(select(ListingRow.id).where(_saved_items(saved_after)))
        )
    removed = session.execute(stmt.returning(PricedRow.listing_id, PricedRow.seller)).all()
    record_changes(session, removed=[int(i) for i, _ in removed])
    return {str(seller) for _, seller in removed if seller}


def load_sellers_of(session: Session, listing_ids: Collection[int], feedback: int) -> set[str]:
    """The sellers of these listings' rows that had less than ``feedback``, as priced."""
    found: set[str] = set()
    for chunk in batches(sorted(listing_ids), CHUNK):
        stmt = select(PricedRow.seller).where(
            PricedRow.listing_id.in_(chunk),
            PricedRow.seller.is_not(None),
            PricedRow.seller_feedback < feedback,
        )
        found.update(str(s) for s in session.scalars(stmt))
    return found


def _saved_items(saved_after: int) -> ColumnElement[bool]:
    """The listings of the items a listing saved after ``saved_after`` is a row of."""
    saved = select(ListingRow.item_id).where(ListingRow.saved_seq > saved_after)
    return ListingRow.item_id.in_(saved)


def load_expired(session: Session, now: datetime) -> list[int]:
    """The rows whose price has expired (an auction whose time bucket moved, or that ended)."""
    return list(session.scalars(select(PricedRow.listing_id).where(PricedRow.valid_until <= now)))


def load_exact_landed(session: Session, listing_ids: Iterable[int]) -> dict[int, Decimal]:
    """The exact ranked price of these listings (the packed float only approximates it)."""
    found: dict[int, Decimal] = {}
    for chunk in batches(sorted(set(listing_ids)), CHUNK):
        stmt = select(PricedRow.listing_id, PricedRow.landed).where(PricedRow.listing_id.in_(chunk))
        found.update((i, Decimal(str(p))) for i, p in session.execute(stmt))
    return found


def load_outcomes(session: Session) -> dict[str, int]:
    """How many ranked listings each outcome other than "priced" and "part" has (the reasons
    they were left out)."""
    stmt = (
        select(PricedRow.outcome, func.count())
        .where(PricedRow.outcome.not_in(("priced", "part")))
        .group_by(PricedRow.outcome)
    )
    return {str(o): int(n) for o, n in session.execute(stmt)}


def load_part_prices(
    session: Session, count: int, sku: str | None = None
) -> list[tuple[Decimal, int]]:
    """(landed unit price, listing id) of the ``count`` cheapest for-parts and accessory
    listings (of ``sku``), and of any as cheap as the last of them: the database orders them
    by the price as a float, the caller by the exact price."""
    parts: list[Any] = [text(PART_ROWS[session.get_bind().dialect.name])]  # by their index
    if sku is not None:
        parts.append(PricedRow.sku == sku)
    approx = APPROX_UNIT_PRICE
    nth = session.scalar(select(approx).where(*parts).order_by(approx).offset(count - 1).limit(1))
    stmt = select(PricedRow.unit_price, PricedRow.listing_id).where(*parts)
    if nth is not None:
        stmt = stmt.where(approx <= nth + abs(nth) * 1e-9 + 1e-9)
    return [(Decimal(str(p)), int(i)) for p, i in session.execute(stmt)]


def _rows(*more: Any) -> AnySelect:
    columns = (*ACTIVE_COLUMNS, *more, ListingRow.latest_observation_id, ListingRow.changed_at)
    return select(*columns).join(LATEST, IS_LATEST)


def _stale(session: Session, stmt: AnySelect, *, read: bool = False) -> list[Stale]:
    """The rows of ``stmt`` (``_rows``; ``read``: with the kept reading of the title, one
    object for each distinct reading: most titles read alike, and a sold page brings back
    hundreds of thousands of rows)."""
    found: list[Stale] = []
    readings: dict[str, TitleReading | None] = {}
    for r in session.connection().execute(stmt).all():
        values = list(r)
        changed = values.pop()
        observation = values.pop()
        kept = values.pop() if read else None
        if kept:
            if kept not in readings:
                readings[kept] = None
                with contextlib.suppress(ValueError):
                    readings[kept] = TitleReading.from_text(kept)
            if (reading := readings[kept]) is not None:
                values.append(reading)
        found.append((active_row(values), int(observation), changed))
    return found
