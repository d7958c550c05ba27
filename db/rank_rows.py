"""Load what the ranker reads, as plain rows: active listings at their latest price, recent sales.

No rule lives here (no landed price, no median, no score: those are ``ranking/``'s); this module
only picks the newest observation per listing and the sales in the window. The same statements
run on SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
from datetime import UTC
from typing import TYPE_CHECKING, Any

from sqlalchemy import String, and_, cast, func, or_, select

from core.models import BuyingFormat, Included, ServerConfig
from db.latest import IS_LATEST, LATEST
from db.models import ListingRow, SaleRow
from db.ranked import RANKED, SHADOWED
from ranking.market import sales_days
from ranking.rows import ActiveRow, SoldRow

CHUNK = 500  # ids per IN (...) list: SQLite allows 999 parameters

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Sequence
    from datetime import date, datetime

    from sqlalchemy import ColumnElement
    from sqlalchemy.orm import Session

    from ranking.market import SalesDays

ACTIVE_COLUMNS = (
    ListingRow.id,
    ListingRow.item_id,
    ListingRow.marketplace,
    ListingRow.title,
    ListingRow.url,
    ListingRow.sku,
    ListingRow.kind,
    ListingRow.quantity,
    ListingRow.buying_format,
    LATEST.price,
    LATEST.currency,
    LATEST.shipping,
    LATEST.bids,
    ListingRow.end_time,
    # The JSON text, parsed here only when not empty: most listings include nothing, and
    # running the JSON type's processor on every row costs a third of the load.
    cast(ListingRow.includes, String),
    ListingRow.seller_feedback,
    ListingRow.seller_positive_pct,
    ListingRow.location,
    ListingRow.condition,
    ListingRow.image_url,
    ListingRow.seller,
    cast(ListingRow.config, String),
)


# An accessory that is a priced part (parts.toml): heatsinks, a power shelf. A part's id is
# never empty, and "> ''" lets SQLite seek the index on the part where "IS NOT NULL" read the
# whole table (3 % of the listings at a million: 0.14 s against 0.04 s).
_PRICED_PART = (ListingRow.kind == "accessory") & (ListingRow.part > "")


def load_active_rows(session: Session) -> list[ActiveRow]:
    """Every listing the ranker reads (``db.ranked``), with its newest observation."""
    stmt = select(*ACTIVE_COLUMNS).join(LATEST, IS_LATEST).where(RANKED)
    # Core execution and one fetch of every row: the ORM's row wrapping and a fetch per row
    # each add a tenth to the load and give nothing here.
    return [active_row(r) for r in session.connection().execute(stmt).all()]


def active_row(values: Sequence[Any]) -> ActiveRow:
    """The ``ACTIVE_COLUMNS`` of one listing as an ``ActiveRow`` (and its title's kept
    ``TitleReading`` after them, where the caller has one)."""
    # Positional, in ActiveRow's field order (tests/db/test_rank_rows.py reads them back).
    found = list(values)
    found[13] = _utc(found[13])
    found[14] = _included(found[14])
    found[21] = _config(found[21])
    return ActiveRow(*found)


def load_fixed_price_parts(session: Session) -> list[ActiveRow]:
    """Active listings of priced parts (heatsinks, power shelves) at a fixed price (a bill of
    materials is bought at a known price): ``sku`` is the part's id and ``quantity`` how many
    the listing sells."""
    columns = list(ACTIVE_COLUMNS)
    columns[5] = ListingRow.part
    stmt = (
        select(*columns)
        .join(LATEST, IS_LATEST)
        .where(
            ListingRow.status == "active",
            _PRICED_PART,
            ListingRow.buying_format != BuyingFormat.AUCTION.value,
            ~SHADOWED,
        )
    )
    rows = []
    for r in session.connection().execute(stmt).all():
        values = list(r)
        values[13] = _utc(values[13])
        values[14] = ()
        values[21] = None
        rows.append(ActiveRow(*values))
    return rows


def load_part_sales(session: Session, *, now: datetime, days: int) -> list[SoldRow]:
    """Sales of priced parts in the last ``days`` (their ``sku`` is the part's id).

    The parts' listings are picked first (``IN``): joined from the sales of the window, SQLite
    read every sale of it (0.86 s against 0.31 s at a million listings)."""
    today = now.astimezone(UTC).date() if now.tzinfo else now.date()
    parts = select(ListingRow.id).where(_PRICED_PART)
    stmt = (
        select(*SOLD_COLUMNS)
        .join(ListingRow, ListingRow.id == SaleRow.listing_id)
        .where(
            *_sold_on(sales_days(today, days)),
            SaleRow.listing_id.in_(parts),
            _PRICED_PART,
        )
    )
    return [sold_row(values) for values in session.connection().execute(stmt).all()]


def load_active_count(session: Session) -> int:
    """Active listings in the store, matched or not."""
    return int(
        session.execute(select(func.count()).where(ListingRow.status == "active")).scalar_one()
    )


def load_unmatched_count(session: Session) -> int:
    """Active listings no catalog SKU matched (``rigscout catalog unmatched`` lists them)."""
    stmt = select(func.count()).where(ListingRow.status == "active", ListingRow.sku.is_(None))
    return int(session.execute(stmt).scalar_one())


# A sale as the market reads it: its listing's SKU, lot size and included GPUs, and the sale;
# then what kind of listing it was, its priced part and its server configuration.
SOLD_COLUMNS = (
    ListingRow.sku,
    ListingRow.quantity,
    cast(ListingRow.includes, String),  # parsed only when not empty, as for active rows
    SaleRow.price,
    SaleRow.currency,
    SaleRow.sold_date,
    SaleRow.shipping,
    SaleRow.best_offer_accepted,
    SaleRow.source,
    ListingRow.kind,
    ListingRow.part,
    cast(ListingRow.config, String),
)


def sold_row(values: Sequence[Any]) -> SoldRow:
    """The ``SOLD_COLUMNS`` of one sale as a ``SoldRow`` (a priced part's: kind "part")."""
    sku, quantity, includes, price, currency, sold_date, shipping, best_offer, source = values[:9]
    kind, part, config = values[9:]
    if kind != "item" and part:
        return SoldRow(
            part, quantity, price, currency, sold_date, shipping, bool(best_offer), source, "part"
        )
    return SoldRow(
        str(sku),
        quantity,
        price,
        currency,
        sold_date,
        shipping,
        bool(best_offer),
        source,
        includes=_included(includes),
        config=_config(config),
    )


def load_sold_rows(
    session: Session,
    *,
    now: datetime,
    window_days: int,
    server_days: int = 0,
    skus: Collection[str] | None = None,
) -> list[SoldRow]:
    """Sales of catalog items in the window: cards and boards, servers with what they came
    with (over ``server_days`` when longer: a thin server market borrows from it), and the
    priced parts' sales (heatsinks, power shelves) over the same longer window; ``skus``: only
    the sales of listings read as one of these SKUs or priced parts."""
    windows = [(window_days, server_days)]
    (found,) = load_sold_rows_over(session, now=now, windows=windows, skus=skus)
    return found


def load_sold_rows_over(
    session: Session,
    *,
    now: datetime,
    windows: Sequence[tuple[int, int]],
    skus: Collection[str] | None = None,
) -> tuple[list[SoldRow], ...]:
    """``load_sold_rows`` for each (window days, server days) of ``windows``, in one read: a
    sale in several is read, landed and made a ``SoldRow`` once (the auction model's fit
    reads a year of sales and the markets the last weeks of them, after the same run)."""
    today = now.astimezone(UTC).date() if now.tzinfo else now.date()
    within = [_sold_within(today, days, server) for days, server in windows]
    stmt = (
        select(*SOLD_COLUMNS, *within)
        .join(ListingRow, ListingRow.id == SaleRow.listing_id)
        .where(or_(*within))
    )
    if skus is not None:
        wanted = sorted(skus)
        stmt = stmt.where(ListingRow.sku.in_(wanted) | ListingRow.part.in_(wanted))
    found: tuple[list[SoldRow], ...] = tuple([] for _ in windows)
    count = len(SOLD_COLUMNS)
    for values in session.connection().execute(stmt).all():
        row = sold_row(values[:count])
        for rows, inside in zip(found, values[count:], strict=True):
            if inside:
                rows.append(row)
    return found


def _sold_on(days: SalesDays) -> tuple[ColumnElement[bool], ColumnElement[bool]]:
    """A sale of these days (``ranking.market.sales_days``: the markets' rule)."""
    return SaleRow.sold_date >= days.first, SaleRow.sold_date < days.end


def _sold_within(today: date, window_days: int, server_days: int) -> ColumnElement[bool]:
    """A sale ``load_sold_rows`` reads for this window (see there)."""
    recent = and_(*_sold_on(sales_days(today, window_days)))
    return and_(
        *_sold_on(sales_days(today, max(window_days, server_days))),
        (
            (ListingRow.kind == "item")
            & ListingRow.sku.is_not(None)
            & (recent | (ListingRow.category == "server"))
        )
        | _PRICED_PART,
    )


def load_includes(session: Session, listing_ids: Iterable[int]) -> dict[int, tuple[Included, ...]]:
    """The GPUs each of these server listings comes with (listings with none are left out)."""
    ids = sorted(set(listing_ids))
    found: dict[int, tuple[Included, ...]] = {}
    for start in range(0, len(ids), CHUNK):
        stmt = select(ListingRow.id, cast(ListingRow.includes, String)).where(
            ListingRow.id.in_(ids[start : start + CHUNK])
        )
        for listing_id, text in session.execute(stmt):
            if items := _included(text):
                found[listing_id] = items
    return found


def _included(text: str | None) -> tuple[Included, ...]:
    if not text or text == "[]":
        return ()
    raw = json.loads(text)
    if not isinstance(raw, list):
        return ()
    return tuple(
        Included(str(i["sku"]), int(i.get("quantity", 1)))
        for i in raw
        if isinstance(i, dict) and i.get("sku")
    )


def _config(text: str | None) -> ServerConfig | None:
    if not text or text == "null":
        return None
    raw = json.loads(text)
    return ServerConfig.from_json(raw) if isinstance(raw, dict) else None


def _utc(moment: datetime | None) -> datetime | None:
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment
