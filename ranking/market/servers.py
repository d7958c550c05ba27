"""What a server is worth, like for like: its chassis' market plus the market of every part it
comes with (GPUs, heatsinks, CPUs, RAM, power shelf), each from the store or an estimate.

A server's sales rarely match the listing at hand: one came with heatsinks, one with two Gold
6130s and 256 GB, one with four V100s. So each sale is first brought down to its **chassis**:
its landed price minus the parts its title says it came with, valued the same way. The chassis
market is the robust median of those (``ranking/market/sold.py``'s rule). A listing's reference is
then a **composite**, the chassis plus its own parts, and the sentence shows the sum ("chassis
$780 + 2 CPUs $50 (estimate) + 64 GB RAM $70 (estimate) = $900"). Where at least ``min_sales``
sales are of the very same configuration (model, parts and GPUs), their median is the
reference directly; one or two of them move the composite toward their median.

Thin markets borrow strength in steps, each lowering the evidence tier reported: the SKU's own
sales in the window (``strong`` or ``thin``; sales without GPUs first, as a complete machine
sells at a premium over its parts), the SKU's sales over ``pool_window_days`` (``thin``), then
its family's (``parts.toml`` ``[pools]``: the four 4028GR models), moved toward the model's
own level by n / (n + ``SHRINK``) for n sales of its own (``pooled``). A SKU with any sale
never falls back to asking prices. Pure: rows in, records out.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import TYPE_CHECKING, TypeVar

from core.models import Category
from ranking.market.sold import (
    SalePoint,
    sale_point,
    sales_days,
    sold_market,
    sold_markets,
    weighted_median,
)
from ranking.titles import HEATSINK, POWER_SHELF, load_parts

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
    from datetime import datetime

    from core.models import Included, ServerConfig
    from core.settings import RankSettings
    from ranking.catalog import Sku
    from ranking.market.sold import Market
    from ranking.rows import SoldRow
    from ranking.titles import PartsTable

ZERO = Decimal(0)
CENT = Decimal("0.01")
_SOURCE_NOTES = {"estimate": " (estimate)", "asking": " (asking prices)"}
SHRINK = 2  # a model's own sales needed to count as much as its family's level
COMPOSITE_WEIGHT = Decimal(1)  # a composite counts as much as one sale of the same machine
PART_KIND = "part"  # SoldRow.kind of a priced part's sale (its ``sku`` is the part id)


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a composite reference: what, how much, and where the figure comes from."""

    label: str  # "chassis", "4x V100 SXM2 16GB", "2 CPUs", "64 GB RAM", "4 heatsinks"
    amount: Decimal
    # "market" (sales in the store), "estimate" (parts.toml), "sales" (the same configuration's),
    # "asking" (a model with no sale at all: its asking prices)
    source: str


@dataclass(frozen=True, slots=True)
class Reference:
    """A server listing's reference: the total, its lines, and the market it rests on."""

    total: Decimal
    lines: tuple[Line, ...]
    market: Market  # the chassis' (or the same configuration's) market: its evidence
    parts_total: Decimal | None = None  # chassis + parts, before the same configuration's pull
    twins: tuple[Decimal, ...] = ()  # landed prices of the few sales of the very same machine
    # the included GPUs whose market is weaker than the chassis' and so sets the evidence
    weakest: str | None = None

    @property
    def twin_median(self) -> Decimal | None:
        found = weighted_median((p, Decimal(1)) for p in self.twins)
        return None if found is None else found.quantize(CENT)

    @property
    def json_lines(self) -> tuple[tuple[str, Decimal, str], ...]:
        """The lines as ``Deal.reference`` holds them: the composite's, then (when it was moved
        toward them) the median of the same configuration's sales."""
        lines = tuple((x.label, x.amount, x.source) for x in self.lines)
        median = self.twin_median
        if median is None:
            return lines
        label = (
            f"median of {len(self.twins)} sales of the same configuration (pulls the sum toward it)"
        )
        return (*lines, (label, median, "sales"))

    @property
    def basis(self) -> str:
        """What it rests on: "sales" of the same configuration, the "market" of the chassis
        (its sales, their parts taken out), or "asking" prices of a model never sold."""
        return self.lines[0].source

    def describe(self, money: Callable[[Decimal], str]) -> str:
        """ "chassis $780 + 2 CPUs $50 (estimate) = $830", "the chassis median of $780", or
        "the median of 3 sales of the same configuration, $830"."""
        if self.basis == "sales":
            return f"the median of {self.lines[0].label}, {money(self.total)}"
        built = self.parts_total if self.parts_total is not None else self.total
        if len(self.lines) == 1:
            what = "chassis" if self.basis == "market" else "asking"
            said = f"the {what} median of {money(built)}"
        else:
            said = f"{self.lines[0].label} {money(self.lines[0].amount)}"
            for line in self.lines[1:]:
                sign = "−" if line.amount < 0 else "+"
                note = _SOURCE_NOTES.get(line.source, "")
                said += f" {sign} {line.label} {money(abs(line.amount))}{note}"
            said += f" = {money(built)}"
        if not self.twins:
            return said
        low, high = min(self.twins), max(self.twins)
        span = money(low) if low == high else f"{money(low)}–{money(high)}"
        return (
            f"{money(self.total)} ({said}, moved toward the same configuration's sales at {span})"
        )


@dataclass(frozen=True, slots=True)
class ServerReferences:
    """What a server listing's reference needs, and each configuration's once computed."""

    valuer: Valuer
    twins: Mapping[tuple[object, ...], Sequence[SalePoint]]  # ``same_config_sales``
    sold: Mapping[str, int]  # each server SKU's sales (over ``pool_window_days``)
    references: dict[tuple[object, ...], Reference | None] = field(default_factory=dict)

    def reference(
        self,
        sku: Sku,
        config: ServerConfig | None,
        includes: Sequence[Included],
        chassis: Market | None,
        settings: RankSettings,
    ) -> Reference | None:
        """``composite`` for this machine; listings of the same machine share it."""
        key = config_key(sku.sku, config, includes)
        if key not in self.references:
            twins = self.twins.get(key, ())
            self.references[key] = composite(
                sku,
                config,
                includes,
                chassis=chassis,
                twins=twins,
                valuer=self.valuer,
                settings=settings,
            )
        return self.references[key]

    def too_few(self, sku: str, settings: RankSettings) -> tuple[int, int] | None:
        """(sales of the SKU or its family, days) when some exist but make no reference."""
        count = sum(self.sold.get(code, 0) for code in self.valuer.table.pool_of(sku))
        return (count, settings.pool_window_days) if count else None


@dataclass(frozen=True, slots=True)
class SoldSide:
    """What the markets read from the sales alone, without the asking prices: the same until a
    sale changes, so a ranking after a run that saved none keeps it (``rigscout/jobs/priced.py``)
    and reads only the servers' sales, whose chassis are valued against the cards' markets."""

    cards: Mapping[str, Market]  # each SKU's market of its own sales (``sold_markets``)
    parts: Mapping[str, Market]  # the priced parts' (``part_markets``)
    twins: Mapping[tuple[object, ...], Sequence[SalePoint]]  # ``same_config_sales``
    sold: Mapping[str, int]  # each SKU's sales, as ``ServerReferences.sold``


def sold_side(sales: Sequence[SoldRow], settings: RankSettings, *, now: datetime) -> SoldSide:
    """The sales' own part of the markets (``SoldSide``)."""
    return SoldSide(
        sold_markets(sales, settings, now=now),
        part_markets(sales, settings, now=now, table=load_parts()),
        same_config_sales(sales, settings, now=now),
        Counter(s.sku for s in sales if s.kind == "item"),
    )


_Key = TypeVar("_Key")
_Value = TypeVar("_Value")


def sold_side_with(kept: SoldSide, fresh: SoldSide, skus: Collection[str]) -> SoldSide:
    """``kept`` with the part of ``skus`` (SKUs and priced parts) taken from ``fresh``, a
    ``sold_side`` of their sales alone (and maybe some others'): every part of a ``SoldSide``
    is made of each SKU's own sales, so where only the sales of ``skus`` changed since
    ``kept``, this is the ``sold_side`` of every sale."""

    def merged(
        old: Mapping[_Key, _Value], new: Mapping[_Key, _Value], of: Callable[[_Key], object]
    ) -> dict[_Key, _Value]:
        found = {key: value for key, value in old.items() if of(key) not in skus}
        return found | {key: value for key, value in new.items() if of(key) in skus}

    def itself(key: object) -> object:
        return key

    def server(key: tuple[object, ...]) -> object:
        return key[0]  # ``config_key``: the server SKU first

    return SoldSide(
        merged(kept.cards, fresh.cards, itself),
        merged(kept.parts, fresh.parts, itself),
        merged(kept.twins, fresh.twins, server),
        Counter(merged(kept.sold, fresh.sold, itself)),
    )


def server_valuer(side: SoldSide, cards: Mapping[str, Market], skus: Mapping[str, Sku]) -> Valuer:
    """What values a server's parts: ``cards``, today's card markets (``with_asking``), and the
    priced parts' markets of ``side``."""
    return Valuer(
        skus,
        dict(cards),  # a copy: the caller replaces the servers' entries with their chassis
        {code: m.median for code, m in side.parts.items()},
        load_parts(),
        {code: m.count for code, m in side.parts.items()},
    )


@dataclass(frozen=True, slots=True)
class Chassis:
    """The server SKUs' chassis markets (``chassis_markets``), and the median each GPU their
    sales came with was valued at (None: no market). A sale's chassis reads nothing else of
    the card markets, so they hold while those medians do, whatever the asking prices did."""

    markets: Mapping[str, Market]
    valued_at: Mapping[str, Decimal | None]

    def holds(self, cards: Mapping[str, Market]) -> bool:
        """Whether ``cards`` value every GPU as these chassis markets were valued."""
        return all(_median(cards, sku) == median for sku, median in self.valued_at.items())


def chassis_of(
    sales: Sequence[SoldRow], valuer: Valuer, settings: RankSettings, *, now: datetime
) -> Chassis:
    """``chassis_markets`` with what they were valued at; ``sales``: the sales, or only the
    server SKUs' among them."""
    gpus = {item.sku for sale in sales if sale.kind == "item" for item in sale.includes}
    valued_at = {sku: _median(valuer.markets, sku) for sku in sorted(gpus)}
    return Chassis(chassis_markets(sales, valuer, settings, now=now), valued_at)


def _median(markets: Mapping[str, Market], sku: str) -> Decimal | None:
    market = markets.get(sku)
    return None if market is None else market.median


# A part's market: at least this many sales, each within this factor of the part's documented
# estimate (parts.toml); with fewer the estimate stands. A part sells a few times a month, so
# one misread sale ($815 for a $54 heatsink) must not become its price.
PART_MIN_SALES = 3
PART_MAX_RATIO = Decimal(3)


def part_markets(
    sales: Iterable[SoldRow], settings: RankSettings, *, now: datetime, table: PartsTable
) -> dict[str, Market]:
    """Each priced part's sold market (per unit) from its sales over ``pool_window_days``:
    only sales within ``PART_MAX_RATIO`` of the part's estimate count, far-off prices among
    them are left out as in every market, and it takes ``PART_MIN_SALES`` of them to beat
    the estimate."""
    within = sales_days(now.date(), settings.pool_window_days)
    points: dict[str, list[SalePoint]] = {}
    for sale in sales:
        if sale.kind != PART_KIND or sale.sold_date not in within:
            continue
        part = table.parts.get(str(sale.sku))
        point = sale_point(sale, settings) if part is not None else None
        if point is not None and part is not None and _near(point.price, part.estimate):
            points.setdefault(part.code, []).append(point)
    needed = replace(settings, min_sales=PART_MIN_SALES)
    markets = {}
    for code, found in points.items():
        market = sold_market(code, found, needed)
        if market is not None:
            markets[code] = market
    return markets


def _near(price: Decimal, estimate: Decimal) -> bool:
    return estimate / PART_MAX_RATIO <= price <= estimate * PART_MAX_RATIO


@dataclass(frozen=True, slots=True)
class Valuer:
    """Values what a server comes with: GPUs at their market, parts at theirs or an estimate."""

    skus: Mapping[str, Sku]
    markets: Mapping[str, Market]  # the cards' markets
    parts: Mapping[str, Decimal]  # the priced parts' sold medians (``part_markets``)
    table: PartsTable
    part_sales: Mapping[str, int] = field(default_factory=dict)  # the sales each median is of

    def lines(
        self, sku: Sku, config: ServerConfig | None, includes: Sequence[Included]
    ) -> tuple[Line, ...] | None:
        """The parts' lines; None when an included GPU has no market (it cannot be valued)."""
        found: list[Line] = []
        for item in includes:
            market = self.markets.get(item.sku)
            card = self.skus.get(item.sku)
            if market is None or card is None:
                return None
            source = "market" if market.source == "sold" else "asking"
            found.append(
                Line(f"{item.quantity}x {_short(card)}", market.median * item.quantity, source)
            )
        if config is None:
            return tuple(found)
        slots = sku.gpu_slots or 0
        if not includes and config.heatsinks == "yes" and sku.takes_sxm and slots:
            found.append(self.part_line(HEATSINK, slots, f"{slots} heatsinks"))
        if config.power_shelf:
            found.append(self.part_line(POWER_SHELF, 1, "power shelf"))
        psus = self.table.psus.get(sku.family or "")
        if config.psus == 0 and psus is not None:  # a chassis sells with its PSUs: not this one
            line = self.part_line(psus[0], psus[1], f"its {psus[1]} PSUs (not included)")
            found.append(replace(line, amount=-line.amount))
        platform = self.table.platform(sku.family or "")
        if platform is not None and config.cpus:
            label = f"{config.cpus} CPUs" if config.cpus > 1 else "1 CPU"
            found.append(Line(label, platform.cpus(config.cpus), "estimate"))
        if platform is not None and config.ram_gb:
            found.append(Line(f"{config.ram_gb} GB RAM", platform.ram(config.ram_gb), "estimate"))
        drives = self.table.drives_price(config.drives) if config.drives else None
        if drives is not None:
            found.append(Line(str(config.drives), drives, "estimate"))
        return tuple(found)

    def part_line(self, code: str, count: int, label: str) -> Line:
        """``count`` of a priced part: at its market in the store, else its estimate."""
        unit, source = self.table.unit_price(code, self.parts)
        if source == "market" and (sales := self.part_sales.get(code)):
            label = f"{label} ({sales} sales)"  # how many sales the part's price rests on
        return Line(label, unit * count, source)


def chassis_markets(
    sales: Iterable[SoldRow], valuer: Valuer, settings: RankSettings, *, now: datetime
) -> dict[str, Market]:
    """Every server SKU's chassis market, in the steps the module describes."""
    recent = sales_days(now.date(), settings.window_days)
    within = sales_days(now.date(), settings.pool_window_days)
    points: dict[str, list[_ChassisPoint]] = {}
    for sale in sales:
        sku = valuer.skus.get(sale.sku)
        if sale.kind != "item" or sku is None or sku.category is not Category.SERVER:
            continue
        if sale.sold_date not in within:
            continue
        point = _chassis_point(sale, sku, valuer, settings)
        if point is not None:
            seen = _ChassisPoint(point, sale.sold_date in recent, bool(sale.includes))
            points.setdefault(sku.sku, []).append(seen)
    markets: dict[str, Market] = {}
    for code, found in points.items():
        market = _first_market(code, found, settings)
        if market is not None:
            markets[code] = market
    for code in {c for c in valuer.skus if c not in markets}:
        pooled = _pooled(code, points, valuer.table.pool_of(code), settings)
        if pooled is not None:
            markets[code] = pooled
    return markets


def same_config_sales(
    sales: Iterable[SoldRow], settings: RankSettings, *, now: datetime
) -> dict[tuple[object, ...], list[SalePoint]]:
    """Per server configuration (``config_key``), its sales in the window at their landed price:
    the like-for-like comparison, used directly where there are ``min_sales`` of them."""
    within = sales_days(now.date(), settings.window_days)
    found: dict[tuple[object, ...], list[SalePoint]] = {}
    for sale in sales:
        if sale.config is None or sale.kind != "item":
            continue
        if sale.sold_date in within and (point := sale_point(sale, settings)):
            found.setdefault(config_key(sale.sku, sale.config, sale.includes), []).append(point)
    return found


def config_key(
    sku: str, config: ServerConfig | None, includes: Sequence[Included]
) -> tuple[object, ...]:
    """What makes two server listings the same machine: model, parts and GPUs."""
    return (sku, config, tuple(sorted((i.sku, i.quantity) for i in includes)))


def composite(
    sku: Sku,
    config: ServerConfig | None,
    includes: Sequence[Included],
    *,
    chassis: Market | None,
    twins: Sequence[SalePoint],
    valuer: Valuer,
    settings: RankSettings,
) -> Reference | None:
    """The listing's reference: the sales of the same configuration (``twins``) where there
    are ``min_sales`` of them, else its chassis plus its parts."""
    same = sold_market(sku.sku, list(twins), settings) if twins else None
    if same is not None:
        label = f"{same.count} sales of the same configuration"
        return Reference(same.median, (Line(label, same.median, "sales"),), same)
    if chassis is None:
        return None
    lines = valuer.lines(sku, config, includes)
    if lines is None:
        return None
    # a model never sold is judged on its asking prices (evidence "asking"), said as such
    sold = chassis.source == "sold"
    chassis_line = Line(
        "chassis" if sold else "asking", chassis.median, "market" if sold else "asking"
    )
    parts = sum((line.amount for line in lines), chassis.median).quantize(CENT)
    # the reference is as sure as its least sure market: four V100s on a thin market make a
    # strong chassis' sum thin
    weakest = min(
        (valuer.markets[i.sku] for i in includes),
        key=lambda m: m.weight,
        default=None,
    )
    below = weakest is not None and weakest.weight < chassis.weight
    rests_on = replace(chassis, evidence=weakest.evidence) if weakest and below else chassis
    found = Reference(
        parts,
        (chassis_line, *lines),
        rests_on,
        parts,
        tuple(p.price for p in twins),
        _short(valuer.skus[weakest.sku]) if weakest and below else None,
    )
    median = found.twin_median
    return found if median is None else replace(found, total=_blend(parts, median, len(twins)))


def _blend(parts: Decimal, median: Decimal, twins: int) -> Decimal:
    """The composite moved toward the few sales of the very same configuration (their median,
    each counted as much as the composite: ``COMPOSITE_WEIGHT``; a best offer too, as its price
    is an upper bound and can only pull the reference toward what was really paid)."""
    count = Decimal(twins)
    blended = (median * count + parts * COMPOSITE_WEIGHT) / (count + COMPOSITE_WEIGHT)
    return blended.quantize(CENT)


@dataclass(frozen=True, slots=True)
class _ChassisPoint:
    point: SalePoint  # the sale's landed price less its parts
    recent: bool  # in the window (else only in ``pool_window_days``)
    gpus: bool  # it came with GPUs (a complete machine sells at a premium over its parts)


def _first_market(
    code: str, found: Sequence[_ChassisPoint], settings: RankSettings
) -> Market | None:
    """The chassis from sales without GPUs in the window, then over the longer window, then
    from every sale (complete machines too) likewise; past the first step, at most "thin"."""
    steps = (
        ([p.point for p in found if p.recent and not p.gpus], settings.window_days),
        ([p.point for p in found if not p.gpus], settings.pool_window_days),
        ([p.point for p in found if p.recent], settings.window_days),
        ([p.point for p in found], settings.pool_window_days),
    )
    for step, (chosen, days) in enumerate(steps):
        market = sold_market(code, chosen, settings)
        if market is not None:
            evidence = market.evidence if step == 0 else "thin"
            return replace(market, evidence=evidence, window_days=days)
    return None


def _chassis_point(
    sale: SoldRow, sku: Sku, valuer: Valuer, settings: RankSettings
) -> SalePoint | None:
    point = sale_point(sale, settings)
    if point is None:
        return None
    lines = valuer.lines(sku, sale.config, sale.includes)
    if lines is None:
        return None
    chassis = point.price - sum((line.amount for line in lines), ZERO)
    if chassis <= 0:
        return None
    return replace(point, price=chassis.quantize(CENT))


def _pooled(
    code: str,
    points: Mapping[str, list[_ChassisPoint]],
    pool: Sequence[str],
    settings: RankSettings,
) -> Market | None:
    """The family's chassis sales, moved toward the model's own level as far as its own sales
    support: with n of them, the model's ratio to the family counts n / (n + ``SHRINK``)."""
    members = {m: [p.point for p in points.get(m, [])] for m in pool if points.get(m)}
    if not members or set(members) == {code}:
        return None
    every = [p for found in members.values() for p in found]
    market = sold_market(code, every, settings)
    if market is None or market.median <= 0:
        return None
    own = members.get(code, [])
    factor = 1.0
    if own:
        level = weighted_median((p.price, p.weight) for p in own) or market.median
        factor = float(level / market.median) ** (len(own) / (len(own) + SHRINK))
    scale = Decimal(str(round(factor, 4)))
    return replace(
        market,
        median=(market.median * scale).quantize(CENT),
        q1=market.q1 * scale,
        q3=market.q3 * scale,
        evidence="pooled",
        window_days=settings.pool_window_days,
    )


def _short(card: Sku) -> str:
    return card.name.removeprefix("NVIDIA ").removeprefix("Tesla ")
