"""The plain rows the ranker reads: active listings at their latest price, and recent sales.

The store loads them (``db/rank_rows.py``); the rules in ``ranking/`` never touch a database, so
every rule can be tested with rows built by hand. Money is ``Decimal`` in the row's currency.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import date, datetime
    from decimal import Decimal

    from core.models import Included, ServerConfig


@dataclass(frozen=True, slots=True)
class TitleReading:
    """What a listing's title says, as pricing reads it (``ranking.titles.Signals.read``): the
    signal codes it raises on a card with display outputs and on a headless one, and what it
    says of a heatsink ("yes", "no" or "unknown", as ``ranking.titles.facts`` reads it).
    A ranking keeps it with the listing's priced row, so a listing priced again because its
    market moved is not read again (the rules are in the pricing basis; a new title changes
    the listing)."""

    outputs: tuple[str, ...]
    headless: tuple[str, ...]
    heatsink: str

    def codes(self, *, headless: bool = False) -> tuple[str, ...]:
        return self.headless if headless else self.outputs

    def to_text(self) -> str:
        """``"for_parts no_display|for_parts|unknown"``: codes are single words."""
        return f"{' '.join(self.outputs)}|{' '.join(self.headless)}|{self.heatsink}"

    @classmethod
    def from_text(cls, text: str) -> TitleReading:
        """What ``to_text`` wrote; a ``ValueError`` where it is not that."""
        outputs, headless, heatsink = text.split("|")
        if heatsink not in ("yes", "no", "unknown"):
            raise ValueError(f"not a title reading: {text!r}")
        return cls(tuple(outputs.split()), tuple(headless.split()), heatsink)


@dataclass(frozen=True, slots=True)
class ActiveRow:
    """One active listing with its newest observation (price, shipping, bids)."""

    listing_id: int
    item_id: str
    marketplace: str
    title: str
    url: str
    sku: str | None
    kind: str  # core.models.Kind value
    quantity: int
    buying_format: str  # core.models.BuyingFormat value
    price: Decimal
    currency: str
    shipping: Decimal | None = None  # None: unknown (freight, not specified, pickup)
    bids: int | None = None
    end_time: datetime | None = None
    includes: tuple[Included, ...] = ()
    seller_feedback: int | None = None
    seller_positive_pct: Decimal | None = None
    location: str | None = None
    condition: str | None = None
    image_url: str | None = None
    seller: str | None = None
    config: ServerConfig | None = None  # a server's: what else it comes with
    # What its title says, as kept with its priced row (None: read from the title).
    reading: TitleReading | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class AskingRow:
    """The lowest and highest asking totals (price plus shipping, as listed) of one catalog
    item's listings on one UTC day, among those alike in what turns a total into a landed unit
    price: currency, units in the lot, whether shipping is known, and where they ship from."""

    sku: str
    category: str  # core.models.Category value
    day: date
    quantity: int
    currency: str
    shipping_known: bool
    low: Decimal  # price + shipping (shipping left out when unknown)
    high: Decimal
    marketplace: str = "EBAY_US"
    location: str | None = None  # where they ship from: an unknown shipping's freight


@dataclass(frozen=True, slots=True)
class SoldRow:
    """One sale in the window: of a catalog item (a server with what it came with), or of a
    priced part."""

    sku: str
    quantity: int
    price: Decimal
    currency: str
    sold_date: date
    shipping: Decimal | None = None
    best_offer_accepted: bool = False  # the price shown is the asking price: an upper bound
    source: str = "page"  # "page", "api", "import" or "presumed" (a watched listing that ended)
    # "item"; "part": a priced part's sale (``sku`` is its parts.toml id, ``quantity`` parts)
    kind: str = "item"
    includes: tuple[Included, ...] = ()  # a server's GPUs (its sale is not a card market's)
    config: ServerConfig | None = None

    @property
    def own_market(self) -> bool:
        """A sale of the SKU alone: no part's, no server's sold with GPUs."""
        return self.kind == "item" and not self.includes
