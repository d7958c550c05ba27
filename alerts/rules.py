"""Alert rules: which ranked deals a user wants to hear about, and on which channels.

Pure: deals, the ``[[alerts.rule]]`` tables of the config and the facts some conditions need
in, ``Match`` records out. A deal matches a rule when every condition the rule sets holds:

- ``sku``, ``category``, ``profile``, ``max_price``, ``min_discount``, ``min_score``: what the
  ranking says of the deal;
- ``new_low_days = 30``: its landed unit price is under every landed unit price another listing
  of its SKU showed in the last 30 days (asking or sold; with no other price, no claim);
- ``min_drop = 0.1``: its own landed unit price is at least 10 % under what it was when
  rigscout first saw the listing (``drop_pct = 10``, the old word, is read as this);
- ``ending_within = "3h"``: a running auction ending within 3 hours, at a likely end (the
  ranked price) under ``max_price`` when the rule sets one: a reminder to bid;
- ``max_per_run = 5``: at most that many deals of the rule per run, the best ranked first.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from core import fmt
from core.models import VERIFY, BuyingFormat, Category
from ranking.plan import trust_weight
from ranking.records import FigureBound

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from datetime import datetime
    from decimal import Decimal

    from alerts.settings import AlertRule
    from core.models import Deal
    from ranking.plan import PlanRules


class Match(NamedTuple):
    """One deal that one rule asked for (a named tuple: a run may make thousands)."""

    deal: Deal
    rule: AlertRule


@dataclass(frozen=True, slots=True)
class RuleFacts:
    """What the history says, for the conditions the ranking alone cannot decide.

    ``first_prices``: a listing's landed unit price when first seen. ``lows``: per number of
    days, per SKU, the lowest landed unit price of each listing in that many days, lowest
    first (two listings are enough to know the lowest *other* one).
    """

    first_prices: Mapping[int, Decimal] = field(default_factory=dict)
    lows: Mapping[int, Mapping[str, tuple[tuple[int, Decimal], ...]]] = field(default_factory=dict)


def needs_history(rules: Sequence[AlertRule]) -> bool:
    """True when a rule asks for a new low or a price drop (facts the store must supply)."""
    return any(r.new_low_days is not None or r.min_drop is not None for r in rules)


class Trust(NamedTuple):
    """How alerts weigh a seller (plan.toml ``[trust]``, as plans do): the flag codes that make
    a listing risky, and how much more a trusted seller's listing may cost and still go first."""

    risk: frozenset[str]
    margin: float

    @classmethod
    def of(cls, rules: PlanRules) -> Trust:
        """The plans' trust rules (``PlanRules.seller_risk`` and ``trust_margin``)."""
        return cls(rules.seller_risk, rules.trust_margin)


def _risky(deal: Deal, trust: Trust) -> bool:
    return any(f.code in trust.risk for f in deal.flags)


def _same_kind(a: Deal, b: Deal) -> bool:
    """The same SKU, both at a fixed price (buy it now or best offer) or both auctions: a
    fixed price is not traded for an auction's guess."""
    return _kind(a) == _kind(b)


def _kind(deal: Deal) -> tuple[str, bool]:
    return deal.sku, deal.buying_format == BuyingFormat.AUCTION


def trust_order(deals: Sequence[Deal], trust: Trust | None) -> list[int]:
    """The deals' indices in the order alerts take them: the ranking's, except that a deal
    from a risky seller comes right after the first trusted deal of the same kind (``_same_kind``)
    that costs at most ``trust.margin`` more: it never heads an alert (nor takes a rule's
    last place) while that safer listing is there."""
    if trust is None or not trust.risk:
        return list(range(len(deals)))

    def risky(deal: Deal) -> bool:
        return _risky(deal, trust)

    def safer(i: int) -> int | None:
        deal, bound = deals[i], deals[i].landed_unit_price * trust_weight(trust.margin)
        return next(
            (
                j
                for j in range(i + 1, len(deals))
                if _same_kind(deals[j], deal)
                and deals[j].landed_unit_price <= bound
                and not risky(deals[j])
            ),
            None,
        )

    order: list[int] = []
    waiting: dict[int, list[int]] = {}  # a trusted deal -> the risky ones placed after it
    for i, deal in enumerate(deals):
        after = safer(i) if risky(deal) else None
        if after is not None:
            waiting.setdefault(after, []).append(i)
            continue
        order.append(i)
        order += waiting.pop(i, [])
    return order


def match_rules(
    deals: Sequence[Deal],
    rules: Sequence[AlertRule],
    *,
    profile: str | None = None,
    now: datetime | None = None,
    facts: RuleFacts | None = None,
    trust: Trust | None = None,
) -> list[Match]:
    """Every (deal, rule) pair where the deal meets all of the rule's conditions, in ranking
    order (``trust_order``: a risky seller's deal after a trusted one's of the same kind), each
    rule stopping at its ``max_per_run``; a risky seller's deal is left out where a trusted
    deal of the same kind that meets the rule costs at most the trust margin more
    (``_without_dominated``).

    ``profile`` is the ranking profile the deals were scored with; a rule that names a
    profile only matches deals ranked under that profile. ``now`` decides ``ending_within``
    (without it no auction is "ending"); ``facts`` the history conditions (without them, no
    deal is a new low or a drop). The ranking's figures are read into columns once and each
    rule's tests are array comparisons on them; only the deals they let through meet the
    history conditions, one by one.
    """
    facts = facts or RuleFacts()
    order = trust_order(deals, trust)
    place = {i: at for at, i in enumerate(order)}
    columns: dict[str, np.ndarray[Any, Any]] = {}
    pairs: list[tuple[int, int]] = []
    for r, rule in enumerate(rules):
        tests, history = _conditions(rule, profile, now, facts)
        keep = np.ones(len(deals), dtype=bool)
        for test in tests:
            if test.field not in columns:
                figures = [_figure(deal, test.field) for deal in deals]
                columns[test.field] = _column(test.field, figures)
            keep &= test.mask(columns[test.field])
        pool: list[int] = sorted(np.flatnonzero(keep).tolist(), key=place.__getitem__)
        for holds in history:
            pool = [i for i in pool if holds(deals[i])]
        pool = _without_dominated(deals, pool, trust)
        if rule.max_per_run is not None:
            pool = pool[: rule.max_per_run]
        pairs += [(place[i], r) for i in pool]
    pairs.sort()
    return [Match(_with_safer(deals, order[at], trust), rules[r]) for at, r in pairs]


def _without_dominated(deals: Sequence[Deal], pool: list[int], trust: Trust | None) -> list[int]:
    """``pool`` less each risky seller's deal that a deal of the same kind from a seller
    without a risk flag, in the same pool, costs at most ``trust.margin`` more than: the one a
    buyer following the guides takes (as a plan does), and the rule's alert. A risky deal
    cheaper than that is still sent, its flags and the safer listing's price with it."""
    if trust is None or not trust.risk:
        return pool
    weight = trust_weight(trust.margin)
    cheapest: dict[tuple[str, bool], Decimal] = {}
    for i in pool:
        deal = deals[i]
        if not _risky(deal, trust):
            best = cheapest.get(_kind(deal))
            if best is None or deal.landed_unit_price < best:
                cheapest[_kind(deal)] = deal.landed_unit_price

    def kept(deal: Deal) -> bool:
        best = cheapest.get(_kind(deal))
        return best is None or best > deal.landed_unit_price * weight or not _risky(deal, trust)

    return [i for i in pool if kept(deals[i])]


def _with_safer(deals: Sequence[Deal], i: int, trust: Trust | None) -> Deal:
    """Deal ``i``; from a risky seller, its reason also says what the cheapest listing of the
    same kind from a seller without a risk flag costs more (as a plan says it)."""
    deal = deals[i]
    if trust is None or not _risky(deal, trust):
        return deal
    safe = [
        d
        for d in deals
        if _same_kind(d, deal) and d.listing_id != deal.listing_id and not _risky(d, trust)
    ]
    if not safe:
        return deal
    other = min(safe, key=lambda d: (d.landed_unit_price, d.listing_id))
    gap = other.landed_unit_price - deal.landed_unit_price
    costs = f"{fmt.money(abs(gap), deal.currency)} {'more' if gap >= 0 else 'less'}"
    note = (
        f"the same {deal.sku_name} from a seller without a risk flag costs {costs} "
        f"(item {other.item_id})"
    )
    return replace(deal, reason=f"{deal.reason}; {note}")


def rule_matches(deal: Deal, rule: AlertRule, profile: str | None = None) -> bool:
    """True when ``deal`` meets every condition of ``rule`` the ranking alone decides (one deal
    at a time, cheaply: a run asks it of every ranked listing to pick the ones to explain)."""
    tests, _ = _conditions(rule, profile, None, None)
    return all(test.holds(_figure(deal, test.field)) for test in tests)


def rule_bounds(
    rules: Sequence[AlertRule], profile: str | None = None
) -> tuple[tuple[FigureBound, ...], ...]:
    """Each rule's tests on the ranking's figures as bounds a ranking can check before it
    prices (``RankFilters.may_match``): the listings outside all of them match no rule. A rule
    for another profile bounds everything out; the history conditions bound nothing."""
    return tuple(tuple(_conditions(rule, profile, None, None)[0]) for rule in rules)


# What only a deal without a flag to verify can claim: a title that may say it is faulty
# makes no strong deal, however far under the market its price is.
STRONG = frozenset({"discount", "score"})


def _figure(deal: Deal, field: str) -> Any:
    if field in STRONG and any(f.severity == VERIFY for f in deal.flags):
        return None
    return getattr(deal, field)


@dataclass(frozen=True, slots=True)
class _Test(FigureBound):
    """One condition on a figure of the deal, ``field`` ``op`` ("in", "le", "ge") ``value``:
    ``mask`` asks it of every deal at once (``match_rules``), ``holds`` of one
    (``rule_matches``). The two stand side by side, and a test compares them on random deals.
    A ranking checks the same conditions on its kept columns (``rule_bounds``)."""

    def holds(self, figure: Any) -> bool:
        if self.op == "in":
            return bool(figure in self.value)
        if figure is None:  # a deal without a market has no discount: it proves nothing
            return False
        return bool(figure <= self.value if self.op == "le" else figure >= self.value)

    def mask(self, column: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        if self.op == "in":
            if len(self.value) == 1:
                return np.asarray(column == next(iter(self.value)), dtype=bool)
            return np.isin(column, list(self.value))
        if self.op == "le":
            return np.asarray(column <= self.value, dtype=bool)
        # "ge": a missing figure (NaN: a deal without a market has no discount) proves nothing.
        return np.asarray(column >= self.value, dtype=bool)


def _column(field: str, values: list[Any]) -> np.ndarray[Any, Any]:
    """A figure of many deals as an array: prices stay exact ``Decimal`` objects (compared as
    such), a missing number is NaN (never true in a comparison)."""
    if field in ("sku", "category", "landed_unit_price"):
        column = np.empty(len(values), dtype=object)
        column[:] = values
        return column
    if None in values:
        values = [np.nan if v is None else v for v in values]
    return np.array(values, dtype=float)


def _conditions(
    rule: AlertRule, profile: str | None, now: datetime | None, facts: RuleFacts | None
) -> tuple[list[_Test], list[Callable[[Deal], bool]]]:
    """The rule's tests on the ranking's figures (its SKU test first), and the conditions on
    history (none when ``facts`` is None). Each condition is written here once."""
    if rule.profile is not None and rule.profile != profile:
        return [_Test("sku", "in", frozenset())], []
    tests = []
    if rule.skus:
        tests.append(_Test("sku", "in", frozenset(rule.skus)))
    if rule.category is not None:
        tests.append(_Test("category", "in", frozenset({Category(rule.category.lower())})))
    if rule.max_price is not None:
        tests.append(_Test("landed_unit_price", "le", rule.max_price))
    if rule.min_score is not None:
        tests.append(_Test("score", "ge", rule.min_score))
    if rule.min_discount is not None:
        tests.append(_Test("discount", "ge", rule.min_discount))
    history: list[Callable[[Deal], bool]] = []
    if facts is None:
        return tests, history
    if (within := rule.ending_within) is not None:
        history.append(lambda d: _ending(d, within, now))
    if (days := rule.new_low_days) is not None:
        history.append(lambda d: is_new_low(d, days, facts))
    if (drop := rule.min_drop) is not None:
        history.append(lambda d: (fell := dropped(d, facts)) is not None and fell >= drop)
    return tests, history


def is_new_low(deal: Deal, days: int, facts: RuleFacts) -> bool:
    """True when no other listing of the SKU showed a landed price at or under this one."""
    seen = facts.lows.get(days, {}).get(deal.sku, ())
    others = [price for listing, price in seen if listing != deal.listing_id]
    return bool(others) and deal.landed_unit_price < others[0]


def dropped(deal: Deal, facts: RuleFacts) -> float | None:
    """The fraction by which the listing's landed price fell since first seen (None: not
    known)."""
    first = facts.first_prices.get(deal.listing_id)
    if first is None or first <= 0:
        return None
    return float((first - deal.landed_unit_price) / first)


def _ending(deal: Deal, within: timedelta, now: datetime | None) -> bool:
    if deal.buying_format is not BuyingFormat.AUCTION or deal.end_time is None or now is None:
        return False
    left = deal.end_time - now
    return timedelta(0) < left <= within
