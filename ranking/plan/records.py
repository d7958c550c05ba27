"""The planner's records: what it may buy (``Offer``, ``PartOffer``), what it is asked
(``Target``), where GPUs go (``Host``) and what fits there (``Rig``), and what it answers
(``Plan``, its ``PlanPart`` listings and ``BomLine`` needs). The bottom of the planner's wing:
every other module of ``ranking.plan`` reads these, and these read none of them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

from ranking.titles import HEATSINK

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from datetime import datetime

    from core.models import Included, ServerConfig
    from ranking.catalog import Sku
    from ranking.plan.rules import Workstation
    from ranking.titles import PartsTable

ZERO = Decimal(0)


@dataclass(frozen=True, slots=True)
class Offer:
    """One listing the planner may buy: ``units`` in the lot at ``unit_price`` landed each."""

    listing_id: int
    item_id: str
    url: str
    title: str
    sku: str
    units: int
    unit_price: Decimal
    price_basis: str = "fixed"  # "fixed", or "predicted": a running auction at its likely end
    end_time: datetime | None = None
    freight_estimated: bool = False
    includes: tuple[Included, ...] = ()
    notes: tuple[str, ...] = ()  # the ranker's warning flags, as a buyer reads them
    marketplace: str = "EBAY_US"
    config: ServerConfig | None = None  # a server's: what it comes with besides GPUs
    heatsink: str = "unknown"  # an SXM module's: "yes", "no" (sold without) or "unknown"
    flags: tuple[str, ...] = ()  # the ranker's flag codes (``notes`` are their words)
    seller_feedback: int | None = None

    @property
    def price(self) -> Decimal:
        return self.unit_price * self.units

    @property
    def auction(self) -> bool:
        return self.price_basis == "predicted"


@dataclass(frozen=True, slots=True)
class Target:
    """What the rig must do. ``budget`` is in the user's currency; ``gpus`` counts cards."""

    vram_gb: float
    profile: str = "llm-inference"
    budget: Decimal | None = None
    fp16_tflops: float | None = None
    gpus: int | None = None
    form_factor: str = "any"  # "any", "pcie", "sxm2", "sxm4"
    max_auctions: int | None = None
    limit: int = 5
    # "measure": the profile's price per unit of its own measure first (plan.toml [order]);
    # "price": the cheapest rig first
    sort: str = "measure"
    workstation: Workstation | None = None  # None: ranking/plan/plan.toml's
    boards: bool = False  # also plan on bare GPU boards (for a chassis you already have)


@dataclass(frozen=True, slots=True)
class PlanPart:
    """One listing in a plan (``item_id`` None: your own workstation)."""

    role: str  # "host" or "gpu"
    sku: str
    name: str
    units: int
    price: Decimal
    item_id: str | None = None
    url: str | None = None
    price_basis: str = "fixed"
    end_time: datetime | None = None
    freight_estimated: bool = False
    included: int = 0  # a server's GPUs that come with it
    listing_id: int | None = None
    marketplace: str = "EBAY_US"


@dataclass(frozen=True, slots=True)
class Plan:
    """A complete rig: every part with its listing, the totals a buyer compares, and why."""

    total: Decimal
    currency: str
    host: PlanPart
    gpu_sku: str
    gpu_name: str
    cards: int
    gpus: tuple[PlanPart, ...]
    vram_gb: float
    fp16_tflops: float
    bandwidth_gbs: float
    per_vram_gb: Decimal | None
    per_fp16_tflops: Decimal | None
    topology: str
    auctions: int
    warnings: tuple[str, ...] = ()
    explanation: str = ""
    order: float = field(default=0.0, compare=False)
    bom: tuple[BomLine, ...] = ()  # what else it needs to run: power shelf, CPUs, RAM, heatsinks
    measure: str = ""  # what plans are ordered by per dollar (plan.toml [order] measure)

    @property
    def parts(self) -> tuple[PlanPart, ...]:
        return (self.host, *self.gpus)


@dataclass(frozen=True, slots=True)
class Host:
    """Where the GPUs go: a server or board listing, or the buyer's own workstation."""

    sku: str
    name: str
    offer: Offer | None  # None: your own workstation
    gpu_slots: int
    form_factor: str  # "PCIe", "SXM2", "SXM4"
    slot_width: int | None
    psu_watts: int | None
    power_supply: str  # "ac", "ocp-12v", "none"
    topology: str  # the catalog's interconnect, or the workstation's wording
    included: Sku | None = None  # the GPUs a server comes with (one SKU)
    included_units: int = 0
    notes: str = ""
    family: str = ""  # the catalog family (parts.toml maps it to a CPU platform)

    @property
    def price(self) -> Decimal:
        return self.offer.price if self.offer else ZERO

    @property
    def free_slots(self) -> int:
        return max(self.gpu_slots - self.included_units, 0)

    @property
    def needs_power_shelf(self) -> bool:
        """A 12 V host whose listing does not include the OCP power shelf it runs from."""
        config = self.offer.config if self.offer else None
        return self.power_supply == "ocp-12v" and not (config and config.power_shelf)

    @property
    def heatsinks(self) -> str:
        """What the host listing says of its GPU heatsinks ("yes", "no", "unknown"); "none"
        where no module needs one (a PCIe host, your own workstation)."""
        if not self.form_factor.startswith("SXM") or self.offer is None:
            return "none"
        config = self.offer.config
        return config.heatsinks if config is not None else "unknown"


@dataclass(frozen=True, slots=True)
class Rig:
    """A host with ``cards`` GPUs of one SKU (``added`` bought, the rest included): it fits."""

    host: Host
    gpu: Sku
    cards: int
    added: int
    power_limited: bool
    vram_gb: float
    fp16_tflops: float
    bandwidth_gbs: float


@dataclass(frozen=True, slots=True)
class PartOffer:
    """An active listing of a priced part (an accessory: heatsinks, a power shelf)."""

    listing_id: int
    item_id: str
    url: str
    title: str
    part: str  # parts.toml id
    units: int
    unit_price: Decimal  # landed, user's currency

    @property
    def price(self) -> Decimal:
        return self.unit_price * self.units


def cheapest_lots(offers: Iterable[PartOffer]) -> tuple[PartOffer, ...]:
    """Of a part's listings, the cheapest of each lot size (by price, then listing id): all a
    bill of materials can buy. Lots of one size cost the same number of lots for any count,
    so the cheapest of them is the cheapest way to buy that count from them; and it has the
    lowest unit price of its size (``PartPrices.heatsink``). A million-listing store holds
    thousands of heatsink listings in a few lot sizes."""
    best: dict[int, PartOffer] = {}
    for offer in offers:
        kept = best.get(offer.units)
        if kept is None or (offer.price, offer.listing_id) < (kept.price, kept.listing_id):
            best[offer.units] = offer
    return tuple(best[units] for units in sorted(best))


@dataclass(frozen=True, slots=True)
class PartPrices:
    """What the planner prices parts with: listings (those it can buy: ``cheapest_lots``), the
    parts' sold medians, the estimates."""

    table: PartsTable
    offers: Mapping[str, Sequence[PartOffer]] = field(default_factory=dict)
    markets: Mapping[str, Decimal] = field(default_factory=dict)  # unit medians

    def unit(self, code: str) -> tuple[Decimal, str]:
        """One unit of a part when no listing is bought: its market, else its estimate."""
        return self.table.unit_price(code, self.markets)

    def heatsink(self) -> tuple[Decimal, PartOffer | None]:
        """One SXM2 heatsink: the cheapest listing's unit price (heatsinks sell in lots of
        four), else the market or the estimate. Linear, so the planner's search and the
        bill it prints agree."""
        listings = self.offers.get(HEATSINK, ())
        if listings:
            best = min(listings, key=lambda o: (o.unit_price, o.listing_id))
            return best.unit_price, best
        return self.unit(HEATSINK)[0], None


@dataclass(frozen=True, slots=True)
class BomLine:
    """One thing the rig needs: what, how many, what it costs and where that figure is from."""

    item: str
    units: int
    price: Decimal  # for all ``units``
    source: str  # "listing", "market" (sold median in the store) or "estimate"
    item_id: str | None = None
    url: str | None = None
    note: str = ""  # where an estimate comes from
    instead: str = ""  # what a buyer may build instead (parts.toml)
