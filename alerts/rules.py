"""Alert rules: which ranked deals a user wants to hear about, and on which channels.

Pure: deals and the ``[[alerts.rule]]`` tables of the config in, ``Match`` records out.
A deal matches a rule when every condition the rule sets holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from alerts.settings import AlertRule
    from core.models import Deal


@dataclass(frozen=True, slots=True)
class Match:
    """One deal that one rule asked for."""

    deal: Deal
    rule: AlertRule


def match_rules(
    deals: Sequence[Deal], rules: Sequence[AlertRule], *, profile: str | None = None
) -> list[Match]:
    """Every (deal, rule) pair where the deal meets all of the rule's conditions.

    ``profile`` is the ranking profile the deals were scored with; a rule that names a
    profile only matches deals ranked under that profile.
    """
    return [
        Match(deal, rule) for deal in deals for rule in rules if rule_matches(deal, rule, profile)
    ]


def rule_matches(deal: Deal, rule: AlertRule, profile: str | None = None) -> bool:
    """True when ``deal`` meets every condition ``rule`` sets."""
    if rule.profile is not None and rule.profile != profile:
        return False
    if rule.skus and deal.sku not in rule.skus:
        return False
    if rule.category is not None and deal.category.value != rule.category.lower():
        return False
    if rule.max_price is not None and deal.landed_unit_price > rule.max_price:
        return False
    if rule.min_score is not None and deal.score < rule.min_score:
        return False
    # A deal without a market baseline has no discount, so it cannot prove it meets one.
    return rule.min_discount is None or (
        deal.discount is not None and deal.discount >= rule.min_discount
    )
