"""Render the report page: one HTML file with its CSS, script and SVG charts inline.

Pure: ``render_report`` takes the loaded ``ReportData`` and returns the page as text. Jinja2
autoescaping is on for everything, so a listing titled ``<script>`` or ``@everyone`` stays
text; links are only ever http(s) (``alerts.format.safe_url``).
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass, replace
from datetime import UTC, timedelta
from importlib.resources import files
from typing import TYPE_CHECKING

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from alerts.format import safe_url
from core.fmt import time_left
from core.models import BuyingFormat, Category
from core.text import bidi_isolated
from ranking.titles import short_label
from ranking.value import board_value, value_metrics
from rigscout import __version__
from rigscout.outputs.report import fmt
from rigscout.outputs.report.changes import (
    HORIZONS,
    score_best_prices,
    score_moves,
    score_new_lows,
)
from rigscout.outputs.report.charts import CostPoint, render_history_svg, render_value_svg
from rigscout.outputs.report.load import RARE_MAX_ACTIVE

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import date, datetime

    from core.models import Deal
    from db.report_rows import ListingNews
    from ranking.catalog import Sku
    from ranking.market import Market
    from rigscout.outputs.report.records import AskingDay, ReportData, RigPlan, SoldPoint

PAGE_SIZE = 50
EVIDENCE_ORDER = {"strong": 4, "thin": 3, "pooled": 2, "asking": 1, "none": 0}
FORMATS = {
    BuyingFormat.AUCTION: "Auction",
    BuyingFormat.BUY_IT_NOW: "Buy It Now",
    BuyingFormat.BEST_OFFER: "Best Offer",
}


@dataclass(frozen=True, slots=True)
class DealRow:
    """One row of the deals table: the ranker's deal and what the page shows about it."""

    profile: str
    first_view: bool
    rank: int
    deal: Deal
    url: str | None
    buying: str  # "auction" or "buy_it_now" (the filter's values)
    format: str
    ends: str | None
    left: str | None
    ends_v: str  # sort value: seconds left, "" when not an auction
    predicted: bool
    discount: str
    discount_v: str
    evidence_v: int
    news: tuple[str, ...] = ()  # "new since yesterday", "price dropped", "ends within 24 h"
    seller: str | None = None  # "seller: 48,123 feedback · ships from United States"


@dataclass(frozen=True, slots=True)
class History:
    sku: str
    name: str
    market: Market | None
    svg: Markup
    chassis: bool = False  # a server's reference: its chassis, the parts of its sales taken out


def render_report(
    data: ReportData, *, plans: Sequence[RigPlan] = (), top_per_sku: int = 10, min_sales: int = 3
) -> str:
    """The whole page as HTML text."""
    deals = [d for view in data.views for d in view.deals]
    # Today's best price of a SKU is its cheapest listing, not the cheapest of the rows shown:
    # the planner's ranking (when the page plans rigs) holds every priced listing.
    best = score_best_prices([*deals, *(d for every in data.plan_deals.values() for d in every)])
    today = data.now.astimezone(UTC).date()
    since = data.history_since or today
    template = _environment().get_template("report.html.j2")
    return template.render(
        now=data.now,
        currency=data.currency,
        window_days=data.window_days,
        top_per_sku=top_per_sku,
        page_size=PAGE_SIZE,
        views=data.views,
        categories=[c.value for c in Category],
        deal_rows=render_deal_rows(data),
        plans=tuple(plans),
        moves=[
            (d, score_moves(data.sold, now=data.now, days=d, min_sales=min_sales)) for d in HORIZONS
        ],
        min_sales=min_sales,
        new_lows=score_new_lows(best, data.sold, data.asking, now=data.now),
        new_rare=data.new_rare,
        kept_out=data.kept_out,
        rare_max=RARE_MAX_ACTIVE,
        history_since=since,
        histories=render_histories(data, since=since, today=today),
        value_points=(points := score_deal_value_points(best, data.skus)),
        value_svg=render_value_svg(points, currency=data.currency),
        runs=data.runs,
        failures=[
            (r.id, _failed_what(e), str(e.get("error", ""))) for r in data.runs for e in r.errors
        ],
        alerts=data.alerts,
        sku_name=lambda sku: data.skus[sku].name if sku in data.skus else sku,
        version=__version__,
        css=(css := _asset("report.css")),
        js=(js := _asset("report.js")),
        csp=content_security_policy(css, js),
    )


def render_deal_rows(data: ReportData) -> list[DealRow]:
    """Every profile's deals as table rows; only the first profile's are visible at first."""
    rows = []
    # On a store's first day every listing is new: the badge would say nothing.
    older = any(n.first_seen < data.now - NEWS_WITHIN for n in data.news.values())
    for index, view in enumerate(data.views):
        for rank, deal in enumerate(view.deals, start=1):
            row = _deal_row(view.profile, index == 0, rank, deal, data.now)
            news = render_news(deal, data.news.get(deal.listing_id), data.now, first_day=not older)
            rows.append(replace(row, news=news, seller=render_seller(deal)))
    return rows


def _deal_row(profile: str, first: bool, rank: int, deal: Deal, now: datetime) -> DealRow:
    auction = deal.buying_format is BuyingFormat.AUCTION
    left = deal.end_time - now if auction and deal.end_time else None
    return DealRow(
        profile=profile,
        first_view=first,
        rank=rank,
        deal=deal,
        url=safe_url(deal.url),
        buying="auction" if auction else "buy_it_now",
        format=FORMATS[deal.buying_format],
        ends=fmt.format_time(deal.end_time) if auction and deal.end_time else None,
        left=time_left(deal.end_time, now) if auction and deal.end_time else None,
        ends_v=str(int(left.total_seconds())) if left is not None else "",
        predicted=deal.price_basis == "predicted" and deal.predicted_low is not None,
        discount=_discount(deal.discount),
        discount_v="" if deal.discount is None else f"{deal.discount:.4f}",
        evidence_v=EVIDENCE_ORDER.get(deal.evidence, 0),
    )


NEWS_WITHIN = timedelta(hours=24)


def _chassis(data: ReportData, code: str) -> bool:
    """A server's market is its chassis: its sales with the parts they came with taken out."""
    market = data.markets.get(code)
    return data.skus[code].category is Category.SERVER and bool(market and market.source == "sold")


def render_news(
    deal: Deal, news: ListingNews | None, now: datetime, *, first_day: bool = False
) -> tuple[str, ...]:
    """What is new about a listing since yesterday, as the page's badges (``first_day``: the
    store has nothing older, so "new" is left unsaid)."""
    said = []
    if news is not None and not first_day and news.first_seen >= now - NEWS_WITHIN:
        said.append("new since yesterday")
    fixed = deal.buying_format is not BuyingFormat.AUCTION
    latest, previous = (news.latest, news.previous) if news else (None, None)
    if fixed and latest is not None and previous is not None and latest < previous:
        said.append("price dropped")
    left = deal.end_time - now if not fixed and deal.end_time else None
    if left is not None and timedelta(0) < left <= NEWS_WITHIN:
        said.append("ends within 24 h")
    return tuple(said)


def render_seller(deal: Deal) -> str | None:
    """Who sells it and from where: "seller: 48,123 feedback · ships from Hong Kong"."""
    parts = []
    if deal.seller_feedback is not None:
        parts.append(f"seller: {deal.seller_feedback:,} feedback")
    if deal.location:
        parts.append(f"ships from {deal.location}")
    return " · ".join(parts) or None


def _discount(share: float | None) -> str:
    if share is None:
        return "–"
    word = "under" if share >= 0 else "over"
    return f"{fmt.format_share(abs(share))} {word}"


def render_histories(data: ReportData, *, since: date, today: date) -> list[History]:
    """One chart per SKU that has a sale, an asking price or a market reference."""
    sold: dict[str, list[SoldPoint]] = {}
    asking: dict[str, list[AskingDay]] = {}
    for p in data.sold:
        sold.setdefault(p.sku, []).append(p)
    for a in data.asking:
        asking.setdefault(a.sku, []).append(a)
    codes = sorted(
        {*sold, *asking, *data.markets} & set(data.skus),
        key=lambda c: (data.skus[c].category.value != "gpu", data.skus[c].name),
    )
    return [
        History(
            sku=code,
            name=data.skus[code].name,
            market=data.markets.get(code),
            svg=render_history_svg(
                data.skus[code].name,
                sold.get(code, []),
                asking.get(code, []),
                data.markets.get(code),
                since=since,
                today=today,
                currency=data.currency,
                chassis=_chassis(data, code),
            ),
            chassis=_chassis(data, code),
        )
        for code in codes
    ]


def score_deal_value_points(best: Mapping[str, Deal], skus: Mapping[str, Sku]) -> list[CostPoint]:
    """Each GPU with a fixed-price deal: its best price per GB of VRAM and per TFLOP/s.

    The figures are the ranking's own (``ranking.value``): a board's totals (a dual-GPU board
    counts both GPUs) and its effective compute (FP16 tensor, else FP16 when it is not
    crippled, else FP32), so the chart and the deals' sentences agree.
    """
    points = []
    for code, deal in best.items():
        sku = skus.get(code)
        if sku is None or sku.category is not Category.GPU or deal.landed_unit_price <= 0:
            continue
        metrics = value_metrics(board_value(sku), deal.landed_unit_price)
        if "price_per_vram" not in metrics or "price_per_compute" not in metrics:
            continue
        points.append(
            CostPoint(
                sku=code,
                name=sku.name,
                per_gb=metrics["price_per_vram"],
                per_tflops=metrics["price_per_compute"],
                price=deal.landed_unit_price,
            )
        )
    return sorted(points, key=lambda p: p.per_gb)


def _failed_what(error: Mapping[str, object]) -> str:
    if "search" in error:
        return f"{error['search']} ({error.get('mode', '')})"
    return f"alert channel {error.get('channel', '?')}"


def content_security_policy(css: str, js: str) -> str:
    """The page's policy: nothing loads or runs but our own inlined style and script (by their
    hashes), whatever a title, a seller's name or a place smuggles into the page."""

    def digest(text: str) -> str:
        return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"

    return (
        f"default-src 'none'; style-src {digest(css)}; script-src {digest(js)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


def _asset(name: str) -> Markup:
    # Our own CSS and script, inlined so the page works from file:// with no other file.
    text = files("rigscout.outputs.report").joinpath("templates", name).read_text(encoding="utf-8")
    return Markup(text)  # noqa: S704


def _isolated(value: object) -> object:
    """Every text a template prints from outside (titles, sellers, places) in a directional
    isolate when it holds direction controls; our own markup as it is."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return bidi_isolated(value)
    return value


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("rigscout.outputs.report", "templates"),
        autoescape=select_autoescape(["html", "j2"], default=True),
        undefined=StrictUndefined,
        trim_blocks=False,
        finalize=_isolated,
    )
    env.filters.update(
        money=fmt.format_money,
        money_range=fmt.format_money_range,
        share=fmt.format_share,
        day=fmt.format_day,
        time=fmt.format_time,
        duration=fmt.format_duration,
        safe_url=safe_url,
        tag=short_label,
    )
    return env
