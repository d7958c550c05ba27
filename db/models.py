"""The database schema (SQLAlchemy 2.x typed ORM). Alembic migrations follow this module.

listings      one row per eBay item per marketplace, with its current normalization
observations  every distinct price/shipping/status seen, with time: the price history
sales         sold price and date (from sold pages, imports, or presumed from ended listings)
runs          each collection run: when, what, counts, errors
alerts        the outbox: one row per listing per channel, what was sent and when
ignores       items, sellers and title words the user asked never to see again
priced        each active listing as the ranker last priced it, and what that depended on
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal  # noqa: TC003  (SQLAlchemy reads Mapped[...] at runtime)
from typing import TYPE_CHECKING

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
    cast,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from db.types import ExactMoney, Tenths

if TYPE_CHECKING:
    from sqlalchemy.engine import Dialect

# Integer cents on both backends, never REAL (db/types.py).
Money = ExactMoney()


class UtcDateTime(TypeDecorator[datetime]):
    """``TIMESTAMP WITH TIME ZONE`` that always stores and returns aware UTC datetimes.

    SQLite keeps no zone, so without this it hands back naive datetimes that cannot be
    compared with ``now``; a naive value passed in is taken to be UTC on both backends.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return _as_utc(value)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return _as_utc(value)


def _as_utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    pass


class ListingRow(Base):
    __tablename__ = "listings"
    __table_args__ = (
        UniqueConstraint("marketplace", "item_id", name="uq_listings_marketplace_item"),
        Index("ix_listings_sku_kind", "sku", "kind"),
        Index("ix_listings_item_id", "item_id"),  # one item on two marketplaces: db.ranked
        # the active listings no SKU matched, counted by every ranking (migration 0014)
        Index(
            "ix_listings_unmatched",
            "status",
            sqlite_where=text("sku IS NULL"),
            postgresql_where=text("sku IS NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    marketplace: Mapped[str] = mapped_column(String(32))
    item_id: Mapped[str] = mapped_column(String(64))
    title: Mapped[str] = mapped_column(Text)
    url: Mapped[str] = mapped_column(Text)
    search: Mapped[str | None] = mapped_column(String(200))
    category_id: Mapped[str | None] = mapped_column(String(32))
    condition: Mapped[str | None] = mapped_column(String(200))
    seller: Mapped[str | None] = mapped_column(String(200))
    seller_feedback: Mapped[int | None] = mapped_column(Integer)
    seller_positive_pct: Mapped[Decimal | None] = mapped_column(Tenths())
    location: Mapped[str | None] = mapped_column(String(200))
    image_url: Mapped[str | None] = mapped_column(Text)
    buying_format: Mapped[str] = mapped_column(String(16))
    currency: Mapped[str] = mapped_column(String(3))
    end_time: Mapped[datetime | None] = mapped_column(UtcDateTime())
    # status: active | ended | sold | presumed_sold
    status: Mapped[str] = mapped_column(String(16), default="active")
    first_seen: Mapped[datetime] = mapped_column(UtcDateTime(), index=True)
    last_seen: Mapped[datetime] = mapped_column(UtcDateTime(), index=True)
    # normalization (recomputed when the catalog changes)
    sku: Mapped[str | None] = mapped_column(String(64), index=True)
    category: Mapped[str | None] = mapped_column(String(16))
    kind: Mapped[str] = mapped_column(String(16), default="other")
    quantity: Mapped[int] = mapped_column(Integer, default=1)
    includes: Mapped[list[dict[str, object]]] = mapped_column(JSON, default=list)
    confidence: Mapped[float] = mapped_column(Float, default=0.0)
    # a server's or board's configuration (core.models.ServerConfig.as_json), else NULL
    config: Mapped[dict[str, object] | None] = mapped_column(JSON, nullable=True)
    part: Mapped[str | None] = mapped_column(String(40), index=True)  # parts.toml id
    # The current state: the newest observation (by time, then id: ``db.latest``), kept by
    # every save, and when a field the ranking reads last changed (``last_seen`` moves on every
    # sighting, this only when the listing did).
    latest_observation_id: Mapped[int | None] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite")
    )
    changed_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), index=True)
    # A number past every other listing's, stamped by each statement that writes the row (a
    # sighting, a change, a new status, its newest observation; ``db.latest.next_saved``): the
    # ranking's kept rows find the listings saved since their last refresh by it, by index.
    saved_seq: Mapped[int | None] = mapped_column(
        BigInteger().with_variant(Integer, "sqlite"), index=True
    )
    # When a field that places its prices in the report's history last changed (SKU, category,
    # kind, lot size, where it ships from): the kept ``asking_days`` are then computed again.
    history_changed_at: Mapped[datetime | None] = mapped_column(UtcDateTime(), index=True)

    observations: Mapped[list[ObservationRow]] = relationship(
        back_populates="listing", order_by="ObservationRow.observed_at"
    )


class ObservationRow(Base):
    __tablename__ = "observations"
    __table_args__ = (Index("ix_observations_listing_time", "listing_id", "observed_at"),)

    id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"), primary_key=True)
    listing_id: Mapped[int] = mapped_column(ForeignKey("listings.id", ondelete="CASCADE"))
    run_id: Mapped[int | None] = mapped_column(ForeignKey("runs.id", ondelete="SET NULL"))
    observed_at: Mapped[datetime] = mapped_column(UtcDateTime(), index=True)
    price: Mapped[Decimal] = mapped_column(Money)
    price_max: Mapped[Decimal | None] = mapped_column(Money)
    shipping: Mapped[Decimal | None] = mapped_column(Money)
    currency: Mapped[str] = mapped_column(String(3))
    bids: Mapped[int | None] = mapped_column(Integer)
    status: Mapped[str] = mapped_column(String(16))

    listing: Mapped[ListingRow] = relationship(back_populates="observations")


class SaleRow(Base):
    __tablename__ = "sales"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    listing_id: Mapped[int] = mapped_column(
        ForeignKey("listings.id", ondelete="CASCADE"), unique=True
    )
    sold_date: Mapped[date] = mapped_column(Date, index=True)
    price: Mapped[Decimal] = mapped_column(Money)
    shipping: Mapped[Decimal | None] = mapped_column(Money)
    currency: Mapped[str] = mapped_column(String(3))
    best_offer_accepted: Mapped[bool] = mapped_column(Boolean, default=False)
    # source: sold_page | import | terapeak | presumed (a watched listing that ended)
    source: Mapped[str] = mapped_column(String(16))
    # Raised past every other sale's on each insert and update (``db/store.py``): which sales
    # changed since the report kept its sold points (``db/sold_points.py``). None: before 0011.
    change_seq: Mapped[int | None] = mapped_column(Integer, index=True)


class RunRow(Base):
    __tablename__ = "runs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    started_at: Mapped[datetime] = mapped_column(UtcDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    # status: running | ok | partial | failed | interrupted
    status: Mapped[str] = mapped_column(String(16), default="running")
    source: Mapped[str] = mapped_column(String(300))  # "web", "api", "offline:<dir>", "import"
    searches: Mapped[int] = mapped_column(Integer, default=0)
    requests: Mapped[int] = mapped_column(Integer, default=0)
    listings_seen: Mapped[int] = mapped_column(Integer, default=0)
    listings_new: Mapped[int] = mapped_column(Integer, default=0)
    observations_new: Mapped[int] = mapped_column(Integer, default=0)
    alerts_sent: Mapped[int] = mapped_column(Integer, default=0)
    # unreadable cards its pages had: skipped and named in a warning, the rest of each page kept
    cards_skipped: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    errors: Mapped[list[dict[str, object]]] = mapped_column(JSON, default=list)


class AlertRow(Base):
    """The outbox. ``status`` moves pending -> sending -> sent, or back to pending on failure."""

    __tablename__ = "alerts"
    __table_args__ = (Index("ix_alerts_listing_channel", "listing_id", "channel"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    listing_id: Mapped[int] = mapped_column(ForeignKey("listings.id", ondelete="CASCADE"))
    channel: Mapped[str] = mapped_column(String(64))
    rule: Mapped[str | None] = mapped_column(String(100))  # the rule's, or the saved plan's name
    # "deal": a listing a rule matched; "plan": a saved plan's best rig (``alerts/plan_outbox.py``)
    kind: Mapped[str] = mapped_column(String(8), default="deal", server_default="deal")
    landed_unit_price: Mapped[Decimal] = mapped_column(Money)
    currency: Mapped[str] = mapped_column(String(3))
    status: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    sent_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    run_id: Mapped[int | None] = mapped_column(ForeignKey("runs.id", ondelete="SET NULL"))
    payload: Mapped[dict[str, object]] = mapped_column(JSON, default=dict)


class KeyValueRow(Base):
    """Small persistent state: the Browse API token and daily call budget, leases."""

    __tablename__ = "state"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    value: Mapped[dict[str, object]] = mapped_column(JSON)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime())


class IgnoreRow(Base):
    """What the user never wants shown again: an item, a seller or a word in a title."""

    __tablename__ = "ignores"
    __table_args__ = (UniqueConstraint("kind", "value", name="uq_ignores_kind_value"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  # "item", "seller" or "title_word"
    value: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())


class PricedRow(Base):
    """A listing as ``rank`` last priced it (``rigscout/jobs/priced.py``), with what it read.

    Valid while the listing's newest observation and ``changed_at``, the basis (settings, FX,
    catalog, rules), the market digest of its SKU and the account label are the same, and
    until ``valid_until`` (an auction's next time bucket or its end). The columns are what
    the score needs, so a ranking reads them instead of pricing every listing again.
    """

    __tablename__ = "priced"
    # A ranking finds the rows priced against a market that moved by SKU, format and digest,
    # and reads what the new-account pattern counts of a seller's priced listings off an index
    # alone (``db.priced_rows.load_sellers_under``; migration 0017).
    __table_args__ = (
        Index("ix_priced_sku_digest", "sku", "auction", "digest"),
        Index(
            "ix_priced_seller_stake",
            "seller",
            "seller_feedback",
            "quantity",
            "unit_price",
            "account",
            "outcome",
        ),
    )

    listing_id: Mapped[int] = mapped_column(
        ForeignKey("listings.id", ondelete="CASCADE"), primary_key=True
    )
    observation_id: Mapped[int] = mapped_column(BigInteger().with_variant(Integer, "sqlite"))
    changed_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    basis: Mapped[str] = mapped_column(String(64))
    digest: Mapped[str] = mapped_column(String(64))  # "" where no market was read
    valid_until: Mapped[datetime | None] = mapped_column(UtcDateTime(), index=True)
    account: Mapped[str | None] = mapped_column(Text)  # the new-account label it carries
    # What the new-account pattern reads of the listing, as priced (migration 0014): a ranking
    # reads them for every priced row, where a join to the listings cost most of the time.
    seller: Mapped[str | None] = mapped_column(String(200))
    seller_feedback: Mapped[int | None] = mapped_column(Integer)
    quantity: Mapped[int | None] = mapped_column(Integer)
    # "priced", "part" (for parts, an accessory) or why it was left out ("no_price", …)
    outcome: Mapped[str] = mapped_column(String(24), index=True)
    sku: Mapped[str | None] = mapped_column(String(64))
    # The exact landed unit price (Decimal text): the asking price a market reads, a part's
    # price; ``landed`` is the price ranked (an auction's predicted end).
    unit_price: Mapped[str | None] = mapped_column(Text)
    asking: Mapped[bool] = mapped_column(Boolean, default=False)
    landed: Mapped[str | None] = mapped_column(Text)
    excluded: Mapped[bool] = mapped_column(Boolean, default=False)
    # What its title says (``ranking.rows.TitleReading``): a listing priced again
    # because its market moved is not read again.
    reading: Mapped[str | None] = mapped_column(Text)
    auction: Mapped[bool] = mapped_column(Boolean, default=False)
    # What the score reads, packed (``ranking.kept.shortlist.pack_inputs``): a ranking fetches
    # three values per listing, not eleven. The exact score is computed again for the shortlist.
    inputs: Mapped[bytes | None] = mapped_column(LargeBinary)


# The for-parts and accessory listings' priced rows by their unit price as a float: the
# cheapest are the first entries of this index, found without sorting all of them
# (``db.priced_rows.load_part_prices``; migration 0016). Partial, of the rows ``PART_ROWS``
# states, in the form a query repeats to use it: on SQLite "+outcome", which no other index
# serves (without statistics SQLite takes the outcome's index for any "outcome ="; and an
# index of every row led by the outcome was the one it took to read the priced listings, in
# price order, row by row: 0.7 s to 2.4 s).
APPROX_UNIT_PRICE = cast(PricedRow.unit_price, Float)


def outcome_rows(outcome: str) -> dict[str, str]:
    """The priced rows of ``outcome``, per dialect, in the form a query gives to read them off
    an index other than the outcome's: on SQLite "+outcome", which that index does not serve."""
    return {"sqlite": f"+outcome = '{outcome}'", "postgresql": f"outcome = '{outcome}'"}


PART_ROWS = outcome_rows("part")
Index(
    "ix_priced_part_price",
    APPROX_UNIT_PRICE,
    sqlite_where=text(PART_ROWS["sqlite"]),
    postgresql_where=text(PART_ROWS["postgresql"]),
)
# The priced rows (outcome "priced") as a query of ``ix_priced_seller_stake`` states them: on
# SQLite "+outcome", or it reads them by the outcome's index, row by row (0.34 s against 0.20 s
# for the sellers under 1,000 feedback at a million listings).
PRICED_ROWS = outcome_rows("priced")


class ScoreColumnsRow(Base):
    """The priced rows' score inputs kept as columns (``db/score_columns.py``): a base (every
    packed row at the time) and, after it, the changes each save made, in the order saved."""

    __tablename__ = "score_columns"

    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    base: Mapped[bool] = mapped_column(Boolean)
    width: Mapped[int] = mapped_column(Integer)  # values packed per listing when written
    ids: Mapped[bytes] = mapped_column(LargeBinary)  # int64, the listings written
    removed: Mapped[bytes] = mapped_column(LargeBinary)  # int64, the listings gone or unpacked
    skus: Mapped[str] = mapped_column(Text)  # JSON list: the SKU of each code
    codes: Mapped[bytes] = mapped_column(LargeBinary)  # int32, each written listing's SKU code
    inputs: Mapped[bytes] = mapped_column(LargeBinary)  # float64, ``width`` per written listing


class AskingDayRow(Base):
    """One SKU's landed asking range on one day that has ended, as the report's price history
    shows it (``rigscout/outputs/report/asking.py``: valid while its ``state`` row holds)."""

    __tablename__ = "asking_days"

    sku: Mapped[str] = mapped_column(String(64), primary_key=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    low: Mapped[str] = mapped_column(Text)  # Decimal text, the user's currency
    high: Mapped[str] = mapped_column(Text)


class SoldPointRow(Base):
    """One sale as the report's price history shows it: its SKU, day, landed unit price and
    weight (``rigscout/outputs/report/sold.py``: valid while its ``state`` row holds)."""

    __tablename__ = "sold_points"
    # A report reads them all in (SKU, day) order: by this index, not sorted (migration 0016).
    __table_args__ = (
        Index("ix_sold_points_sku_day", "sku", "day", "listing_id", "price", "weight"),
    )

    listing_id: Mapped[int] = mapped_column(Integer, primary_key=True)  # the sale's listing
    sku: Mapped[str] = mapped_column(String(64))
    day: Mapped[date] = mapped_column(Date, index=True)
    price: Mapped[str] = mapped_column(Text)  # Decimal text, the user's currency
    weight: Mapped[str] = mapped_column(Text)


class SearchLeaseRow(Base):
    """One row per saved search per run date; workers lease them with SKIP LOCKED."""

    __tablename__ = "search_leases"
    __table_args__ = (UniqueConstraint("run_key", "search", name="uq_lease_run_search"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    run_key: Mapped[str] = mapped_column(String(64))
    search: Mapped[str] = mapped_column(String(200))
    status: Mapped[str] = mapped_column(String(16), default="pending")  # pending|done|failed
    worker: Mapped[str | None] = mapped_column(String(200))
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime())
