"""Deals as the user sees them: the terminal table with each deal's sentence, and JSON.

Kept apart from ``rigscout.jobs.daily`` so ``rigscout rank`` imports no collector, HTTP client or
scheduler code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.clock import utcnow
from rigscout.cli.render import render_deal_reasons, render_deals_table

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import Console

    from core.models import Deal


def print_deals(
    console: Console, deals: Sequence[Deal], *, title: str = "Top deals", wide: bool = False
) -> None:
    """The table at the console's width, then each deal's sentence: wrapped at word breaks on a
    terminal, one line each in a pipe (for grep)."""
    table = render_deals_table(deals, now=utcnow(), title=title, width=console.width, wide=wide)
    console.print(table)
    for line in render_deal_reasons(deals):
        console.print(line, highlight=False, markup=False, soft_wrap=not console.is_terminal)
