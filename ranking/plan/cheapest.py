"""The cheapest way to buy exactly ``u`` cards of one GPU SKU: a 0/1 knapsack over listings.

Lots count per unit; only the cheapest ``max_units // lot size`` listings of each lot size can
ever be bought, so 100,000 listings shrink to a few dozen per SKU before the knapsack runs.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ranking.plan.records import Offer

ZERO = Decimal(0)

Found: TypeAlias = "tuple[Decimal, tuple[Offer, ...]]"


def cheapest_sets(
    offers: Sequence[Offer], max_units: int, max_auctions: int | None
) -> list[list[Found | None]]:
    """``table[a][u]``: the cheapest listings giving exactly ``u`` cards with at most ``a``
    auctions among them (``a`` is always 0 when auctions are not limited)."""
    budget = max_auctions or 0
    limited = max_auctions is not None
    items = _useful(offers, max_units, limited)
    exact: list[list[Found | None]] = [[None] * (max_units + 1) for _ in range(budget + 1)]
    exact[0][0] = (ZERO, ())
    for offer in items:
        weight = 1 if limited and offer.auction else 0
        for a in range(budget, weight - 1, -1):
            row, source = exact[a], exact[a - weight]
            for u in range(max_units, offer.units - 1, -1):
                prev = source[u - offer.units]
                if prev is None:
                    continue
                cost = prev[0] + offer.price
                if row[u] is None or cost < row[u][0]:  # type: ignore[index]
                    row[u] = (cost, (*prev[1], offer))
    return [_at_most(exact, a) for a in range(budget + 1)]


def _useful(offers: Sequence[Offer], max_units: int, limited: bool) -> list[Offer]:
    """Only the cheapest ``max_units // lot size`` listings of each lot size can be bought."""
    groups: dict[tuple[int, bool], list[Offer]] = {}
    for offer in offers:
        if 0 < offer.units <= max_units:
            groups.setdefault((offer.units, limited and offer.auction), []).append(offer)
    items: list[Offer] = []
    for (units, _), group in groups.items():
        group.sort(key=lambda o: (o.price, o.listing_id))
        items.extend(group[: max_units // units])
    items.sort(key=lambda o: (o.price, o.listing_id))
    return items


def _at_most(exact: list[list[Found | None]], auctions: int) -> list[Found | None]:
    """Per card count, the cheapest set using at most ``auctions`` auctions."""
    best: list[Found | None] = list(exact[0])
    for a in range(1, auctions + 1):
        for u, found in enumerate(exact[a]):
            current = best[u]
            if found is not None and (current is None or found[0] < current[0]):
                best[u] = found
    return best
