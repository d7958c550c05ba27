"""Deals as the user sees them: the terminal table with each deal's sentence, and JSON.

Kept apart from ``rigscout.jobs.daily`` so ``rigscout rank`` imports no collector, HTTP client or
scheduler code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.clock import utcnow
from ranking.titles.user_catalog import user_skus
from rigscout.cli.render import render_deal_reasons, render_deals_table

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from rich.console import Console

    from core.models import Deal
    from ranking.catalog import Sku


def load_skus(extra: Sequence[Path] = ()) -> Mapping[str, Sku]:
    """The catalog by SKU id, with the user's own files (``[catalog] extra``) merged in."""
    return user_skus(extra)


def print_deals(
    console: Console, deals: Sequence[Deal], *, title: str = "Top deals", wide: bool = False
) -> None:
    """The table at the console's width, then each deal's sentence: wrapped at word breaks on a
    terminal, one line each in a pipe (for grep)."""
    table = render_deals_table(deals, now=utcnow(), title=title, width=console.width, wide=wide)
    console.print(table)
    for line in render_deal_reasons(deals):
        console.print(line, highlight=False, markup=False, soft_wrap=not console.is_terminal)


def deal_json(deal: Deal) -> dict[str, object]:
    """The deal as JSON values for scripts: the alert snapshot, with money as numbers."""
    from alerts.outbox import render_snapshot  # the JSON contract is the alert snapshot's

    data = render_snapshot(deal)
    data.pop("previous_price", None)  # an alert's, not a ranking's
    for key in ("landed_unit_price", "baseline", "current_bid", "predicted_low", "predicted_high"):
        if data.get(key) is not None:
            data[key] = float(str(data[key]))
    for line in data.get("reference") or []:  # type: ignore[attr-defined]
        line["amount"] = float(str(line["amount"]))
    return data
