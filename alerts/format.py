"""Text pieces shared by the email and Discord renderers: prices, discounts, safe links.

Pure and channel-neutral; each renderer applies its own escaping on top.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from core import fmt
from core.text import without_bidi

if TYPE_CHECKING:
    from collections.abc import Sequence

    from core.models import Deal

RIG = "rig"  # Deal.price_basis of a saved plan's rig
TEST = "test"  # Deal.price_basis of `rigscout alerts test`'s sample: no price, no market
TEST_HEADLINE = "rigscout: test message, this channel works"
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u0085\u2028\u2029]+")
_SPACES = re.compile(r"\s+")


def lead_line(deals: Sequence[Deal]) -> str:
    """The line a message opens with: how many deals matched, or that it is only a test."""
    if deals and all(d.price_basis == TEST for d in deals):
        return "A test message from rigscout: this channel works (nothing to buy in it)"
    if len(deals) == 1:
        return "1 deal matched your alert rules"
    return f"{len(deals)} deals matched your alert rules"


def format_unit(deal: Deal) -> str:
    """What the landed price is for: "landed per unit", or "for the whole rig"."""
    if deal.price_basis == TEST:
        return "(a test: no listing, no price)"
    return "for the whole rig" if deal.price_basis == RIG else "landed per unit"


def format_landed(deal: Deal) -> str:
    """The landed unit price as the buyer should read it: predicted, estimated, or dropped.

    ``was 180.00 USD, now 150.00 USD (−17 %)`` for a price drop; a running auction reads
    ``likely 125.00–140.00 USD (current bid 108.00 USD)``.
    """
    if deal.price_basis == TEST:
        return "—"
    price = fmt.money(deal.landed_unit_price, deal.currency)
    if deal.price_basis == "predicted" and deal.predicted_low is not None:
        likely = fmt.money_range(deal.predicted_low, deal.predicted_high, deal.currency)
        bid = fmt.money(deal.current_bid or deal.landed_unit_price, deal.currency)
        price = f"likely {likely} (current bid {bid})"
    if deal.freight_estimated:
        price += " incl. estimated freight"
    was = deal.previous_price
    if was is not None and was > 0 and deal.landed_unit_price < was:
        drop = round((1 - deal.landed_unit_price / was) * 100)
        price = f"was {fmt.money(was, deal.currency)}, now {price} (−{drop} %)"
    return price


def format_discount(deal: Deal) -> str:
    """How far the deal sits from the market, in words a buyer reads at a glance."""
    if deal.price_basis == RIG:
        return "a complete rig for your saved plan"
    if deal.price_basis == TEST:
        return "deals that match your rules will look like this"
    if deal.discount is None:
        return "no market price yet"
    share = round(abs(deal.discount) * 100)
    side = "under" if deal.discount >= 0 else "over"
    basis = f" ({deal.baseline_count} {deal.baseline_source})" if deal.baseline_source else ""
    if deal.reference:  # a server: against machines like it (its sentence shows the sum)
        return f"{share} % {side} like-for-like{basis}, {deal.evidence} evidence"
    return f"{share} % {side} market{basis}, {deal.evidence} evidence"


def one_line(text: str, limit: int | None = None) -> str:
    """Control characters and line breaks become spaces, direction controls go; cut to
    ``limit`` with an ellipsis."""
    flat = _SPACES.sub(" ", _CONTROL.sub(" ", without_bidi(text))).strip()
    if limit is not None and len(flat) > limit:
        return flat[: limit - 1].rstrip() + "…"
    return flat


def safe_url(url: str | None) -> str | None:
    """The URL when it is a plain http(s) link, else None (no ``javascript:`` or ``data:``)."""
    if not url:
        return None
    parts = urlsplit(url.strip())
    if parts.scheme.lower() not in {"http", "https"} or not parts.netloc:
        return None
    if _CONTROL.search(url) or any(c in url for c in ' "<>'):
        return None
    return url.strip()
