"""PNG charts with matplotlib: a SKU's price history, and performance per dollar across SKUs.

``render_*`` functions take plain data and return a matplotlib Figure; ``load_*`` functions
read the data from the store. Nothing here shows a window (the Agg backend is used).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import matplotlib

matplotlib.use("Agg")
import matplotlib.dates as mdates
import pandas as pd
from matplotlib.figure import Figure

from ranking.profiles import load_profiles
from ranking.value import score_sku_value
from rigscout.outputs.export import ExportFilter, landed_cents, load_price_chunks

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import date

    from sqlalchemy import Engine

    from core.settings import RankSettings
    from ranking.catalog import Sku
    from ranking.market import Market


@dataclass(frozen=True, slots=True)
class ValuePoint:
    """One SKU at today's market: its price and what a dollar buys."""

    name: str
    price: float
    per_dollar: float  # profile metric per 1,000 units of currency
    category: str


def load_history(
    engine: Engine, sku: str, rank: RankSettings, *, since: date | None = None
) -> pd.DataFrame:
    """Price points of one SKU, landed as ``rank`` lands them: columns at (UTC), market
    (sold|active), currency (the user's), price."""
    flt = ExportFilter(skus=(sku,), since=since)
    chunks = [landed_cents(chunk, rank) for chunk in load_price_chunks(engine, flt)]
    if not chunks:
        return pd.DataFrame(columns=["at", "market", "currency", "price"])
    data = pd.concat(chunks, ignore_index=True)
    return pd.DataFrame(
        {
            "at": pd.to_datetime(data["at"], utc=True, format="mixed"),
            "market": data["market"],
            "currency": data["currency"],
            "price": data["cents"].astype("int64") / 100,
        }
    )


def render_history_chart(history: pd.DataFrame, *, title: str, window: int = 7) -> Figure:
    """Sold prices as points, their rolling median as a line, and the daily active range."""
    fig = Figure(figsize=(10, 5.5), dpi=110)
    ax = fig.add_subplot()
    currency = history["currency"].mode().iloc[0] if not history.empty else ""
    sold = history[history["market"] == "sold"].sort_values("at")
    active = history[history["market"] == "active"]
    if not active.empty:
        daily = active.set_index("at")["price"].resample("D").agg(["min", "max"]).dropna()
        ax.fill_between(
            daily.index,
            daily["min"],
            daily["max"],
            alpha=0.25,
            step="mid",
            color="tab:blue",
            label="active listings (daily min–max)",
        )
    if not sold.empty:
        ax.scatter(sold["at"], sold["price"], s=18, color="tab:orange", label="sold")
        rolling = sold.set_index("at")["price"].rolling(window, min_periods=1).median()
        ax.plot(
            rolling.index,
            rolling.to_numpy(),
            color="tab:red",
            label=f"sold, rolling median of {window}",
        )
    ax.set_title(title)
    ax.set_ylabel(f"landed price per unit ({currency})")
    ax.xaxis.set_major_formatter(mdates.DateFormatter("%Y-%m-%d"))  # type: ignore[no-untyped-call]
    ax.grid(True, alpha=0.3)
    if history.empty:
        ax.text(0.5, 0.5, "no price history yet", ha="center", va="center", transform=ax.transAxes)
    else:
        ax.legend(loc="best")
    fig.autofmt_xdate()
    fig.tight_layout()
    return fig


def render_value_chart(points: Sequence[ValuePoint], *, metric: str, currency: str) -> Figure:
    """Horizontal bars: how much of ``metric`` 1,000 units of currency buy, per SKU."""
    ordered = sorted(points, key=lambda p: p.per_dollar)
    fig = Figure(figsize=(10, max(3.0, 0.38 * len(ordered) + 1.5)), dpi=110)
    ax = fig.add_subplot()
    colors = ["tab:green" if p.category == "gpu" else "tab:purple" for p in ordered]
    bars = ax.barh([p.name for p in ordered], [p.per_dollar for p in ordered], color=colors)
    for bar, point in zip(bars, ordered, strict=True):
        ax.text(
            bar.get_width(),
            bar.get_y() + bar.get_height() / 2,
            f"  {point.per_dollar:.1f} at {currency} {point.price:,.0f}",
            va="center",
            fontsize=8,
        )
    ax.set_xlabel(f"{metric} per 1,000 {currency} at today's market price")
    ax.set_title(f"What 1,000 {currency} buys: {metric}")
    ax.grid(True, axis="x", alpha=0.3)
    ax.margins(x=0.25)
    fig.tight_layout()
    return fig


METRIC_LABELS = {
    "compute": "effective FP16 TFLOP/s",
    "bandwidth": "GB/s of memory bandwidth",
    "vram": "GB of VRAM",
    "slots": "GPU slots",
}


def score_market_value_points(
    skus: Mapping[str, Sku],
    baselines: Mapping[str, Market],
    profile_name: str,
    *,
    category: str | None = None,
) -> tuple[list[ValuePoint], str]:
    """Each SKU with a market price: how much of the profile's main metric 1,000 units buy.

    Returns the points and the metric's label. Servers and boards are measured in GPU slots.
    """
    profiles = load_profiles()
    profile = profiles.get(profile_name)
    metric = "slots" if category in {"server", "board"} else profile.primary_metric
    points = []
    for sku_id, baseline in baselines.items():
        sku = skus.get(sku_id)
        if sku is None or baseline.median <= 0 or (category and sku.category.value != category):
            continue
        value = score_sku_value(sku, profile, profiles)
        amount = value.totals().get(metric)
        if not value.eligible or not amount:
            continue
        marker = "" if baseline.source == "sold" else " (asking)"
        price = float(baseline.median)
        points.append(
            ValuePoint(
                name=f"{sku.name}{marker}",
                price=price,
                per_dollar=amount / price * 1000,
                category=sku.category.value,
            )
        )
    return points, METRIC_LABELS[metric]
