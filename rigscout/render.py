"""Terminal output: rich tables for deals, runs and the run summary (pure: data in, Table out)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING

from rich.markup import escape
from rich.table import Table

if TYPE_CHECKING:
    from db.runs import RunSummary
    from rigscout.models import Deal
    from rigscout.pipeline import RunReport


def render_money(amount: Decimal, currency: str) -> str:
    symbol = {"USD": "$", "GBP": "£", "EUR": "€"}.get(currency)
    value = f"{amount:,.2f}"
    return f"{symbol}{value}" if symbol else f"{value} {currency}"


def render_time_left(end: datetime | None, now: datetime) -> str:
    if end is None:
        return ""
    seconds = int((end - now).total_seconds())
    if seconds <= 0:
        return "ended"
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    return f"{days}d {hours}h" if days else f"{hours}h {rest // 60}m"


def render_deals_table(deals: Sequence[Deal], *, now: datetime, title: str = "Top deals") -> Table:
    table = Table(title=title, show_lines=False, expand=False)
    table.add_column("#", justify="right")
    table.add_column("SKU")
    table.add_column("Landed/unit", justify="right")
    table.add_column("Qty", justify="right")
    table.add_column("vs market", justify="right")
    table.add_column("Score", justify="right")
    table.add_column("Why")
    for i, deal in enumerate(deals, 1):
        price = render_money(deal.landed_unit_price, deal.currency)
        if not deal.shipping_known:
            price += " +ship?"
        if deal.buying_format.value == "auction":
            price += f" (bid, {render_time_left(deal.end_time, now)})"
        discount = f"{deal.discount:+.0%}".replace("+", "−") if deal.discount is not None else "n/a"
        if deal.discount is not None and deal.discount < 0:
            discount = f"+{-deal.discount:.0%}"
        table.add_row(
            str(i),
            escape(deal.sku_name),
            price,
            str(deal.quantity),
            discount,
            f"{deal.score:.2f}",
            escape(deal.reason),
        )
    return table


def render_run_summary(report: RunReport) -> Table:
    table = Table(title=f"Run {report.run_id}", show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    saved = report.saved
    rows = [
        ("searches", report.searches),
        ("requests", report.requests),
        ("listings seen", saved.seen),
        ("new listings", saved.new_listings),
        ("new price observations", saved.new_observations),
        ("new sales", saved.new_sales),
        ("ended / presumed sold", report.ended),
        ("deals ranked", len(report.deals)),
        ("alerts sent", report.alerts.total_sent if report.alerts else 0),
        ("failed searches", len(report.failures)),
    ]
    for name, value in rows:
        table.add_row(name, str(value))
    return table


def render_runs_table(runs: Sequence[RunSummary]) -> Table:
    table = Table(title="Recent runs")
    for column in ("id", "started", "status", "source", "searches", "requests", "seen", "new",
                   "changes", "alerts", "errors", "duration"):
        table.add_column(column)
    for run in runs:
        table.add_row(
            str(run.id),
            run.started_at.strftime("%Y-%m-%d %H:%M"),
            run.status,
            escape(run.source),
            str(run.searches),
            str(run.requests),
            str(run.listings_seen),
            str(run.listings_new),
            str(run.observations_new),
            str(run.alerts_sent),
            str(len(run.errors)),
            f"{run.duration.total_seconds():.1f}s" if run.duration else "",
        )
    return table
