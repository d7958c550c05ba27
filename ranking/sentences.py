"""One plain sentence per ranked listing, with the numbers behind its score.

"V100 SXM2 16GB at $139 landed, 31% under the 30-day sold median of $201 (48 sales in 30 days,
spread ±9%: strong evidence); $1.1 per FP16 tensor TFLOP/s, best of 212 listings; needs an SXM2
server"
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core import fmt
from core.models import BuyingFormat, Category, Kind
from ranking.landed import fx_rate
from ranking.titles import condition_broken
from ranking.topology import title_topology

if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import date, datetime
    from decimal import Decimal

    from core.settings import RankSettings
    from ranking.catalog import Sku
    from ranking.market import Market
    from ranking.records import Priced, Scored
    from ranking.rows import ActiveRow

AUCTION = BuyingFormat.AUCTION.value
PCIE_TOPOLOGIES = ("single-root", "split-root")
METRIC_UNITS = {"vram": "GB VRAM", "bandwidth": "GB/s", "slots": "GPU slot"}
_CONDITION_CHARS = 60  # eBay's conditions are short; a longer one is cut in a sentence


@dataclass(frozen=True, slots=True)
class ReasonFacts:
    """Everything the sentence may mention; optional parts are left out when None."""

    sku_name: str
    landed: Decimal  # a running auction: its predicted end
    currency: str
    shipping_known: bool = True
    freight_estimated: bool = False
    quantity: int = 1
    auction: bool = False
    current_bid: Decimal | None = None  # landed unit price at the current bid
    predicted_low: Decimal | None = None
    predicted_high: Decimal | None = None
    end_time: datetime | None = None
    now: datetime | None = None
    discount: float | None = None
    baseline: Decimal | None = None
    market: Market | None = None
    parts_value: Decimal | None = None  # server: server baseline + included GPUs at market
    reference: str | None = None  # a server's reference in words: "chassis $780 + ... = $900"
    config: str | None = None  # a server's configuration: "barebone: no CPUs, RAM or heatsinks"
    chassis: bool = False  # the market is a server's chassis: its sales, their parts taken out
    # a server with too few sales for a reference: (sales of it or its family, in so many days)
    too_few_sales: tuple[int, int] | None = None
    weakest: str | None = None  # a server's included GPUs whose market sets its evidence
    metric: str | None = None  # "compute", "bandwidth", "vram" or "slots"
    metric_basis: str | None = None  # "FP16 tensor", "FP16", "FP32" for compute
    price_per_metric: float | None = None
    value_rank: int = 0
    group_size: int = 0
    devices: int = 1  # GPUs on one board (K80: 2)
    converted_from: str | None = None  # the listing's currency when it is not the user's
    fx_rate: Decimal | None = None
    fx_date: date | None = None
    needs_host: str | None = None  # "SXM2", "SXM4"
    topology: str | None = None  # a server's: "nvlink", "single-root", "split-root"
    topology_claim: str | None = None  # the title's wording that set ``topology``
    flags: tuple[str, ...] = ()  # the flags' labels
    not_a_deal: str | None = None  # "for parts", "accessory"


def deal_sentence(
    s: Scored, metric: str, metrics: Mapping[str, float], *, settings: RankSettings, now: datetime
) -> str:
    """Why a ranked listing is there, in one sentence."""
    p, row, value = s.priced, s.priced.row, s.value
    topology, claim = None, None
    if p.sku.category is not Category.GPU:
        topology = p.sku.interconnect
        if topology in PCIE_TOPOLOGIES:  # a board named in the title decides what is shown
            claim = title_topology(row.title)
            topology = claim[0] if claim else topology
    auction, reference = p.auction, p.reference
    facts = ReasonFacts(
        sku_name=p.sku.name,
        landed=p.landed,
        currency=settings.currency,
        shipping_known=p.shipping_known,
        freight_estimated=p.freight_estimated,
        quantity=row.quantity,
        auction=auction is not None,
        current_bid=p.current_bid,
        predicted_low=auction.low if auction else None,
        predicted_high=auction.high if auction else None,
        end_time=row.end_time,
        now=now,
        discount=p.discount,
        baseline=p.baseline,
        market=p.market,
        parts_value=p.baseline if p.included_value is not None else None,
        reference=reference.describe(lambda x: fmt.money(x, settings.currency))
        if reference
        else None,
        config=config_text(p),
        chassis=reference is not None and reference.basis == "market",
        too_few_sales=p.too_few_sales,
        weakest=reference.weakest if reference else None,
        metric=metric,
        metric_basis=value.compute_basis,
        price_per_metric=metrics.get(f"price_per_{metric}"),
        value_rank=s.value_rank,
        group_size=s.group_size,
        devices=value.devices,
        converted_from=None if row.currency == settings.currency else row.currency,
        fx_rate=fx_rate(row.currency, settings) if row.currency != settings.currency else None,
        fx_date=settings.fx_date,
        needs_host=p.sku.form_factor if value.needs_host else None,
        topology=topology,
        topology_claim=claim[1] if claim else None,
        flags=tuple(f.label for f in p.flags),
    )
    return render_reason(facts)


def part_sentence(
    row: ActiveRow, sku: Sku, price: Decimal, *, needs_host: bool, currency: str, now: datetime
) -> str:
    """A for-parts or accessory listing of a catalog SKU: what it is, never why it is a deal."""
    auction = row.buying_format == AUCTION
    facts = ReasonFacts(
        sku_name=sku.name,
        landed=price,
        currency=currency,
        shipping_known=row.shipping is not None,
        quantity=row.quantity,
        auction=auction,
        current_bid=price if auction else None,
        end_time=row.end_time,
        now=now,
        needs_host=sku.form_factor if needs_host else None,
        not_a_deal=_not_a_deal(row),
    )
    return render_reason(facts)


def _not_a_deal(row: ActiveRow) -> str:
    """What the listing is instead of a deal, and eBay's condition when that says it is broken
    ("for parts (eBay: Als Ersatzteil / defekt)"): the title alone may not say why."""
    kind = row.kind.replace("_", " ")
    condition = row.condition
    if row.kind == Kind.FOR_PARTS.value and condition and condition_broken(condition):
        return f"{kind} (eBay: {condition[:_CONDITION_CHARS]})"
    return kind


def config_text(p: Priced) -> str | None:
    """What a server comes with besides its GPUs, as the sentence and the report say it."""
    if p.row.config is None or p.sku.category is not Category.SERVER:
        return None
    return p.row.config.describe(sxm=p.sku.takes_sxm)


def render_reason(facts: ReasonFacts) -> str:
    """The sentence: price, place against the market, value in the profile, caveats."""
    clauses = [_price_clause(facts), _fx_clause(facts), _market_clause(facts)]
    head = ", ".join(c for c in clauses if c)
    tail = [
        _value_clause(facts),
        _devices_clause(facts),
        _host_clause(facts),
        _topology_clause(facts),
        _flags_clause(facts),
        _parts_clause(facts),
    ]
    return "; ".join([head, *[t for t in tail if t]])


def _price_clause(f: ReasonFacts) -> str:
    price = fmt.money(f.landed, f.currency)
    name = f"{f.sku_name} ({f.config})" if f.config else f.sku_name
    lot = f" each (lot of {f.quantity})" if f.quantity > 1 else ""
    where = "landed"
    if f.freight_estimated:
        where = "landed with estimated freight"
    elif not f.shipping_known:
        where = "before shipping (shipping unknown)"
    if not f.auction:
        return f"{name} at {price} {where}{lot}"
    bid = fmt.money(f.current_bid if f.current_bid is not None else f.landed, f.currency)
    head = f"{name} auction: current bid {bid}{lot}{_left_clause(f)}"
    if f.predicted_low is None or f.predicted_high is None:
        return f"{head} ({where})"
    low = fmt.money(f.predicted_low, f.currency)
    high = fmt.money(f.predicted_high, f.currency)
    near = low if low == high else f"{low}–{high}"
    return f"{head}, likely to end near {near} ({where}; ranked at {price})"


def _left_clause(f: ReasonFacts) -> str:
    """``, 5d 11h left``, or ``, ended`` once the end time has passed."""
    if f.end_time is None or f.now is None:
        return ""
    left = fmt.time_left(f.end_time, f.now)
    return f", {left}" if left == "ended" else f", {left} left"


def _fx_clause(f: ReasonFacts) -> str | None:
    if f.converted_from is None or f.fx_rate is None:
        return None
    dated = f" of {f.fx_date.isoformat()}" if f.fx_date else ""
    return f"converted from {f.converted_from} at {f.fx_rate}{dated}"


def _market_clause(f: ReasonFacts) -> str:
    m = f.market
    if f.baseline is None or f.discount is None or m is None:
        if f.too_few_sales:
            count, days = f.too_few_sales
            sales = _plural(count, "sale")
            return f"no market price yet: {sales} of it or its family in {days} days, too few"
        return "no market price yet (no discount counted)"
    median = fmt.money(f.baseline, f.currency)
    what = f"the {m.window_days}-day sold median of {median}"
    if m.source == "asking":
        what = f"the median asking price of {median}"
    if f.reference is not None:
        what = f.reference
    elif f.parts_value is not None:
        what = f"{median} for the same parts at market"
    pct = round(abs(f.discount) * 100)
    place = "at" if pct == 0 else f"{pct}% under" if f.discount > 0 else f"{pct}% over"
    note = _evidence_note(m, chassis=f.chassis)
    if f.weakest:
        note += f", as the {f.weakest}'s market is"
    return f"{place} {what} ({note})"


def _evidence_note(m: Market, *, chassis: bool = False) -> str:
    """How much the reference can be trusted: count, window, spread, outliers, tier."""
    if m.source == "asking":
        return f"{_plural(m.count, 'asking price')}, too few sales: weak evidence"
    family = " of its family" if m.evidence == "pooled" else ""
    notes = [f"{_plural(m.count, 'sale')}{family} in {m.window_days} days"]
    if chassis:
        notes[0] += ", their parts taken out"
    if m.upper_bound_count:
        notes.append(_plural(m.upper_bound_count, "best-offer upper bound"))
    if m.presumed_count:
        notes.append(f"{m.presumed_count} presumed")
    notes.append(f"spread ±{round(m.spread * 50)}%")
    if m.outliers:
        notes.append(f"{_plural(m.outliers, 'outlier')} left out")
    return f"{', '.join(notes)}: {m.evidence} evidence"


def _value_clause(f: ReasonFacts) -> str | None:
    if f.metric == "slots" and f.price_per_metric is None:
        return "the GPUs it includes are worth more than its price at market"
    if f.metric is None or f.price_per_metric is None:
        return None
    unit = METRIC_UNITS.get(f.metric, "TFLOP/s")
    if f.metric == "compute":
        unit = f"{f.metric_basis or 'FP16'} TFLOP/s"
    place = "best" if f.value_rank == 1 else f"#{f.value_rank}"
    price = fmt.unit_money(f.price_per_metric, f.currency)
    return f"{price} per {unit}, {place} of {_plural(f.group_size, 'listing')}"


def _devices_clause(f: ReasonFacts) -> str | None:
    if f.devices < 2:
        return None
    return f"{f.devices} GPUs on one board: each is its own device, VRAM is not pooled"


def _host_clause(f: ReasonFacts) -> str | None:
    return f"needs an {f.needs_host} server" if f.needs_host else None


TOPOLOGY = {
    "nvlink": "NVLink between its GPUs",
    "single-root": "single-root PCIe: every GPU talks peer-to-peer",
    "split-root": "split (dual-root) PCIe: GPUs on different CPUs talk through the CPU link",
}


def _topology_clause(f: ReasonFacts) -> str | None:
    shown = TOPOLOGY.get(f.topology or "")
    if shown is None or f.topology_claim is None:
        return shown
    return f"title claims {shown} ({f.topology_claim}) — verify (`nvidia-smi topo -m`, photos)"


def _flags_clause(f: ReasonFacts) -> str | None:
    return "; ".join(f.flags) if f.flags else None


def _parts_clause(f: ReasonFacts) -> str | None:
    return f"{f.not_a_deal}: not ranked as a deal" if f.not_a_deal else None


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
