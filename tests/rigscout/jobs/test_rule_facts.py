"""The history behind ``new_low_days`` and ``min_drop``, read from a real store (SQLite and
PostgreSQL) the way a run saves it, and landed as the ranking lands the deal."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from decimal import Decimal

from sqlalchemy import select

from alerts.rules import match_rules
from core.models import BuyingFormat, Category, Kind, Listing, Normalized
from core.settings import RankSettings
from db.models import ListingRow
from db.store import save_listings
from rigscout.jobs.rule_facts import load_rule_facts
from tests.support.deals import make_deal, make_rule

V100 = "nvidia-tesla-v100-sxm2-16gb"
SETTINGS = RankSettings(fx_rates={"USD": Decimal(1), "EUR": Decimal("1.10")})


def listing(item_id, price, *, shipping="0", currency="USD", quantity_title=""):
    return Listing(
        item_id=item_id,
        title=f"Tesla V100 SXM2 16GB {quantity_title}{item_id}",
        url=f"https://www.ebay.com/itm/{item_id}",
        price=Decimal(price),
        currency=currency,
        buying_format=BuyingFormat.BUY_IT_NOW,
        shipping=None if shipping is None else Decimal(shipping),
    )


def see(session, when, item, *, quantity=1):
    norm = Normalized("t", V100, Category.GPU, Kind.ITEM, quantity, (), 0.9)
    save_listings(session, [(item, norm)], search="v100", run_id=None, now=when)
    session.flush()


def ids(session):
    return dict(session.execute(select(ListingRow.item_id, ListingRow.id)).all())


def test_a_listing_that_fell_under_every_other_one_is_a_new_low_and_a_drop(session, now):
    see(session, now - timedelta(days=20), listing("1", "200"))
    see(session, now - timedelta(days=10), listing("2", "180"))  # another listing, in 30 days
    see(session, now - timedelta(days=40), listing("3", "120"))  # cheaper, but 40 days ago
    see(session, now - timedelta(days=5), listing("4", "340", quantity_title="2x "), quantity=2)
    see(session, now, listing("1", "170"))
    listing_ids = ids(session)
    deal = make_deal(listing_ids["1"], sku=V100, landed_unit_price="170")
    rules = [make_rule(name="low", new_low_days=30), make_rule(name="drop", min_drop=0.1)]

    facts = load_rule_facts(session, [deal], rules, SETTINGS, profile=None, now=now)

    assert facts.first_prices == {listing_ids["1"]: Decimal("200.00")}
    # The lot of two at $340 is $170 a card: as low as the deal, so the deal is no new low...
    assert facts.lows[30][V100] == (
        (listing_ids["1"], Decimal("170.00")),
        (listing_ids["4"], Decimal("170.00")),
    )
    assert [m.rule.name for m in match_rules([deal], rules, facts=facts)] == ["drop"]


def test_prices_abroad_and_unknown_shipping_are_landed_like_the_ranking_lands_them(session, now):
    see(session, now - timedelta(days=3), listing("5", "140", currency="EUR"))  # $154.00
    see(session, now - timedelta(days=2), listing("6", "100", shipping=None))  # + $25 freight
    see(session, now, listing("7", "160"))
    listing_ids = ids(session)
    deal = make_deal(listing_ids["7"], sku=V100, landed_unit_price="160")
    rule = make_rule(new_low_days=7)

    facts = load_rule_facts(session, [deal], [rule], SETTINGS, profile=None, now=now)

    assert facts.lows[7][V100] == (
        (listing_ids["6"], Decimal("125.00")),
        (listing_ids["5"], Decimal("154.00")),
    )
    assert match_rules([deal], [rule], facts=facts) == []


def test_only_deals_the_rest_of_a_rule_lets_through_are_looked_up(session, now):
    see(session, now - timedelta(days=1), listing("8", "200"))
    listing_ids = ids(session)
    deal = make_deal(listing_ids["8"], sku=V100, landed_unit_price="200")
    rule = make_rule(min_drop=0.05, max_price=Decimal(150), new_low_days=30)

    facts = load_rule_facts(session, [deal], [rule], SETTINGS, profile=None, now=now)

    assert facts.first_prices == {} and facts.lows == {30: {}}


def test_sales_count_by_their_sold_date_not_by_when_the_sold_page_was_read(session, now):
    old = replace(listing("9", "100"), sold_date=(now - timedelta(days=40)).date())
    recent = replace(listing("10", "150"), sold_date=(now - timedelta(days=5)).date())
    see(session, now, old)  # read today from a sold page, sold 40 days ago
    see(session, now, recent)
    see(session, now, listing("11", "140"))
    listing_ids = ids(session)
    deal = make_deal(listing_ids["11"], sku=V100, landed_unit_price="140")
    rule = make_rule(new_low_days=30)

    facts = load_rule_facts(session, [deal], [rule], SETTINGS, profile=None, now=now)

    assert dict(facts.lows[30][V100]) == {
        listing_ids["11"]: Decimal("140.00"),
        listing_ids["10"]: Decimal("150.00"),
    }
    assert [m.deal.listing_id for m in match_rules([deal], [rule], facts=facts)] == [
        deal.listing_id
    ]
