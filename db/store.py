"""Save what the collectors saw (listings, their price history, sales) and load it back.

No function here commits: the caller owns the transaction, so one search is saved whole or not
at all. A batch is looked up with one SELECT per 2,000 listings and written with one batched
statement per table, never a query per listing; the same SQL runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlalchemy import String, case, cast, func, insert, or_, select, update

from core.errors import StoreError
from core.models import BuyingFormat
from db.batches import batches
from db.dialect import upsert_insert
from db.latest import LATEST, LATEST_ID, next_saved, save_latest_observed_at
from db.lock import save_in_turn
from db.models import ListingRow, ObservationRow, SaleRow

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence
    from datetime import date, datetime

    from sqlalchemy import Select, Table
    from sqlalchemy.orm import Session

    from core.models import Listing, Normalized

CHUNK = 2000
CENT = Decimal("0.01")
IMPORT_SOURCES = ("import", "terapeak")
_NORMALIZED_COLUMNS = (
    "sku",
    "category",
    "kind",
    "quantity",
    "includes",
    "confidence",
    "config",
    "part",
)
_OBSERVED_COLUMNS = ("price", "price_max", "shipping", "currency", "bids", "status")
# What places a listing's prices in the report's history (``db.history.load_asking_rows``
# groups by them; a sale with GPUs is not its SKU's own, ``db.sold_points``): a change stamps
# ``history_changed_at``.
_HISTORY_COLUMNS = ("sku", "category", "kind", "quantity", "location", "includes")
_REPLACED_COLUMNS = ("title", "url", "buying_format", "currency", "status", "last_seen")
# A page that omits these (sold pages show no seller) must not erase what another page showed.
_KEPT_COLUMNS = (
    "category_id",
    "condition",
    "seller",
    "seller_feedback",
    "seller_positive_pct",
    "location",
    "image_url",
    "end_time",
)

_Key = tuple[str, str]  # (marketplace, item_id)
_PriceKey = tuple[Decimal, Decimal | None, Decimal | None, str, int | None, str]


LISTINGS: Table = ListingRow.__table__  # type: ignore[assignment]
OBSERVATIONS: Table = ObservationRow.__table__  # type: ignore[assignment]
SALES: Table = SaleRow.__table__  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class SaveCounts:
    """What one save changed: listings in the batch, and the rows it added."""

    seen: int = 0
    new_listings: int = 0
    new_observations: int = 0
    new_sales: int = 0
    cards_skipped: int = 0  # cards of the pages that could not be read (never saved)

    def __add__(self, other: SaveCounts) -> SaveCounts:
        return SaveCounts(
            self.seen + other.seen,
            self.new_listings + other.new_listings,
            self.new_observations + other.new_observations,
            self.new_sales + other.new_sales,
            self.cards_skipped + other.cards_skipped,
        )


@dataclass(frozen=True, slots=True)
class _Stored:
    """A listing already in the database: its latest observation and its sale's source."""

    latest: _PriceKey | None
    sale_source: str | None


def save_listings(
    session: Session,
    items: Sequence[tuple[Listing, Normalized]],
    *,
    search: str | None,
    run_id: int | None,
    now: datetime,
) -> SaveCounts:
    """Upsert listings by (marketplace, item_id) and record what changed.

    An observation is added only when price, price range, shipping, currency, bids or status
    differ from the listing's latest one; a sold listing gets its one sales row (a presumed
    sale is replaced by the real one). The last copy of an item repeated in ``items`` wins.
    """
    return _save(session, items, search=search, run_id=run_id, now=now, sale_source="sold_page")


def save_sales_import(
    session: Session,
    items: Sequence[tuple[Listing, Normalized]],
    *,
    source: str,
    now: datetime,
) -> SaveCounts:
    """Save sold listings from saved pages (``source="import"``) or a Terapeak CSV ("terapeak")."""
    if source not in IMPORT_SOURCES:
        raise StoreError(f"Unknown sales source {source!r}; expected one of {IMPORT_SOURCES}.")
    unsold = [listing.item_id for listing, _ in items if listing.sold_date is None]
    if unsold:
        raise StoreError(
            f"Cannot import {len(unsold)} listings without a sold date as sales "
            f"(first: item {unsold[0]}); nothing was saved."
        )
    return _save(session, items, search=None, run_id=None, now=now, sale_source=source)


def load_known_item_ids(session: Session, items: Sequence[Listing]) -> set[str]:
    """Item ids among ``items`` that are stored unchanged: saving them again would add nothing.

    "Unchanged" means the latest observation has the same price, price range, shipping,
    currency, bids and status, so a collector can stop paging once a page holds only these.
    """
    stored = _load_stored(session, {(item.marketplace, item.item_id) for item in items})
    return {
        item.item_id
        for item in items
        if (found := stored.get((item.marketplace, item.item_id))) is not None
        and found.latest == _price_key(_observed(item))
    }


def save_ended(session: Session, *, now: datetime) -> int:
    """Close active listings whose end time has passed; returns how many changed.

    Auctions that had bids become ``presumed_sold`` with a sales row of source "presumed" at
    their last seen price; the rest become ``ended``.
    """
    save_in_turn(session)
    rows = session.execute(_ended_query(now)).all()
    presumed = [
        row
        for row in rows
        if row.buying_format == BuyingFormat.AUCTION and row.bids and row.price is not None
    ]
    presumed_ids = {row.id for row in presumed}
    _set_status(session, presumed_ids, "presumed_sold", now)
    _set_status(session, {row.id for row in rows} - presumed_ids, "ended", now)
    sales = [
        _sale_values(row.id, row.end_time.date(), row._mapping, best_offer=False, source="presumed")
        for row in presumed
        if row.sale_id is None
    ]
    if sales:
        stmt = upsert_insert(session, SALES).values(change_seq=_next_change())
        session.execute(stmt.on_conflict_do_nothing(index_elements=["listing_id"]), sales)
    _expire_listings(session)
    return len(rows)


def _save(
    session: Session,
    items: Sequence[tuple[Listing, Normalized]],
    *,
    search: str | None,
    run_id: int | None,
    now: datetime,
    sale_source: str,
) -> SaveCounts:
    batch = {(listing.marketplace, listing.item_id): (listing, norm) for listing, norm in items}
    if not batch:
        return SaveCounts()
    save_in_turn(session)
    session.flush()
    stored = _load_stored(session, batch.keys())
    ids = _upsert_listings(session, batch, search=search, now=now)
    seen_now = {key: _observed(listing) for key, (listing, _) in batch.items()}
    observations = [
        {"listing_id": ids[key], "run_id": run_id, "observed_at": now, **seen}
        for key, seen in seen_now.items()
        if key not in stored or stored[key].latest != _price_key(seen)
    ]
    if observations:
        session.execute(insert(OBSERVATIONS), observations)
        save_latest_observed_at(session, now)
    sales = _new_sales(batch, ids, stored, sale_source)
    _upsert_sales(session, sales)
    _expire_listings(session)
    return SaveCounts(len(batch), len(batch) - len(stored), len(observations), len(sales))


def _load_stored(session: Session, keys: Collection[_Key]) -> dict[_Key, _Stored]:
    by_marketplace: dict[str, list[str]] = defaultdict(list)
    for marketplace, item_id in keys:
        by_marketplace[marketplace].append(item_id)
    stored: dict[_Key, _Stored] = {}
    for marketplace, item_ids in by_marketplace.items():
        for chunk in batches(item_ids, CHUNK):
            for row in session.execute(_stored_query(marketplace, chunk)):
                latest = None if row.currency is None else _price_key(row._mapping)
                stored[(marketplace, row.item_id)] = _Stored(latest, row.sale_source)
    return stored


def _stored_query(marketplace: str, item_ids: Sequence[str]) -> Select[Any]:
    return _with_latest(ListingRow.item_id, SaleRow.source.label("sale_source")).where(
        ListingRow.marketplace == marketplace, ListingRow.item_id.in_(item_ids)
    )


def _ended_query(now: datetime) -> Select[Any]:
    return _with_latest(
        ListingRow.id, ListingRow.buying_format, ListingRow.end_time, SaleRow.id.label("sale_id")
    ).where(ListingRow.status == "active", ListingRow.end_time < now)


def _with_latest(*columns: Any) -> Select[Any]:
    """``columns`` of listings joined to their newest observation and to their sale, if any."""
    return (
        select(*columns, *(getattr(LATEST, name) for name in _OBSERVED_COLUMNS))
        .select_from(ListingRow)
        .outerjoin(LATEST, LATEST.id == LATEST_ID)
        .outerjoin(SaleRow, SaleRow.listing_id == ListingRow.id)
    )


def _upsert_listings(
    session: Session,
    batch: dict[_Key, tuple[Listing, Normalized]],
    *,
    search: str | None,
    now: datetime,
) -> dict[_Key, int]:
    stmt = upsert_insert(session, LISTINGS).values(saved_seq=next_saved())
    new = stmt.excluded
    updated = {name: new[name] for name in (*_REPLACED_COLUMNS, *_NORMALIZED_COLUMNS)} | {
        name: func.coalesce(new[name], LISTINGS.c[name]) for name in _KEPT_COLUMNS
    }
    upsert = stmt.on_conflict_do_update(
        index_elements=["marketplace", "item_id"],
        set_=updated
        | {"search": func.coalesce(LISTINGS.c.search, new.search), "saved_seq": new.saved_seq}
        | {"changed_at": case((_changed(updated), new.changed_at), else_=LISTINGS.c.changed_at)}
        | {
            "history_changed_at": case(
                (_changed({k: updated[k] for k in _HISTORY_COLUMNS}), new.changed_at),
                else_=LISTINGS.c.history_changed_at,
            )
        },
    ).returning(LISTINGS.c.id, LISTINGS.c.marketplace, LISTINGS.c.item_id)
    # Rows are written in key order so two workers saving overlapping batches on PostgreSQL
    # lock them in the same order and cannot deadlock.
    values = [_listing_values(*batch[key], search, now) for key in sorted(batch)]
    return {(row.marketplace, row.item_id): row.id for row in session.execute(upsert, values)}


def _changed(values: Mapping[str, Any]) -> Any:
    """True where one of the listing's fields would change (not its ``last_seen``): a listing
    seen again as it was keeps its ``changed_at``, and the ranker's priced row with it."""
    differences = []
    for name, value in values.items():
        if name == "last_seen":
            continue
        column: Any = LISTINGS.c[name]
        if name in ("includes", "config"):  # JSON: compared as its text (PostgreSQL's json
            column, value = cast(column, String), cast(value, String)  # has no "=")
        differences.append(column.is_distinct_from(value))
    return or_(*differences)


def _new_sales(
    batch: dict[_Key, tuple[Listing, Normalized]],
    ids: dict[_Key, int],
    stored: dict[_Key, _Stored],
    source: str,
) -> list[dict[str, Any]]:
    sales = []
    for key, (listing, _) in batch.items():
        if listing.sold_date is None:
            continue
        existing = stored[key].sale_source if key in stored else None
        if existing is None or existing == "presumed":
            sales.append(
                _sale_values(
                    ids[key],
                    listing.sold_date,
                    _observed(listing),
                    best_offer=listing.best_offer_accepted,
                    source=source,
                )
            )
    return sorted(sales, key=lambda sale: int(sale["listing_id"]))


def _upsert_sales(session: Session, sales: list[dict[str, Any]]) -> None:
    if not sales:
        return
    stmt = upsert_insert(session, SALES).values(change_seq=_next_change())
    # A sale seen on a sold page or imported beats one presumed from an ended auction.
    upsert = stmt.on_conflict_do_update(
        index_elements=["listing_id"],
        set_={name: stmt.excluded[name] for name in sales[0] if name != "listing_id"}
        | {"change_seq": _next_change()},
        where=SALES.c.source == "presumed",
    )
    session.execute(upsert, sales)


def _next_change() -> Any:
    """Past every sale's ``change_seq``: the report's kept sold points find what changed."""
    return select(func.coalesce(func.max(SALES.c.change_seq), 0) + 1).scalar_subquery()


def _set_status(session: Session, listing_ids: set[int], status: str, now: datetime) -> None:
    for chunk in batches(sorted(listing_ids), CHUNK):
        session.execute(
            update(LISTINGS)
            .where(LISTINGS.c.id.in_(chunk))
            .values(status=status, changed_at=now, saved_seq=next_saved())  # the ranking reads it
        )


def _normalized_values(norm: Normalized) -> dict[str, Any]:
    return {
        "sku": norm.sku,
        "category": norm.category.value if norm.category else None,
        "kind": norm.kind.value,
        "quantity": norm.quantity,
        "includes": [{"sku": i.sku, "quantity": i.quantity} for i in norm.includes],
        "confidence": norm.confidence,
        "config": norm.config.as_json() if norm.config else None,
        "part": norm.part,
    }


def _listing_values(
    listing: Listing, norm: Normalized, search: str | None, now: datetime
) -> dict[str, Any]:
    return {
        "marketplace": listing.marketplace,
        "item_id": listing.item_id,
        "title": listing.title,
        "url": listing.url,
        "search": search,
        "category_id": listing.category_id,
        "condition": listing.condition,
        "seller": listing.seller,
        "seller_feedback": listing.seller_feedback,
        "seller_positive_pct": listing.seller_positive_pct,
        "location": listing.location,
        "image_url": listing.image_url,
        "buying_format": listing.buying_format.value,
        "currency": listing.currency,
        "end_time": listing.end_time,
        "status": _status(listing),
        "first_seen": now,
        "last_seen": now,
        "changed_at": now,
        **_normalized_values(norm),
    }


def _observed(listing: Listing) -> dict[str, Any]:
    """The fields of an observation; a change in any of them is worth a new one."""
    return {
        "price": listing.price,
        "price_max": listing.price_max,
        "shipping": listing.shipping,
        "currency": listing.currency,
        "bids": listing.bids,
        "status": _status(listing),
    }


def _sale_values(
    listing_id: int, sold_date: date, seen: Mapping[Any, Any], *, best_offer: bool, source: str
) -> dict[str, Any]:
    return {
        "listing_id": listing_id,
        "sold_date": sold_date,
        "price": seen["price"],
        "shipping": seen["shipping"],
        "currency": seen["currency"],
        "best_offer_accepted": best_offer,
        "source": source,
    }


def _status(listing: Listing) -> str:
    return "sold" if listing.sold else "active"


def _price_key(seen: Mapping[Any, Any]) -> _PriceKey:
    return (
        seen["price"].quantize(CENT),
        _cents(seen["price_max"]),
        _cents(seen["shipping"]),
        seen["currency"],
        seen["bids"],
        seen["status"],
    )


def _cents(amount: Decimal | None) -> Decimal | None:
    """Money as the database keeps it (two decimals), so a re-saved price compares equal."""
    return None if amount is None else amount.quantize(CENT)


def _expire_listings(session: Session) -> None:
    """Listings and sales loaded earlier in this session must not show stale values."""
    for obj in list(session.identity_map.values()):
        if isinstance(obj, ListingRow | SaleRow):
            session.expire(obj)
