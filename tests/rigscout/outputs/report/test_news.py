"""The report says, per listing, what a buyer reads first: who sells it and from where, and
whether it is new since yesterday, its price dropped, or its auction ends within 24 hours."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from sqlalchemy.orm import Session

from core.models import BuyingFormat
from core.settings import RankSettings
from db.store import save_listings
from ranking.titles import user_skus
from rigscout.config.report import ReportSettings
from rigscout.outputs.report.load import build_report_data
from rigscout.outputs.report.page import render_deal_rows, render_report
from tests.db.test_exact_money import NOW, P40, listing


def _save(engine, *items, at=NOW):
    with Session(engine) as session, session.begin():
        save_listings(session, [(i, P40) for i in items], search="p40", run_id=None, now=at)


def rows_by_item(engine, now):
    with Session(engine) as session:
        data = build_report_data(
            session, user_skus(), RankSettings(), ReportSettings(profiles=("llm-inference",)),
            now=now,
        )  # fmt: skip
    return {r.deal.item_id: r for r in render_deal_rows(data)}


def test_each_row_says_what_is_new_about_its_listing(engine):
    old = NOW - timedelta(days=3)
    _save(engine, listing("1", "250.00", seller_feedback=48123, location="Hong Kong"), at=old)
    _save(engine, listing("1", "220.00", seller_feedback=48123, location="Hong Kong"))  # dropped
    _save(engine, listing("2", "240.00", seller_feedback=12))  # first seen today
    running = replace(
        listing("3", "120.00"), buying_format=BuyingFormat.AUCTION, bids=3,
        end_time=NOW + timedelta(hours=5),
    )  # fmt: skip
    _save(engine, running, at=old)
    far = replace(running, item_id="4", url="https://www.ebay.com/itm/4")
    _save(engine, replace(far, end_time=NOW + timedelta(days=3)), at=old)

    rows = rows_by_item(engine, NOW)

    assert rows["1"].news == ("price dropped",)
    assert rows["1"].seller == "seller: 48,123 feedback · ships from Hong Kong"
    assert rows["2"].news == ("new since yesterday",)
    assert rows["3"].news == ("ends within 24 h",)
    assert rows["4"].news == ()


def test_on_a_stores_first_day_new_is_left_unsaid(engine):
    _save(engine, listing("1", "250.00"), listing("2", "240.00"))

    rows = rows_by_item(engine, NOW)

    assert all("new since yesterday" not in r.news for r in rows.values())


def test_the_history_chart_on_the_page_says_exactly_the_stored_landed_prices(engine):
    """Seeded listings with known prices: the page's chart for their SKU shows each sale at its
    landed price and the day's asking band from the cheapest to the dearest landed price
    (unknown shipping at the estimated freight, a lot of two per card), in dollars."""
    sold = replace(listing("9", "199.00", "6.00"), sold_date=(NOW - timedelta(days=2)).date())
    lot = replace(listing("lot", "440.00", "0.00", title="2x NVIDIA Tesla P40 24GB lot"))
    with Session(engine) as session, session.begin():
        items = [
            (sold, P40),
            (listing("1", "189.99", "10.01"), P40),
            (lot, replace(P40, quantity=2)),
        ]
        items.append((listing("2", "230.00", None), P40))  # + $25 estimated freight
        save_listings(session, items, search="p40", run_id=None, now=NOW)
    with Session(engine) as session:
        data = build_report_data(
            session, user_skus(), RankSettings(), ReportSettings(profiles=("llm-inference",)),
            now=NOW,
        )  # fmt: skip

    page = render_report(data)
    chart = page[page.index('<figure id="h-nvidia-tesla-p40"') :]
    chart = chart[: chart.index("</figure>")]

    assert "2026-11-18: sold $205.00" in chart
    assert "2026-11-20: asking $200.00–$255.00" in chart  # $200, $220 a card, $255
