"""One plain sentence per ranked listing, with the numbers behind its score.

"V100 SXM2 16GB at $139 landed, 31% under the 30-day sold median of $201 (48 sales);
$4.4 per FP16 TFLOP/s, best of 212 listings; needs an SXM2 server"
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import date, datetime

SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "AUD": "A$", "CAD": "C$"}
METRIC_UNITS = {"vram": "GB VRAM", "bandwidth": "GB/s", "slots": "GPU slot"}


@dataclass(frozen=True, slots=True)
class ReasonFacts:
    """Everything the sentence may mention; optional parts are left out when None."""

    sku_name: str
    landed: Decimal
    currency: str
    shipping_known: bool = True
    quantity: int = 1
    auction: bool = False
    end_time: datetime | None = None
    now: datetime | None = None
    discount: float | None = None
    baseline: Decimal | None = None
    baseline_count: int = 0
    baseline_source: str | None = None  # "sold" or "active"
    upper_bound_count: int = 0
    presumed_count: int = 0
    window_days: int = 30
    parts_value: Decimal | None = None  # server: server baseline + included GPUs at market
    metric: str | None = None  # "compute", "bandwidth", "vram" or "slots"
    metric_basis: str | None = None  # "FP16 tensor", "FP16", "FP32" for compute
    price_per_metric: float | None = None
    value_rank: int = 0
    group_size: int = 0
    converted_from: str | None = None  # the listing's currency when it is not the user's
    fx_rate: Decimal | None = None
    fx_date: date | None = None
    needs_host: str | None = None  # "SXM2", "SXM4"
    not_a_deal: str | None = None  # "for parts", "accessory"


def render_reason(facts: ReasonFacts) -> str:
    """The sentence: price, place against the market, value in the profile, caveats."""
    clauses = [_price_clause(facts), _fx_clause(facts), _market_clause(facts)]
    head = ", ".join(c for c in clauses if c)
    tail = [_value_clause(facts), _host_clause(facts), _parts_clause(facts)]
    return "; ".join([head, *[t for t in tail if t]])


def render_money(amount: Decimal, currency: str) -> str:
    """$139, $45.50, $90, €1,299: whole units from 100 up or when there are no cents."""
    whole = abs(amount) >= 100 or amount == amount.to_integral_value()
    places = Decimal(1) if whole else Decimal("0.01")
    shown = f"{amount.quantize(places, rounding=ROUND_HALF_UP):,}"
    symbol = SYMBOLS.get(currency)
    return f"{symbol}{shown}" if symbol else f"{shown} {currency}"


def render_unit_price(amount: float, currency: str) -> str:
    """Two significant figures for small unit prices: $4.4, $0.15, $12."""
    places = 0 if amount >= 10 else 1 if amount >= 1 else 2 if amount >= 0.1 else 3
    symbol = SYMBOLS.get(currency)
    shown = f"{amount:,.{places}f}"
    return f"{symbol}{shown}" if symbol else f"{shown} {currency}"


def render_time_left(end_time: datetime, now: datetime) -> str:
    seconds = int((end_time - now).total_seconds())
    if seconds <= 0:
        return "ended"
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    if days:
        return f"{days}d {hours}h"
    return f"{hours}h {rest // 60}m"


def _price_clause(f: ReasonFacts) -> str:
    price = render_money(f.landed, f.currency)
    lot = f" each (lot of {f.quantity})" if f.quantity > 1 else ""
    where = "landed" if f.shipping_known else "before shipping (shipping unknown)"
    if f.auction:
        left = f", ends in {render_time_left(f.end_time, f.now)}" if f.end_time and f.now else ""
        return f"{f.sku_name} auction at {price} current bid {where}{lot}{left}"
    return f"{f.sku_name} at {price} {where}{lot}"


def _fx_clause(f: ReasonFacts) -> str | None:
    if f.converted_from is None or f.fx_rate is None:
        return None
    dated = f" of {f.fx_date.isoformat()}" if f.fx_date else ""
    return f"converted from {f.converted_from} at {f.fx_rate}{dated}"


def _market_clause(f: ReasonFacts) -> str:
    if f.baseline is None or f.discount is None:
        return "no market price yet"
    median = render_money(f.baseline, f.currency)
    what = f"the {f.window_days}-day sold median of {median}"
    if f.baseline_source == "active":
        what = f"the median asking price of {median}"
    if f.parts_value is not None:
        what = f"{render_money(f.parts_value, f.currency)} for the same parts at market"
    pct = round(abs(f.discount) * 100)
    place = "at" if pct == 0 else f"{pct}% under" if f.discount > 0 else f"{pct}% over"
    return f"{place} {what} ({_count_note(f)})"


def _count_note(f: ReasonFacts) -> str:
    if f.baseline_source == "active":
        return f"{_plural(f.baseline_count, 'active listing')}; too few sales"
    notes = [_plural(f.baseline_count, "sale")]
    if f.upper_bound_count:
        notes.append(f"{f.upper_bound_count} best-offer upper bounds")
    if f.presumed_count:
        notes.append(f"{f.presumed_count} presumed")
    return ", ".join(notes)


def _value_clause(f: ReasonFacts) -> str | None:
    if f.metric == "slots" and f.price_per_metric is None:
        return "the GPUs it includes are worth more than its price at market"
    if f.metric is None or f.price_per_metric is None:
        return None
    unit = METRIC_UNITS.get(f.metric, "TFLOP/s")
    if f.metric == "compute":
        unit = f"{f.metric_basis or 'FP16'} TFLOP/s"
    place = "best" if f.value_rank == 1 else f"#{f.value_rank}"
    price = render_unit_price(f.price_per_metric, f.currency)
    return f"{price} per {unit}, {place} of {_plural(f.group_size, 'listing')}"


def _host_clause(f: ReasonFacts) -> str | None:
    return f"needs an {f.needs_host} server" if f.needs_host else None


def _parts_clause(f: ReasonFacts) -> str | None:
    return f"{f.not_a_deal}: not ranked as a deal" if f.not_a_deal else None


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
