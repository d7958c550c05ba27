"""The report says, per listing, what a buyer reads first: who sells it and from where, and
whether it is new since yesterday, its price dropped, or its auction ends within 24 hours."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from sqlalchemy.orm import Session

from core.models import BuyingFormat
from core.settings import RankSettings
from db.store import save_listings
from rigscout.cli.deal_view import load_skus
from rigscout.outputs.report.load import load_report_data
from rigscout.outputs.report.page import render_deal_rows
from rigscout.outputs.report.settings import ReportSettings
from tests.db.test_exact_money import NOW, P40, listing


def _save(engine, *items, at=NOW):
    with Session(engine) as session, session.begin():
        save_listings(session, [(i, P40) for i in items], search="p40", run_id=None, now=at)


def rows_by_item(engine, now):
    with Session(engine) as session:
        data = load_report_data(
            session, load_skus(), RankSettings(), ReportSettings(profiles=("llm-inference",)),
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
