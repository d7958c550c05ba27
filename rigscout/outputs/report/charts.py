"""Inline SVG charts for the report: a SKU's price history, and value across SKUs.

Pure ``render_*`` functions returning escaped SVG markup. Hand-drawn SVG rather than
matplotlib: a page with 40 SKUs needs 40 charts, which matplotlib takes seconds and
megabytes to draw; these take milliseconds and a few kilobytes each, scale to any width,
and are styled by the page's CSS (see README, "The morning report").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING

from markupsafe import Markup, escape

from core.fmt import with_currency
from rigscout.outputs.report.fmt import format_day, format_money

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import date
    from decimal import Decimal

    from ranking.market import Market
    from rigscout.outputs.report.records import AskingDay, SoldPoint

W, H = 640, 260
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 16, 36
MIN_SPAN = 30  # days: a chart never spans less, so a few points are not stretched wide
MAX_POINTS = 150  # sold points drawn per chart (plenty for 640 px); more are thinned evenly


@dataclass(frozen=True, slots=True)
class CostPoint:
    """One SKU at today's best price: what a GB of VRAM and a TFLOP/s of the compute the
    ranking counts (FP16 tensor, else FP16, else FP32) cost."""

    sku: str
    name: str
    per_gb: float
    per_tflops: float
    price: Decimal


class _Scale:
    """Maps a value range onto a pixel range (optionally logarithmic)."""

    def __init__(self, lo: float, hi: float, a: float, b: float, *, log: bool = False) -> None:
        self.log = log
        self.lo, self.hi = (math.log10(lo), math.log10(hi)) if log else (lo, hi)
        if self.hi <= self.lo:
            self.hi = self.lo + 1
        self.a, self.b = a, b

    def __call__(self, value: float) -> float:
        v = math.log10(value) if self.log else value
        return round(self.a + (v - self.lo) / (self.hi - self.lo) * (self.b - self.a), 1)


def format_tick(value: float, currency: str) -> str:
    """An axis label: ``$1,500``, ``$20``, ``$2.5``; no cents unless the value needs them."""
    text = f"{value:,.0f}" if value >= 10 or value == int(value) else f"{value:.2g}"
    return with_currency(text, currency)


def nice_ticks(lo: float, hi: float, count: int = 4) -> list[float]:
    """About ``count`` round values covering [lo, hi] (1, 2 or 5 times a power of ten apart)."""
    span = max(hi - lo, 1e-9)
    raw = span / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step) + 1)]


def log_ticks(lo: float, hi: float) -> list[float]:
    """1, 2 and 5 times the powers of ten within [lo, hi]."""
    ticks = []
    for power in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1):
        ticks += [m * 10.0**power for m in (1, 2, 5) if lo <= m * 10.0**power <= hi]
    return ticks


def render_history_svg(
    name: str,
    sold: Sequence[SoldPoint],
    asking: Sequence[AskingDay],
    market: Market | None,
    *,
    since: date,
    today: date,
    currency: str,
    chassis: bool = False,
) -> Markup:
    """Sold prices as points, the daily asking range as a band, the market reference as a line.
    ``chassis``: the reference is a server's chassis (its sales, their parts taken out), which
    the sold points, as sold with their parts, need not straddle."""
    prices = [float(p.price) for p in sold] + [float(a.low) for a in asking]
    prices += [float(a.high) for a in asking]
    if market is not None:
        prices.append(float(market.median))
    if not prices:
        return Markup("")
    days = [p.day for p in sold] + [a.day for a in asking]
    since = max(since, min([*days, today]) - timedelta(days=2))
    since = min(since, today - timedelta(days=MIN_SPAN))
    lo, hi = min(prices), max(prices)
    pad = (hi - lo) * 0.08 or hi * 0.1 or 1.0
    y = _Scale(max(lo - pad, 0), hi + pad, H - BOTTOM, TOP)
    x = _Scale(0, (today - since).days + 1, LEFT, W - RIGHT)
    day_w = max(x(1) - x(0), 1.0)
    parts = [_y_axis(y, lo - pad, hi + pad, currency), _x_axis(x, since, today)]
    for a in asking:
        cx, top, bottom = x((a.day - since).days), y(float(a.high)), y(float(a.low))
        low, high = format_money(a.low, currency), format_money(a.high, currency)
        label = f"{format_day(a.day)}: asking {low}–{high}"
        parts.append(
            f'<rect class="band" x="{cx - day_w / 2:.1f}" y="{top}" width="{day_w:.1f}" '
            f'height="{max(bottom - top, 1.5):.1f}"><title>{escape(label)}</title></rect>'
        )
    if market is not None:
        start = max(since, today - timedelta(days=market.window_days))
        my = y(float(market.median))
        what = "sold median" if market.source == "sold" else "asking median"
        if chassis:
            what = "chassis median (its sales, their parts taken out)"
        label = (
            f"{market.window_days}-day {what} {format_money(market.median, currency)}"
            f" as of {format_day(today)} ({market.count} prices, {market.evidence} evidence)"
        )
        parts.append(
            f'<line class="baseline" x1="{x((start - since).days)}" x2="{x((today - since).days)}"'
            f' y1="{my}" y2="{my}"><title>{escape(label)}</title></line>'
            f'<text class="baseline-label" x="{x((start - since).days)}" y="{my - 5}">'
            f"{escape(format_money(market.median, currency))} · {format_day(today)}</text>"
        )
    shown = _thin(sold)
    for p in shown:
        label = f"{format_day(p.day)}: sold {format_money(p.price, currency)}"
        parts.append(
            f'<circle class="sold" cx="{x((p.day - since).days)}" cy="{y(float(p.price))}" r="3">'
            f"<title>{escape(label)}</title></circle>"
        )
    desc = (
        f"{len(sold)} sales{' (' + str(len(shown)) + ' drawn)' if len(shown) < len(sold) else ''}"
        f", asking prices on {len(asking)} days, {format_day(since)} to {format_day(today)}"
    )
    return _svg(f"Price history of {name}", desc, parts, "history")


def render_value_svg(points: Sequence[CostPoint], *, currency: str) -> Markup:
    """One mark per SKU: price per GB of VRAM against price per TFLOP/s (log scales)."""
    if not points:
        return Markup("")
    xs = [p.per_gb for p in points]
    ys = [p.per_tflops for p in points]
    x = _Scale(min(xs) / 1.3, max(xs) * 1.3, LEFT + 8, W - RIGHT, log=True)
    height = 400
    y = _Scale(min(ys) / 1.3, max(ys) * 1.3, height - BOTTOM, TOP, log=True)
    parts = []
    for t in log_ticks(min(xs) / 1.3, max(xs) * 1.3):
        parts.append(
            f'<line class="grid" x1="{x(t)}" x2="{x(t)}" y1="{TOP}" y2="{height - BOTTOM}"/>'
            f'<text class="tick" x="{x(t)}" y="{height - BOTTOM + 14}" text-anchor="middle">'
            f"{escape(format_tick(t, currency))}</text>"
        )
    for t in log_ticks(min(ys) / 1.3, max(ys) * 1.3):
        parts.append(
            f'<line class="grid" x1="{LEFT}" x2="{W - RIGHT}" y1="{y(t)}" y2="{y(t)}"/>'
            f'<text class="tick" x="{LEFT - 6}" y="{y(t) + 4}" text-anchor="end">'
            f"{escape(format_tick(t, currency))}</text>"
        )
    parts.append(
        f'<text class="axis-label" x="{(LEFT + W - RIGHT) / 2}" y="{height - 4}" '
        f'text-anchor="middle">{escape(currency)} per GB of VRAM (cheaper ←)</text>'
        f'<text class="axis-label" transform="rotate(-90)" x="{-(height - BOTTOM + TOP) / 2}" '
        f'y="12" text-anchor="middle">{escape(currency)} per TFLOP/s (cheaper ↓)</text>'
    )
    placed: list[tuple[float, float, float]] = []  # label boxes: x0, x1, baseline y
    for p in sorted(points, key=lambda p: (p.per_tflops, p.per_gb)):
        cx, cy = x(p.per_gb), y(p.per_tflops)
        label = (
            f"{p.name}: {format_money(p.price, currency)}, "
            f"{format_money(p.per_gb, currency)}/GB, {format_money(p.per_tflops, currency)}/TFLOP/s"
        )
        name = short_name(p.name)
        width = len(name) * 6.2
        anchor = "end" if cx + 8 + width > W - RIGHT else "start"
        x0 = cx - 8 - width if anchor == "end" else cx + 8
        ty = _free_line(placed, x0, x0 + width, cy + 4)
        placed.append((x0, x0 + width, ty))
        parts.append(
            f'<g class="mark"><circle cx="{cx}" cy="{cy}" r="5"><title>{escape(label)}</title>'
            f'</circle><text x="{x0 if anchor == "start" else x0 + width}" y="{ty}" '
            f'text-anchor="{anchor}">{escape(name)}</text></g>'
        )
    desc = f"{len(points)} GPUs at today's best fixed price; lower left is better value"
    return _svg(
        "Price per GB of VRAM and per TFLOP/s (FP16 tensor, else FP16, else FP32)",
        desc,
        parts,
        "value",
        height=height,
    )


def short_name(name: str) -> str:
    """A mark's label: the name without the vendor words every GPU shares."""
    for word in ("NVIDIA ", "Nvidia ", "GeForce ", "Tesla "):
        name = name.replace(word, "")
    return name


def _free_line(
    placed: Sequence[tuple[float, float, float]], x0: float, x1: float, y: float
) -> float:
    """The baseline nearest ``y`` where a label from x0 to x1 overlaps no placed label."""
    for shift in (0, 12, -12, 24, -24, 36, -36):
        ty = y + shift
        if all(x1 < a or x0 > b or abs(ty - py) >= 12 for a, b, py in placed):
            return ty
    return y


def _thin(sold: Sequence[SoldPoint]) -> Sequence[SoldPoint]:
    if len(sold) <= MAX_POINTS:
        return sold
    step = len(sold) / MAX_POINTS
    return [sold[int(i * step)] for i in range(MAX_POINTS)]


def _y_axis(y: _Scale, lo: float, hi: float, currency: str) -> str:
    out = []
    for t in nice_ticks(max(lo, 0), hi):
        out.append(
            f'<line class="grid" x1="{LEFT}" x2="{W - RIGHT}" y1="{y(t)}" y2="{y(t)}"/>'
            f'<text class="tick" x="{LEFT - 6}" y="{y(t) + 4}" text-anchor="end">'
            f"{escape(format_tick(t, currency))}</text>"
        )
    return "".join(out)


def _x_axis(x: _Scale, since: date, today: date) -> str:
    days = (today - since).days
    out = []
    for i in range(5):
        day = since + timedelta(days=round(days * i / 4))
        anchor = "start" if i == 0 else ("end" if i == 4 else "middle")
        out.append(
            f'<text class="tick" x="{x((day - since).days)}" y="{H - BOTTOM + 16}" '
            f'text-anchor="{anchor}">{format_day(day)}</text>'
        )
    return "".join(out)


def _svg(title: str, desc: str, parts: Sequence[str], kind: str, *, height: int = H) -> Markup:
    # Every text that goes into ``parts`` went through ``escape``; the rest is numbers.
    return Markup(  # noqa: S704
        f'<svg class="chart {kind}" viewBox="0 0 {W} {height}" role="img" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}</title>'
        f"<desc>{escape(desc)}</desc>{''.join(parts)}</svg>"
    )
