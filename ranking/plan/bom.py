"""A rig's bill of materials: what it needs to power on and run besides the host and its GPUs.

The T181-G20 takes 12 V DC from an OCP power shelf (guide 000: "expects external 12V power");
a barebone needs CPUs, their coolers and RAM; an SXM module sold without its heatsink needs
one. Each line is bought from the cheapest listing of that part in the store ("listing N"),
else priced at the part's market from its sales, else at the documented estimate of
``parts.toml`` ("estimate").
What the host listing already includes adds nothing. Pure: offers and prices in, lines out.
"""

from __future__ import annotations

import hashlib
from decimal import Decimal
from typing import TYPE_CHECKING

from core.models import Category, ServerConfig
from ranking.plan.records import BomLine, PartOffer, PartPrices
from ranking.titles import HEATSINK, POWER_SHELF, read_title

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from core.models import Included
    from ranking.catalog import Sku
    from ranking.plan.records import Host

ZERO = Decimal(0)
CENT = Decimal("0.01")


def host_bom(host: Host, prices: PartPrices) -> tuple[BomLine, ...]:
    """What the host needs besides GPUs: its power shelf, its PSUs where the listing says it
    comes without them, CPUs, their coolers and RAM, where not included."""
    offer = host.offer
    if offer is None:
        return ()  # your own workstation runs already
    config = offer.config
    lines = []
    if host.needs_power_shelf:
        lines.append(_bought(POWER_SHELF, 1, prices))
    psus = prices.table.psus.get(host.family)
    if config is not None and config.psus == 0 and psus is not None:
        lines.append(_bought(*psus, prices))
    platform = prices.table.platform(host.family)
    if platform is not None and not (config and config.cpus):
        cpus = prices.table.bom_cpus
        label = f"{cpus} CPUs ({platform.code})"
        lines.append(BomLine(label, cpus, platform.cpus(cpus), "estimate", note=platform.source))
    count = cpu_coolers_needed(host, prices.table.bom_cpus)
    if platform is not None and count:
        label = f"{count} CPU coolers ({platform.code})"
        price = platform.coolers(count)
        lines.append(BomLine(label, count, price, "estimate", note=platform.cooler_source))
    if platform is not None and not (config and config.ram_gb):
        gb = prices.table.bom_ram_gb
        lines.append(
            BomLine(f"{gb} GB RAM", gb, platform.ram(gb), "estimate", note=platform.source)
        )
    return tuple(lines)


def cpu_coolers_needed(host: Host, bom_cpus: int) -> int:
    """How many CPU coolers to budget when the listing says it has none
    (``ServerConfig.coolers``), or has no CPUs and does not say it has coolers (installed CPUs
    come under theirs): one per CPU it has, else one per CPU the bill buys (``bom_cpus``).
    0 for your own workstation."""
    if host.offer is None:
        return 0
    config = host.offer.config
    state = config.coolers(sxm=host.form_factor.startswith("SXM")) if config else "unknown"
    if state == "no" or (state == "unknown" and not (config and config.cpus)):
        return config.cpus if config and config.cpus else bom_cpus
    return 0


def host_class(includes: Sequence[Included], config: ServerConfig | None) -> int:
    """A number shared only by server listings the planner tells apart by price alone: the same
    GPUs included, the same heatsinks (``Host.heatsinks``) and the same bill of materials (what
    ``host_bom`` reads: the CPUs and their coolers, RAM, the power shelf). Of listings alike in
    SKU, lot, format and class, only the cheapest can make a plan
    (``ranking.kept.shortlist.plannable``). 48 bits, so a float64 column holds it exactly."""
    c = config or ServerConfig()
    gpus = sorted((i.sku, i.quantity) for i in includes)
    key = repr((gpus, c.heatsinks, c.cpu_coolers, c.cpus or 0, bool(c.ram_gb), c.power_shelf))
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=6).digest(), "big")


def plan_kind(
    sku: Sku, heatsink: str, includes: Sequence[Included], config: ServerConfig | None
) -> int:
    """What the planner tells apart in a listing besides its SKU, price, lot and format
    (``PricedColumns.kind``): a GPU's 1 where its listing comes with a heatsink (``heatsink``,
    as ``module_heatsink`` reads it), else 0; a server's ``host_class``."""
    if sku.category is Category.GPU:
        return int(heatsink == "yes")
    return host_class(includes, config)


def module_heatsink(title: str, flags: Iterable[str], *, said: str | None = None) -> str:
    """What a module's listing says of its heatsink: "no" (the ranker flagged it sold without:
    ``flags`` are its flag codes), "yes" (the title says it comes with one), else "unknown" —
    as ``ranking.titles.facts`` reads it ("missing heatsink" and "heatsink sold separately"
    are no heatsink); ``said``: that reading, where the caller has it already."""
    if "no_heatsink" in flags:
        return "no"
    return said if said is not None else read_title(title).part("heatsink")


def needs_heatsink(host: Host, module: str) -> bool:
    """Whether a module bought for ``host`` needs a heatsink bought: ``module`` is what its
    listing says ("yes", "no", "unknown"). An SXM module runs only under its heatsink, so
    unless the host listing includes them or the module's listing says it comes with one, the
    bill budgets one (a title that does not say is not a promise)."""
    return host.heatsinks not in ("none", "yes") and module != "yes"


def heatsink_line(count: int, prices: PartPrices) -> BomLine | None:
    """``count`` heatsinks, bought as ``_bought`` buys any part. The search ranks rigs at
    the cheapest listing's unit price (``PartPrices.heatsink``); the bill is what the buyer
    pays."""
    return _bought(HEATSINK, count, prices, label=f"{count} SXM2 heatsinks") if count else None


def _bought(code: str, count: int, prices: PartPrices, *, label: str = "") -> BomLine:
    """``count`` of a part from the listing that covers them cheapest, its lots bought whole
    (two heatsinks from a lot of four cost the four, and the bill says two are spare; four
    PSUs from lots of two: two lots), else at the part's market or estimate unit price."""
    part = prices.table.parts[code]
    label = label or (part.name if count == 1 else f"{count}x {part.name}")
    listings = prices.offers.get(code, ())
    if listings:

        def lots(o: PartOffer) -> int:
            return -(-count // max(o.units, 1))

        best = min(listings, key=lambda o: (o.price * lots(o), o.listing_id))
        n = lots(best)
        price = (best.price * n).quantize(CENT)
        spare = n * best.units - count
        whole = f"a lot of {best.units}" if n == 1 else f"{n} lots of {best.units}"
        note = f"{whole}, bought whole: {spare} spare" if spare else (whole if n > 1 else "")
        return BomLine(label, count, price, "listing", best.item_id, best.url, note, part.instead)
    unit, source = prices.unit(code)
    note = part.source if source == "estimate" else ""
    price = (unit * count).quantize(CENT)
    return BomLine(label, count, price, source, note=note, instead=part.instead)


def bom_total(lines: Sequence[BomLine]) -> Decimal:
    return sum((line.price for line in lines), ZERO)
