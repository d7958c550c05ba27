"""Hand-built report records: the page is tested without a database."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from typing import Any

from db.runs import RunSummary
from ranking.catalog import load_catalog
from ranking.market.sold import Market
from rigscout.outputs.report.records import AskingDay, ProfileDeals, ReportData, SoldPoint
from tests.support.deals import make_deal

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
TODAY = NOW.date()
SKUS = {s.sku: s for s in load_catalog()}
V100 = "nvidia-tesla-v100-sxm2-16gb"
P40 = "nvidia-tesla-p40"
RTX3090 = "nvidia-rtx-3090"


def days_ago(n: int) -> date:
    return TODAY - timedelta(days=n)


def sold(sku: str, price: str, ago: int) -> SoldPoint:
    return SoldPoint(sku, days_ago(ago), Decimal(price))


def asking(sku: str, low: str, high: str, ago: int) -> AskingDay:
    return AskingDay(sku, days_ago(ago), Decimal(low), Decimal(high))


def market(sku: str = V100, median: str = "130") -> Market:
    m = Decimal(median)
    return Market(sku, m, m * Decimal("0.9"), m * Decimal("1.1"), 12, "strong", "sold")


def run(run_id: int = 1, *, errors: tuple[dict[str, object], ...] = ()) -> RunSummary:
    start = NOW - timedelta(hours=6, minutes=run_id)
    return RunSummary(
        id=run_id,
        source="web",
        status="partial" if errors else "ok",
        started_at=start,
        finished_at=start + timedelta(minutes=3),
        searches=11,
        requests=30,
        listings_seen=400,
        listings_new=12,
        observations_new=40,
        alerts_sent=2,
        errors=errors,
    )


def report_data(*deals: Any, **changes: Any) -> ReportData:
    """One profile's view of ``deals`` (``make_deal`` records) and whatever ``changes`` set."""
    values: dict[str, Any] = {
        "now": NOW,
        "currency": "USD",
        "profile": "llm-inference",
        "window_days": 30,
        "views": (ProfileDeals("llm-inference", "bandwidth and VRAM per dollar", tuple(deals)),),
        "markets": {V100: market()},
        "skus": SKUS,
        "history_since": days_ago(90),
    }
    values.update(changes)
    return ReportData(**values)


def deal(listing_id: int = 1, **changes: Any) -> Any:
    changes.setdefault("sku", V100)
    changes.setdefault("sku_name", SKUS[changes["sku"]].name)
    return make_deal(listing_id, **changes)
