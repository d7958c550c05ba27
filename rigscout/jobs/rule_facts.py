"""The history the alert rules ask about, loaded at the edge for the deals that may need it.

``new_low_days`` and ``min_drop`` depend on prices the ranking does not carry. Only deals that
already meet the rest of such a rule are looked up, so a run whose rules name a few SKUs reads a
few SKUs' history, whatever the size of the store. Amounts are landed by ``ranking.landed``,
as the ranking lands the deal they are compared with.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from alerts.rules import RuleFacts, rule_matches
from db.alert_facts import load_first_prices, load_lowest_totals
from ranking.landed import landed_with_freight

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime
    from decimal import Decimal

    from sqlalchemy.orm import Session

    from alerts.settings import AlertRule
    from core.models import Deal
    from core.settings import RankSettings
    from db.alert_facts import SeenPrice


def load_rule_facts(
    session: Session,
    deals: Sequence[Deal],
    rules: Sequence[AlertRule],
    settings: RankSettings,
    *,
    profile: str | None,
    now: datetime,
) -> RuleFacts:
    """First prices and recent lows for the deals the history rules may match."""
    first: dict[int, Decimal] = {}
    lows: dict[int, dict[str, tuple[tuple[int, Decimal], ...]]] = {}
    drops = [r for r in rules if r.min_drop is not None]
    if drops:
        wanted = {d.listing_id for d in deals if any(rule_matches(d, r, profile) for r in drops)}
        for seen in load_first_prices(session, wanted):
            if (price := _landed(seen, settings)) is not None:
                first[seen.listing_id] = price
    for days in sorted({r.new_low_days for r in rules if r.new_low_days is not None}):
        asking = [r for r in rules if r.new_low_days == days]
        skus = {d.sku for d in deals if any(rule_matches(d, r, profile) for r in asking)}
        since = now.date() - timedelta(days=days)
        lows[days] = _two_lowest(load_lowest_totals(session, skus, since=since), settings)
    return RuleFacts(first, lows)


def _two_lowest(
    rows: Sequence[SeenPrice], settings: RankSettings
) -> dict[str, tuple[tuple[int, Decimal], ...]]:
    """Per SKU, its two cheapest listings' lowest landed prices (enough for "lowest other")."""
    best: dict[str, dict[int, Decimal]] = {}
    for row in rows:
        price = _landed(row, settings)
        if price is None:
            continue
        listings = best.setdefault(row.sku, {})
        if row.listing_id not in listings or price < listings[row.listing_id]:
            listings[row.listing_id] = price
    return {
        sku: tuple(sorted(listings.items(), key=lambda item: item[1])[:2])
        for sku, listings in best.items()
    }


def _landed(seen: SeenPrice, settings: RankSettings) -> Decimal | None:
    landed = landed_with_freight(
        seen.price,
        seen.shipping,
        seen.quantity,
        seen.currency,
        category=seen.category,
        settings=settings,
        marketplace=seen.marketplace,
        location=seen.location,
    )
    return landed.unit_price if landed is not None else None
