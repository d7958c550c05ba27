"""Frozen domain records passed between the pipeline stages.

Money is always ``Decimal`` in the listing's own currency; a record never holds a float price.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import date, datetime
    from decimal import Decimal


class BuyingFormat(StrEnum):
    """How a listing is sold. A Buy It Now listing that also takes offers is ``BEST_OFFER``."""

    AUCTION = "auction"
    BUY_IT_NOW = "buy_it_now"
    BEST_OFFER = "best_offer"


class Kind(StrEnum):
    """What a listing really is, whatever its title says."""

    ITEM = "item"  # the hardware itself (a card, a board, a server)
    ACCESSORY = "accessory"  # heatsink, fan, shroud, riser, bridge, adapter, empty box...
    FOR_PARTS = "for_parts"  # broken, not working, as-is, for parts
    OTHER = "other"  # not our hardware at all


class Category(StrEnum):
    GPU = "gpu"
    SERVER = "server"
    BOARD = "board"


class Mode(StrEnum):
    """Which results a saved search collects."""

    ACTIVE = "active"
    SOLD = "sold"


@dataclass(frozen=True, slots=True)
class Listing:
    """One eBay listing as seen on one page or API response, at one moment.

    Invariants: ``price`` is the low end when eBay shows a range and ``price_max`` the high
    end (else None); ``shipping`` is 0 for free shipping and None when unknown (freight,
    "not specified", local pickup); ``sold_date`` is set only for sold listings.
    """

    item_id: str
    title: str
    url: str
    price: Decimal
    currency: str
    buying_format: BuyingFormat
    marketplace: str = "EBAY_US"
    price_max: Decimal | None = None
    shipping: Decimal | None = None
    shipping_note: str | None = None
    best_offer: bool = False
    bids: int | None = None
    end_time: datetime | None = None
    sold_date: date | None = None
    best_offer_accepted: bool = False
    condition: str | None = None
    seller: str | None = None
    seller_feedback: int | None = None
    seller_positive_pct: Decimal | None = None
    location: str | None = None
    image_url: str | None = None
    category_id: str | None = None

    @property
    def sold(self) -> bool:
        return self.sold_date is not None

    @property
    def total(self) -> Decimal | None:
        """Price plus shipping, or None while shipping is unknown."""
        return None if self.shipping is None else self.price + self.shipping


@dataclass(frozen=True, slots=True)
class Included:
    """GPUs that come with a server listing."""

    sku: str
    quantity: int


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """What a server listing says it comes with, besides its GPUs (``Normalized.includes``).

    ``None`` is "the title does not say"; 0 (or ``"no"``) is "the title says none". Read by
    ``ranking/titles/server_config.py`` from the title; the ranker compares a server with sales of
    the same configuration, or with its chassis plus the parts it includes.
    """

    heatsinks: str = "unknown"  # GPU heatsinks: "yes", "no" or "unknown"
    # the CPUs' coolers as the title names them ("CPU heatsinks", "no CPU cooler"); on a PCIe
    # host a plain "heatsinks" means them too (``coolers``)
    cpu_coolers: str = "unknown"
    cpus: int | None = None
    cpu_model: str | None = None  # "E5-2680 v4", "Gold 6138"
    ram_gb: int | None = None
    psus: int | None = None
    psu_watts: int | None = None
    power_shelf: bool = False  # an OCP 12 V power shelf comes with it
    drives: str | None = None  # as the title words them: "2x 1.6TB NVMe"
    board: str | None = None  # a system or GPU board the title names: "X10DRG-O-PCIE"

    def config_class(self, *, gpus: bool = False) -> str:
        """What it is in one word: "gpus" (sold with its GPUs), "cpus" (with CPUs or RAM),
        "heatsinks" (GPU heatsinks, no CPUs) or "barebone"."""
        if gpus:
            return "gpus"
        if self.cpus or self.ram_gb:
            return "cpus"
        return "heatsinks" if self.heatsinks == "yes" else "barebone"

    def coolers(self, *, sxm: bool) -> str:
        """What the listing says of its CPU coolers ("yes", "no", "unknown"): as the title
        names them, else, on a host whose GPUs bring their own heatsinks (not ``sxm``), what
        it says of its heatsinks."""
        if self.cpu_coolers != "unknown" or sxm:
            return self.cpu_coolers
        return self.heatsinks

    def as_json(self) -> dict[str, object]:
        return {name: getattr(self, name) for name in self.__slots__}

    def tag(self, *, gpus: bool = False) -> str:
        """The table's short note: "with GPUs", "CPUs+RAM", "heatsinks" or "barebone"."""
        return {"gpus": "with GPUs", "cpus": "CPUs+RAM", "heatsinks": "heatsinks"}.get(
            self.config_class(gpus=gpus), "barebone"
        )

    @classmethod
    def from_json(cls, data: dict[str, object] | None) -> ServerConfig | None:
        if not data:
            return None
        return cls(**{k: v for k, v in data.items() if k in cls.__slots__})  # type: ignore[arg-type]

    def describe(self, *, sxm: bool = True) -> str:
        """ "barebone: no CPUs, RAM or heatsinks" or "2x Gold 6138, 192 GB RAM, no heatsinks".
        ``sxm``: the host takes SXM modules, whose heatsinks a buyer must budget (a PCIe
        host's cards bring their own)."""
        said = []
        if self.cpus:
            said.append(f"{self.cpus}x {self.cpu_model}" if self.cpu_model else f"{self.cpus} CPUs")
        if self.ram_gb:
            said.append(f"{self.ram_gb} GB RAM")
        if sxm and self.heatsinks == "yes":
            said.append("GPU heatsinks")
        if self.power_shelf:
            said.append("12 V power shelf")
        if self.psus or self.psu_watts:
            watts = f" {self.psu_watts} W" if self.psu_watts else ""
            said.append(f"{self.psus or 1}x{watts} PSU")
        if self.drives:
            said.append(self.drives)
        missing = [
            name
            for name, none in (
                ("CPUs", not self.cpus),
                ("RAM", not self.ram_gb),
                ("heatsinks", sxm and self.heatsinks != "yes"),
                ("CPU coolers", self.coolers(sxm=sxm) == "no"),
                ("PSUs", self.psus == 0),  # the title says none (unknown is not "none")
            )
            if none
        ]
        if not said:
            return f"barebone: no {_listed(missing)}"
        if missing:
            said.append(f"no {_listed(missing)}")
        return ", ".join(said)


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


@dataclass(frozen=True, slots=True)
class Normalized:
    """What a title really is: the catalog SKU (or None), its kind and how many units.

    ``quantity`` counts units of ``sku`` in the listing (a "lot of 4" is 4); ``includes``
    lists the GPUs that come with a server or board; ``confidence`` is in [0, 1].
    """

    title: str
    sku: str | None
    category: Category | None
    kind: Kind
    quantity: int = 1
    includes: tuple[Included, ...] = ()
    confidence: float = 0.0
    config: ServerConfig | None = None  # a server's or board's: what else comes with it
    part: str | None = None  # an accessory that is a priced part (parts.toml): its id

    def as_json(self) -> dict[str, object]:
        """The stable ``rigscout normalize`` contract."""
        return {
            "title": self.title,
            "sku": self.sku,
            "category": self.category.value if self.category else None,
            "kind": self.kind.value,
            "quantity": self.quantity,
            "includes": [{"sku": i.sku, "quantity": i.quantity} for i in self.includes],
            "confidence": round(self.confidence, 3),
            "config": self.config.as_json() if self.config else None,
            "part": self.part,
        }


@dataclass(frozen=True, slots=True)
class SavedSearch:
    """One saved search from the config file."""

    name: str
    query: str
    category_id: str | None = None
    marketplace: str = "EBAY_US"
    modes: tuple[Mode, ...] = (Mode.ACTIVE,)
    min_price: Decimal | None = None
    max_price: Decimal | None = None
    buying: str = "all"  # "all", "buy_it_now" or "auction"
    condition: str | None = None  # "new", "used", "for_parts" or None
    location: str | None = None  # "domestic", "worldwide" or None
    max_pages: int = 3


@dataclass(frozen=True, slots=True)
class Deal:
    """One ranked listing with the numbers behind its score and a sentence a buyer believes."""

    listing_id: int
    item_id: str
    marketplace: str
    title: str
    url: str
    sku: str
    sku_name: str
    category: Category
    quantity: int
    buying_format: BuyingFormat
    landed_unit_price: Decimal  # in the user's currency
    currency: str
    shipping_known: bool
    score: float
    reason: str
    discount: float | None = None  # 0.31 = 31 % under the market baseline
    baseline: Decimal | None = None
    baseline_count: int = 0
    baseline_source: str | None = None  # "sold", "active" or None
    end_time: datetime | None = None
    image_url: str | None = None
    metrics: dict[str, float] = field(default_factory=dict)
    # How the landed price was reached: "fixed" (asking price), "predicted" (a running
    # auction at its predicted end; ``current_bid`` and ``predicted_low``/``_high`` are set)
    # or "rig" (a saved plan's whole rig: the total of its parts, no market of its own).
    price_basis: str = "fixed"
    current_bid: Decimal | None = None  # landed unit price at the current bid
    predicted_low: Decimal | None = None
    predicted_high: Decimal | None = None
    # Strength of the market reference: "strong", "thin", "asking" (asking prices only), "none".
    evidence: str = "none"
    flags: tuple[Flag, ...] = ()
    freight_estimated: bool = False  # an estimated freight was added to ``landed_unit_price``
    needs_host: str | None = None  # "SXM2" / "SXM4": a loose module that needs such a server
    previous_price: Decimal | None = None  # a price-drop alert: the price last alerted
    seller: str | None = None
    seller_feedback: int | None = None
    location: str | None = None  # where it ships from, as the listing says
    # a server's: what it comes with besides its GPUs, and its reference line by line
    # ((label, amount, source): source "market", "estimate" or "sales"; they sum to baseline)
    config: ServerConfig | None = None
    config_text: str | None = None  # config as a buyer reads it (ServerConfig.describe)
    gpus_included: int = 0  # a server's: the GPUs that come with it
    reference: tuple[tuple[str, Decimal, str], ...] = ()


# A flag's severity. "exclude": out of the deals; "warn": shown, costs points; "verify": shown,
# costs points, and its discount is no claim until the buyer has checked (no credit in the
# score, no alert as a strong deal).
EXCLUDE, WARN, VERIFY = "exclude", "warn", "verify"
SEVERITIES = (EXCLUDE, WARN, VERIFY)


@dataclass(frozen=True, slots=True)
class Flag:
    """A risk signal on a listing: ``severity`` "exclude" keeps it out of the deals unless asked."""

    code: str  # stable id, e.g. "read_description", "check_before_buying"
    label: str  # what a buyer reads, e.g. "title says 'read description'"
    severity: str  # SEVERITIES
