"""rank_deals: active listings ranked by discount and value, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

import pytest

from ranking.rank import rank_deals, rank_listings
from rigscout.config import RankSettings
from rigscout.errors import ConfigError
from rigscout.models import BuyingFormat, Category
from tests.ranking.test_market import add_listing, add_sale
from tests.ranking.test_value import CATALOG, K80, P40, TRT, V100

USD = RankSettings(min_sales=3)


def v100_market(session, now, prices=("190", "201", "210", "220", "240")) -> None:
    for price in prices:
        add_sale(session, now, sku=V100.sku, price=price)


def test_a_listing_under_the_sold_median_is_a_deal_with_its_numbers(session, now):
    v100_market(session, now)
    cheap = add_listing(session, now, sku=V100.sku, price="129", shipping="10")
    add_listing(session, now, sku=V100.sku, price="215", shipping="0")
    session.commit()

    deals = rank_deals(session, CATALOG, USD, now=now, profile="training")

    assert deals[0].listing_id == cheap.id
    best = deals[0]
    assert (best.landed_unit_price, best.baseline, best.baseline_count) == (
        Decimal("139.00"), Decimal("210.00"), 5,
    )  # fmt: skip
    assert best.discount == pytest.approx(1 - 139 / 210, abs=1e-4)
    assert best.baseline_source == "sold"
    assert best.metrics["price_per_compute"] == pytest.approx(139 / 125, abs=1e-3)
    assert best.reason == (
        "V100 SXM2 16GB at $139 landed, 34% under the 30-day sold median of $210 (5 sales); "
        "$1.1 per FP16 tensor TFLOP/s, best of 2 listings; needs an SXM2 server"
    )
    assert deals[0].score > deals[1].score


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"kind": "accessory"}, "accessory"),
        ({"kind": "for_parts"}, "for_parts"),
        ({"sku": None}, "unmatched"),
        ({"sku": "nvidia-h200-nvl"}, "not_in_catalog"),
        ({"seller_feedback": 3}, "seller_below_threshold"),
        ({"seller_feedback": None}, "seller_below_threshold"),
        ({"seller_positive_pct": "91.0"}, "seller_below_threshold"),
        ({"currency": "JPY"}, "no_fx_rate"),
    ],
)
def test_what_is_never_a_deal_is_left_out_and_counted(session, now, overrides, reason):
    v100_market(session, now)
    add_listing(session, now, **{"sku": V100.sku, "price": "60", **overrides})
    session.commit()
    settings = RankSettings(
        min_sales=3, min_seller_feedback=50, min_seller_positive_pct=Decimal("98")
    )

    ranking = rank_listings(session, CATALOG, settings, now=now)

    assert ranking.deals == ()
    assert ranking.skipped == {reason: 1}


def test_include_parts_shows_parts_apart_and_never_scores_them(session, now):
    v100_market(session, now)
    add_listing(session, now, sku=V100.sku, price="150")
    parts = add_listing(session, now, sku=V100.sku, price="40", kind="for_parts")
    session.commit()

    ranking = rank_listings(session, CATALOG, USD, now=now, include_parts=True)
    flat = rank_deals(session, CATALOG, USD, now=now, include_parts=True)

    assert [d.listing_id for d in ranking.parts] == [parts.id]
    assert ranking.parts[0].score == 0.0
    assert ranking.parts[0].reason.endswith("for parts: not ranked as a deal")
    assert [d.listing_id for d in flat] == [ranking.deals[0].listing_id, parts.id]


def test_foreign_listings_are_converted_at_the_configured_rate(session, now):
    v100_market(session, now)
    add_listing(session, now, sku=V100.sku, price="100", shipping="20", currency="EUR")
    session.commit()
    settings = RankSettings(
        fx_rates={"USD": Decimal(1), "EUR": Decimal("1.10")},
        fx_date=date(2026, 11, 1),
        min_sales=3,
    )

    (deal,) = rank_deals(session, CATALOG, settings, now=now)

    assert (deal.landed_unit_price, deal.currency) == (Decimal("132.00"), "USD")
    assert "$132 landed, converted from EUR at 1.10 of 2026-11-01," in deal.reason


def test_unknown_shipping_lands_on_the_price_alone_and_says_so(session, now):
    v100_market(session, now)
    add_listing(session, now, sku=V100.sku, price="180", shipping=None)
    session.commit()

    (deal,) = rank_deals(session, CATALOG, USD, now=now)

    assert (deal.landed_unit_price, deal.shipping_known) == (Decimal("180.00"), False)
    assert "$180 before shipping (shipping unknown)" in deal.reason


def test_a_lot_is_priced_per_unit(session, now):
    v100_market(session, now)
    add_listing(session, now, sku=V100.sku, price="560", shipping="40", quantity=4)
    session.commit()

    (deal,) = rank_deals(session, CATALOG, USD, now=now)

    assert (deal.landed_unit_price, deal.quantity) == (Decimal("150.00"), 4)
    assert "$150 landed each (lot of 4)" in deal.reason


def test_auctions_are_ranked_on_the_current_bid_and_kept_out_of_buy_now(session, now):
    v100_market(session, now)
    bin_ = add_listing(session, now, sku=V100.sku, price="170")
    auction = add_listing(
        session, now, sku=V100.sku, price="90", buying_format="auction",
        end_time=now + timedelta(days=2, hours=4),
    )  # fmt: skip
    add_listing(
        session, now, sku=V100.sku, price="50", buying_format="auction",
        end_time=now - timedelta(hours=1),
    )  # fmt: skip
    session.commit()

    buy_now = rank_deals(session, CATALOG, USD, now=now, buying="buy_now")
    auctions = rank_listings(session, CATALOG, USD, now=now, buying="auction")

    assert [d.listing_id for d in buy_now] == [bin_.id]
    assert [d.listing_id for d in auctions.deals] == [auction.id]
    assert auctions.deals[0].buying_format is BuyingFormat.AUCTION
    assert auctions.deals[0].end_time == now + timedelta(days=2, hours=4)
    assert "auction at $90 current bid landed, ends in 2d 4h" in auctions.deals[0].reason
    assert auctions.skipped == {"auction_ended": 1}


def test_filters_narrow_the_view_without_changing_scores(session, now):
    v100_market(session, now)
    for price in ("150", "170", "230"):
        add_listing(session, now, sku=V100.sku, price=price)
    add_listing(session, now, sku=P40.sku, price="160")
    add_listing(session, now, sku=TRT.sku, price="900", category="server")
    session.commit()

    every = {d.listing_id: d.score for d in rank_deals(session, CATALOG, USD, now=now)}
    v100 = rank_deals(session, CATALOG, USD, now=now, sku=V100.sku, max_price=Decimal("170"))
    servers = rank_deals(session, CATALOG, USD, now=now, category="server")
    top = rank_deals(session, CATALOG, USD, now=now, limit=2)

    assert [d.landed_unit_price for d in v100] == [Decimal("150.00"), Decimal("170.00")]
    assert all(every[d.listing_id] == d.score for d in v100)
    assert [d.category for d in servers] == [Category.SERVER]
    assert [d.score for d in top] == sorted(every.values(), reverse=True)[:2]


def test_a_server_with_gpus_is_compared_with_buying_the_parts(session, now):
    for price in ("700", "800", "900"):
        add_sale(session, now, sku=TRT.sku, price=price, category="server")
    for price in ("140", "150", "160"):
        add_sale(session, now, sku=P40.sku, price=price)
    bundle = add_listing(
        session, now, sku=TRT.sku, price="1700", shipping="100", category="server",
        includes=[{"sku": P40.sku, "quantity": 8}],
    )  # fmt: skip
    session.commit()

    (deal,) = rank_deals(session, CATALOG, USD, now=now, category="server")

    assert deal.listing_id == bundle.id
    assert deal.baseline == Decimal("2000.00")  # 800 + 8 x 150
    assert deal.discount == pytest.approx(0.1)
    assert "10% under $2,000 for the same parts at market (3 sales)" in deal.reason
    assert "per GPU slot" in deal.reason


def test_llm_inference_wants_16_gb_per_gpu_so_a_k80_is_not_a_24_gb_card(session, now):
    add_listing(session, now, sku=K80.sku, price="40")
    session.commit()

    inference = rank_listings(session, CATALOG, USD, now=now, profile="llm-inference")
    capacity = rank_listings(session, CATALOG, USD, now=now, profile="capacity")

    assert inference.deals == ()
    assert inference.skipped == {"below_profile_minimum": 1}
    assert capacity.deals[0].metrics["price_per_vram"] == pytest.approx(40 / 24, abs=1e-3)


def test_without_enough_sales_the_baseline_is_the_asking_median(session, now):
    for price in ("180", "200", "220"):
        add_listing(session, now, sku=P40.sku, price=price)
    session.commit()

    deals = rank_deals(session, CATALOG, USD, now=now, profile="capacity")

    assert {(d.baseline, d.baseline_source, d.baseline_count) for d in deals} == {
        (Decimal("200.00"), "active", 3)
    }
    assert "under the median asking price of $200 (3 active listings; too few sales)" in (
        deals[0].reason
    )


def test_only_active_listings_are_ranked(session, now):
    v100_market(session, now)
    add_listing(session, now, sku=V100.sku, price="120", status="ended")
    session.commit()

    assert rank_deals(session, CATALOG, USD, now=now) == []


@pytest.mark.parametrize(
    "kwargs", [{"buying": "bin"}, {"category": "laptop"}, {"profile": "mining"}]
)
def test_bad_options_are_clear_errors(session, now, kwargs):
    with pytest.raises(ConfigError):
        rank_deals(session, CATALOG, USD, now=now, **kwargs)
