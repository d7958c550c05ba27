"""Scams as a pattern, not a listing-by-listing warning (the rules and thresholds are the
``[scam]`` table and the ``scam_pattern`` and ``new_account_pattern`` signals of
``flags.toml``; which cards are data-center cards is the catalog's ``segment`` column).

* A price far under the market of its card, or, when the card has no market yet, of its
  nearest sibling (the same model in another form factor or memory size), from a seller under
  ``[rank] min_seller_feedback``, with a "brand new sealed" claim on data-center hardware, or
  with no returns,
  is kept out with its reason: "check before buying: 73 % under A100 SXM4 40GB sales; seller
  has 3 feedback".
* A seller with more at stake than its record (listings worth together at least ``[scam]
  stake_floor`` and ``stake_per_feedback`` per feedback) is flagged on every one of them: "a
  2-feedback seller lists 31 items worth $38,210 at once".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from typing import TYPE_CHECKING

from core import fmt
from core.text import match_form
from ranking.titles import flags_file

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from core.models import Flag
    from core.settings import RankSettings
    from ranking.catalog import Sku
    from ranking.market.sold import Market
    from ranking.rows import ActiveRow


@dataclass(frozen=True, slots=True)
class ScamRules:
    sealed: re.Pattern[str]
    stake_floor: Decimal  # a seller is never flagged for listing less than this together
    stake_per_feedback: Decimal  # …nor for less than this per feedback (feedback + 1)
    vouched_feedback: int  # a seller with this much feedback is never flagged


@cache
def load_scam_rules() -> ScamRules:
    raw = flags_file()["scam"]
    phrases = sorted(raw["sealed_phrases"], key=len, reverse=True)
    return ScamRules(
        sealed=re.compile(r"\b(?:" + "|".join(re.escape(p) for p in phrases) + r")\b", re.I),
        stake_floor=Decimal(str(raw["stake_floor"])),
        stake_per_feedback=Decimal(str(raw["stake_per_feedback"])),
        vouched_feedback=int(raw["vouched_feedback"]),
    )


def smaller_siblings(sku: Sku, skus: Mapping[str, Sku]) -> list[Sku]:
    """Same model family and form factor with less VRAM (an A100 80GB's 40GB sibling), the
    largest first: a price far under the card's market that fits one of theirs reads as a
    mislabelled capacity."""
    if not sku.family or not sku.vram_gb:
        return []
    return sorted(
        (
            s
            for s in skus.values()
            if s.family == sku.family
            and s.form_factor == sku.form_factor
            and s.vram_gb
            and s.vram_gb < sku.vram_gb
        ),
        key=lambda s: -(s.vram_gb or 0),
    )


def nearest_sibling_market(
    sku: Sku, skus: Mapping[str, Sku], markets: Mapping[str, Market]
) -> tuple[Sku, Market] | None:
    """The market of the same model in another form factor or memory size, the closest first
    (same form factor, then the nearest VRAM); None when no sibling has one."""
    if not sku.family:
        return None
    siblings = [
        (s, markets[s.sku])
        for s in skus.values()
        if s.family == sku.family and s.sku != sku.sku and s.sku in markets
    ]
    if not siblings:
        return None
    return min(
        siblings,
        key=lambda pair: (
            pair[0].form_factor != sku.form_factor,
            abs((pair[0].vram_gb or 0) - (sku.vram_gb or 0)),
            pair[0].sku,
        ),
    )


def scam_reason(
    row: ActiveRow,
    sku: Sku,
    *,
    under: float,
    reference: str,
    settings: RankSettings,
    rules: ScamRules,
    flags: Sequence[Flag] = (),
) -> str | None:
    """Why a price ``under`` (0.73 = 73 %) the ``reference`` market is a scam's pattern, or
    None when nothing but the price points that way."""
    if under <= settings.check_discount:
        return None
    reasons = []
    feedback = row.seller_feedback
    if feedback is not None and feedback < settings.min_seller_feedback:
        reasons.append(f"seller has {feedback} feedback")
    if sku.datacenter and rules.sealed.search(match_form(row.title)):
        reasons.append('"brand new sealed" data-center hardware')
    if any(f.code == "no_returns" for f in flags):
        reasons.append("no returns")
    if not reasons:
        return None
    return f"check before buying: {round(under * 100)} % under {reference}; {'; '.join(reasons)}"


def new_accounts(
    listings: Iterable[tuple[str | None, int | None, int, Decimal]],
    settings: RankSettings,
    rules: ScamRules,
) -> dict[str, str]:
    """Sellers with more at stake than their record: listings worth together at least
    ``rules.stake_floor`` and ``rules.stake_per_feedback`` per feedback (feedback + 1), each
    with the flag's wording. Smooth in feedback, not a cliff: a 2-feedback account is flagged
    from $5,000 listed, a 17-feedback one from $18,000, a 2,500-feedback one from $2.5 million.
    ``listings``: (seller, feedback, quantity, landed unit price)."""
    count: dict[str, int] = {}
    worth: dict[str, Decimal] = {}
    record: dict[str, int] = {}
    for seller, feedback, quantity, unit_price in listings:
        if not seller or feedback is None or feedback >= rules.vouched_feedback:
            continue
        count[seller] = count.get(seller, 0) + 1
        worth[seller] = worth.get(seller, Decimal(0)) + unit_price * quantity
        record[seller] = max(record.get(seller, 0), feedback)  # the same in any order
    return {
        seller: (
            f"a {record[seller]:,}-feedback seller lists {n} item{'s' if n != 1 else ''} "
            f"worth {fmt.money(worth[seller], settings.currency)} at once"
        )
        for seller, n in count.items()
        if worth[seller] >= max(rules.stake_floor, rules.stake_per_feedback * (record[seller] + 1))
    }
