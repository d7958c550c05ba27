"""Which deals a rule asks for: every condition it sets must hold."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from alerts.rules import Match, RuleFacts, Trust, match_rules, rule_matches
from core.models import BuyingFormat, Category, Flag
from tests.support.deals import make_deal, make_rule

P40 = {"sku": "p40-24gb", "sku_name": "Tesla P40 24GB", "category": Category.GPU}
SERVER = {"sku": "sys-4028gr-trt", "sku_name": "SYS-4028GR-TRT", "category": Category.SERVER}


@pytest.mark.parametrize(
    ("rule", "deal", "expected"),
    [
        ({}, {}, True),
        ({"skus": ("v100-sxm2-16gb", "p40-24gb")}, P40, True),
        ({"skus": ("v100-sxm2-16gb",)}, P40, False),
        ({"category": "server"}, SERVER, True),
        ({"category": "SERVER"}, SERVER, True),
        ({"category": "server"}, {}, False),
        ({"max_price": Decimal("180.00")}, {"landed_unit_price": "180.00"}, True),
        ({"max_price": Decimal("180.00")}, {"landed_unit_price": "180.01"}, False),
        ({"min_discount": 0.3}, {"discount": 0.31}, True),
        ({"min_discount": 0.3}, {"discount": 0.29}, False),
        ({"min_discount": 0.3}, {"discount": None}, False),
        ({"min_score": 0.8}, {"score": 0.8}, True),
        ({"min_score": 0.8}, {"score": 0.79}, False),
        ({"skus": ("v100-sxm2-16gb",), "max_price": Decimal(200), "min_discount": 0.2}, {}, True),
        ({"skus": ("v100-sxm2-16gb",), "max_price": Decimal(150), "min_discount": 0.2}, {}, False),
    ],
)
def test_a_deal_matches_when_every_condition_of_the_rule_holds(rule, deal, expected):
    assert bool(match_rules([make_deal(**deal)], [make_rule(**rule)])) is expected


@pytest.mark.parametrize(
    ("rule_profile", "ranked_with", "expected"),
    [
        (None, "llm-inference", True),
        ("llm-inference", "llm-inference", True),
        ("training-fp16", "llm-inference", False),
        ("training-fp16", None, False),
    ],
)
def test_a_rule_with_a_profile_only_matches_deals_ranked_under_it(
    rule_profile, ranked_with, expected
):
    matches = match_rules([make_deal()], [make_rule(profile=rule_profile)], profile=ranked_with)
    assert bool(matches) is expected


def test_each_matching_rule_yields_its_own_match_in_deal_order():
    cheap, dear = make_deal(1, landed_unit_price="150"), make_deal(2, landed_unit_price="400")
    any_v100 = make_rule(name="any-v100")
    cheap_v100 = make_rule(name="cheap", max_price=Decimal(200))

    matches = match_rules([cheap, dear], [any_v100, cheap_v100])

    assert matches == [
        Match(cheap, any_v100),
        Match(cheap, cheap_v100),
        Match(dear, any_v100),
    ]


NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)


def auction(listing_id, hours_left, price="150"):
    return make_deal(
        listing_id,
        buying_format=BuyingFormat.AUCTION,
        end_time=NOW + timedelta(hours=hours_left),
        price_basis="predicted",
        landed_unit_price=price,
    )


def test_ending_within_reminds_of_auctions_about_to_end_under_the_rules_price():
    rule = make_rule(ending_within=timedelta(hours=3), max_price=Decimal(200))
    deals = [
        auction(1, 2),  # ends in 2 h at a likely $150: remind
        auction(2, 5),  # 5 h left: not yet
        auction(3, 1, price="260"),  # likely to end above the rule's $200
        auction(4, -1),  # already over
        make_deal(5),  # Buy It Now never "ends"
    ]

    matched = match_rules(deals, [rule], now=NOW)

    assert [m.deal.listing_id for m in matched] == [1]


def test_a_new_low_is_under_every_other_listing_of_its_sku_in_the_window():
    rule = make_rule(new_low_days=30)
    facts = RuleFacts(lows={30: {"v100-sxm2-16gb": ((1, Decimal(150)), (7, Decimal(170)))}})
    lowest = make_deal(1, landed_unit_price="150")  # the low is its own price: others ≥ $170
    under = make_deal(2, landed_unit_price="160")
    above = make_deal(3, landed_unit_price="155")
    p40 = make_deal(4, **P40)  # nothing else seen of its SKU: no claim

    matched = match_rules([lowest, under, above, p40], [rule], facts=facts)

    # Deal 1 is its own low, and under the next listing's $170; 2 and 3 are not under $150.
    assert [m.deal.listing_id for m in matched] == [1]


def test_min_drop_measures_a_listings_fall_since_it_was_first_seen():
    rule = make_rule(min_drop=0.1)
    facts = RuleFacts(first_prices={1: Decimal(200), 2: Decimal(190), 3: Decimal(200)})
    deals = [
        make_deal(1, landed_unit_price="180"),  # −10 %: enough
        make_deal(2, landed_unit_price="180"),  # −5.3 %
        make_deal(4, landed_unit_price="100"),  # first price not known: no claim
    ]

    assert [m.deal.listing_id for m in match_rules(deals, [rule], facts=facts)] == [1]


def test_max_per_run_caps_a_noisy_rule_at_its_best_ranked_deals():
    noisy = make_rule(name="noisy", max_per_run=2)
    quiet = make_rule(name="quiet")
    deals = [make_deal(i) for i in range(1, 6)]

    matched = match_rules(deals, [noisy, quiet])

    assert [(m.rule.name, m.deal.listing_id) for m in matched if m.rule is noisy] == [
        ("noisy", 1),
        ("noisy", 2),
    ]
    assert len([m for m in matched if m.rule is quiet]) == 5


def test_one_deal_at_a_time_and_all_at_once_agree():
    """``rule_matches`` (one deal, as the run picks the deals to explain) and ``match_rules``
    (every deal at once) apply the same conditions, on random deals and rules."""
    import random

    rng = random.Random(3)
    skus = ["v100-sxm2-16gb", "p40-24gb", "sys-4028gr-trt"]
    deals = [
        make_deal(
            i,
            sku=rng.choice(skus),
            category=rng.choice(list(Category)),
            landed_unit_price=f"{rng.randint(5000, 40000) / 100:.2f}",
            score=rng.uniform(0, 100),
            discount=rng.choice([None, rng.uniform(-0.5, 0.6)]),
        )
        for i in range(300)
    ]
    for _ in range(40):
        rule = make_rule(
            skus=tuple(rng.sample(skus, rng.randint(0, 2))),
            category=rng.choice([None, "gpu", "server"]),
            max_price=rng.choice([None, Decimal(rng.randint(60, 400))]),
            min_score=rng.choice([None, rng.uniform(0, 100)]),
            min_discount=rng.choice([None, rng.uniform(-0.2, 0.4)]),
        )
        at_once = {m.deal.listing_id for m in match_rules(deals, [rule])}
        one_by_one = {d.listing_id for d in deals if rule_matches(d, rule)}
        assert at_once == one_by_one, rule


NEW_ACCOUNT = Flag(
    "new_account_pattern", "a 2-feedback seller lists 30 items worth $33,792", "warn"
)
TRUST = Trust(frozenset({"new_account_pattern"}), 0.2)


@pytest.mark.parametrize(
    ("trusted_price", "first"),
    [("115", 2), ("130", 1)],  # within a fifth more: the trusted one first; beyond it: not
    ids=["within the margin", "beyond it"],
)
def test_a_new_accounts_deal_heads_no_alert_while_a_trusted_one_is_close(trusted_price, first):
    """A 2-feedback new account's V100 at $100 ranks first; a trusted seller's at $115 is the
    one a buyer following the guides would take: it is the one sent, and the risky one is not
    sent at all (nobody trades a track record for $15). At $130, more than plan.toml's
    [trust] margin above, the cheap one stays first, its flags and the safer listing's price
    with it."""
    risky = make_deal(1, landed_unit_price="100", flags=(NEW_ACCOUNT,))
    trusted = make_deal(2, landed_unit_price=trusted_price)
    other_sku = make_deal(3, landed_unit_price="90", sku="nvidia-tesla-p40")
    rule = make_rule(max_per_run=1)
    every = make_rule(name="every")

    (one,) = match_rules([risky, trusted, other_sku], [rule], trust=TRUST)
    ordered = match_rules([risky, trusted, other_sku], [every], trust=TRUST)

    assert one.deal.listing_id == first
    assert [m.deal.listing_id for m in ordered] == ([2, 3] if first == 2 else [1, 2, 3])
    if first == 1:
        said = ordered[0].deal.reason
        assert "a seller without a risk flag costs $30.00 more (item 1002)" in said
    untrusted = match_rules([risky, trusted, other_sku], [rule])  # no [trust]: ranking order
    assert untrusted[0].deal.listing_id == 1


@pytest.mark.parametrize("trusted_price", ["100", "90"], ids=["as dear", "cheaper"])
def test_a_risky_deal_is_not_alerted_beside_a_trusted_one_that_costs_no_more(trusted_price):
    """A new account's V100 at $100 that ranks first (its score read another way) and a trusted
    seller's at the same price or less, both meeting the rule: only the trusted one is sent. A
    trusted auction is no such alternative to a fixed price, nor a trusted listing the rule
    does not match."""
    risky = make_deal(1, landed_unit_price="100", flags=(NEW_ACCOUNT,), score=80.0)
    trusted = make_deal(2, landed_unit_price=trusted_price, score=40.0)
    auction = make_deal(3, landed_unit_price="80", buying_format=BuyingFormat.AUCTION, score=30.0)

    sent = match_rules([risky, trusted, auction], [make_rule()], trust=TRUST)
    choosy = match_rules([risky, trusted, auction], [make_rule(min_score=50)], trust=TRUST)

    assert [m.deal.listing_id for m in sent] == [2, 3]
    assert [m.deal.listing_id for m in choosy] == [1]  # the trusted one scores under 50
    assert "costs $" in choosy[0].deal.reason  # and its alert names the safer listing


def test_a_best_offer_listing_is_as_safe_an_alternative_as_a_buy_it_now_one():
    """Both are fixed prices: a trusted best-offer V100 $0.65 dearer is the safer listing a
    risky buy-it-now one is weighed against (the demo's said "$22.96 more" about another): the
    risky one is not sent beside it. An auction is no such alternative."""
    risky = make_deal(1, landed_unit_price="100", flags=(NEW_ACCOUNT,))
    trusted = make_deal(2, landed_unit_price="100.65", buying_format=BuyingFormat.BEST_OFFER)
    dearer = make_deal(3, landed_unit_price="123.58")
    auction = make_deal(4, landed_unit_price="90", buying_format=BuyingFormat.AUCTION)

    matched = match_rules([risky, auction, trusted, dearer], [make_rule()], trust=TRUST)
    without_it = match_rules([risky, auction, dearer], [make_rule()], trust=TRUST)

    assert [m.deal.listing_id for m in matched] == [4, 2, 3]
    # with only the $123.58 one (more than a fifth dearer), the risky one is sent, and says so
    assert [m.deal.listing_id for m in without_it] == [1, 4, 3]
    assert "costs $23.58 more (item 1003)" in without_it[0].deal.reason
