"""Which deals a rule asks for: every condition it sets must hold."""

from __future__ import annotations

from decimal import Decimal

import pytest

from alerts.rules import Match, match_rules
from core.models import Category
from tests.alerts.factories import make_deal, make_rule

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
