"""Terminal output: rich tables for deals, runs and the run summary (pure: data in, Table
out), and the run's progress bar."""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from core import fmt
from ranking.titles import short_label

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from datetime import datetime

    from core.models import Deal, Flag
    from db.runs import RunSummary
    from rigscout.jobs.pipeline import RunReport


class PipeConsole(Console):
    """rich's console, except that a reader who closed the pipe (``rank | head``) ends the
    command quietly with 0, as every other command does, instead of rich's exit 1."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


def render_discount(discount: float | None) -> str:
    if discount is None:
        return "n/a"
    if round(discount * 100) == 0:
        return "0%"
    return f"-{discount:.0%}" if discount >= 0 else f"+{-discount:.0%}"


def render_deals_table(
    deals: Sequence[Deal],
    *,
    now: datetime,
    title: str = "Top deals",
    width: int = 80,
    wide: bool = False,
) -> Table:
    """One row per deal, ``width`` columns wide: what it is (the catalog model beside the
    seller's title), its landed unit price, its place against the market with the evidence
    behind it, its score, and what to know before buying.

    Prices, discounts and scores are never cut. The model keeps its width first (it tells two
    "NVIDIA TESLA V100 …" rows apart), then the notes, and the title takes what is left, cut
    with "…" or, with ``wide``, wrapped whole. Under 80 columns the notes give way (each
    deal's sentence below the table says the same), then the title.
    Landed: ``~`` an estimated freight is included, ``*`` shipping unknown, ``→`` a running
    auction at its predicted end (its current bid and time left are in Notes).
    """
    rows = [_deal_cells(i, deal, now) for i, deal in enumerate(deals, 1)]
    model = min(max((len(r[1]) for r in rows), default=5), 18)
    # "#", Landed, vs market and Score at their widest cell (or heading): never cut.
    fixed = sum(
        max([len(head), *(len(r[k]) for r in rows)])
        for k, head in ((0, "#"), (3, "Landed"), (4, "vs market"), (5, "Score"))
    )
    notes = min(max((width - fixed) // 5, 10), 28) if width >= 80 else 0

    def gaps(columns: int) -> int:  # per column: its padding, the box's divider or edge
        return 3 * columns

    base = 5 + bool(notes)  # #, Model, Landed, vs market, Score (+ Notes)
    listing = width - fixed - model - notes - gaps(base + 1)
    if listing < 8:  # too narrow for a useful title: the model takes the room
        listing = 0
        model = max(min(width - fixed - notes - gaps(base), 18), 5)
    table = Table(
        title=title,
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        caption="→ auction at its predicted end  ~ estimated freight  * shipping unknown",
    )
    cut = {"overflow": "fold"} if wide else {"overflow": "ellipsis", "no_wrap": True}
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("Model", width=model, **cut)
    if listing:
        table.add_column("Listing", width=listing, **cut)
    table.add_column("Landed", justify="right", no_wrap=True)
    table.add_column("vs market", no_wrap=True)
    table.add_column("Score", justify="right", no_wrap=True)
    if notes:
        table.add_column("Notes", width=notes)
    for cells in rows:
        shown = [cells[0], cells[1]] + ([cells[2]] if listing else []) + list(cells[3:6])
        table.add_row(*shown, *([cells[6]] if notes else []))
    return table


def _deal_cells(i: int, deal: Deal, now: datetime) -> tuple[str, ...]:
    lot = f"{deal.quantity}x " if deal.quantity > 1 else ""
    return (
        str(i),
        escape(short_model(deal.sku_name)),
        escape(lot + deal.title),
        render_landed(deal),
        render_market(deal),
        f"{deal.score:.0f}",
        escape(", ".join(render_notes(deal, now))),
    )


def short_model(name: str) -> str:
    """The catalog name without the maker and product line everyone knows: "Tesla V100 SXM2
    16GB" reads "V100 SXM2 16GB", "NVIDIA GeForce RTX 3090 24GB" reads "RTX 3090 24GB"."""
    for prefix in ("NVIDIA ", "AMD ", "Tesla ", "GeForce ", "Radeon ", "Instinct "):
        name = name.removeprefix(prefix)
    return name.split(" (")[0]


def render_landed(deal: Deal) -> str:
    price = fmt.money(deal.landed_unit_price, deal.currency)
    if deal.price_basis == "predicted":
        price = "→" + price
    if deal.freight_estimated:
        return "~" + price
    return price if deal.shipping_known else price + "*"


def render_market(deal: Deal) -> str:
    """``-23% strong``: the discount and the evidence tier behind it; ``none`` without one."""
    if deal.discount is None:
        return deal.evidence
    return f"{render_discount(deal.discount)} {deal.evidence}"


def render_notes(deal: Deal, now: datetime) -> list[str]:
    """Short tags: the auction's bid and time left, the host it needs, its flags."""
    notes = []
    if deal.current_bid is not None:
        bid = fmt.money(deal.current_bid, deal.currency)
        notes.append(f"bid {bid} {fmt.time_left(deal.end_time, now)}".strip())
    if deal.needs_host:
        notes.append(f"{deal.needs_host} host")
    if deal.config is not None:
        notes.append(deal.config.tag(gpus=deal.gpus_included > 0))
    notes += [_tag(f) for f in deal.flags]
    return notes


def _tag(flag: Flag) -> str:
    return FLAG_TAGS.get(flag.code) or short_label(flag)


FLAG_TAGS = {
    "check_before_buying": "CHECK",
    "seller_low_feedback": "new seller",
    "seller_no_feedback": "no feedback",
    "ships_from_abroad": "abroad",
    "read_description": "read desc.",
    "new_account_pattern": "new account",
    "scam_pattern": "SCAM?",
}


def render_deal_reasons(deals: Sequence[Deal]) -> list[str]:
    """The sentence behind each deal, numbered like the table, with its link."""
    return [f"{i}. {deal.reason}\n   {deal.url}" for i, deal in enumerate(deals, 1)]


def render_run_summary(report: RunReport) -> Table:
    table = Table(title=f"Run {report.run_id}", show_header=False)
    table.add_column("what")
    table.add_column("value", justify="right")
    saved = report.saved
    rows = [
        ("searches", report.searches),
        ("requests", report.requests),
        ("listings seen", saved.seen),
        ("new listings", saved.new_listings),
        ("new price observations", saved.new_observations),
        ("new sales", saved.new_sales),
        ("ended / presumed sold", report.ended),
        ("deals ranked", len(report.deals)),
        ("alerts sent", report.alerts.total_sent if report.alerts else 0),
        ("failed searches", len(report.failures)),
    ]
    if saved.cards_skipped:  # each named in the log's warning line
        rows.append(("unreadable cards skipped", saved.cards_skipped))
    for name, value in rows:
        table.add_row(name, str(value))
    return table


def render_runs_table(runs: Sequence[RunSummary]) -> Table:
    """Recent runs in 80 columns: short headers, the source cut to fit, full data in ``--json``."""
    table = Table(
        title="Recent runs",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 1, 0, 0),
        caption="req requests, seen/new listings, chg price changes, err failed searches",
    )
    table.add_column("id", justify="right", no_wrap=True)
    table.add_column("started", no_wrap=True)
    table.add_column("status", no_wrap=True)
    table.add_column("source", overflow="ellipsis", no_wrap=True, max_width=12)
    for name in ("req", "seen", "new", "chg", "alerts", "err", "took"):
        table.add_column(name, justify="right", no_wrap=True)
    for run in runs:
        table.add_row(
            str(run.id),
            run.started_at.strftime("%m-%d %H:%M"),
            run.status,
            escape(run.source),
            str(run.requests),
            str(run.listings_seen),
            str(run.listings_new),
            str(run.observations_new),
            str(run.alerts_sent),
            str(len(run.errors)),
            render_duration(run.duration.total_seconds()) if run.duration else "",
        )
    return table


def render_duration(seconds: float) -> str:
    """``8.2s``, ``14m``, ``2h05``: short enough for a table column."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    if seconds < 3600:
        return f"{seconds // 60:.0f}m"
    return f"{seconds // 3600:.0f}h{seconds % 3600 // 60:02.0f}"


@contextmanager
def progress_bar(console: Console, total: int) -> Iterator[Callable[[str], None]]:
    """A rich progress bar over the run's steps; yields the callback that advances it."""
    from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    ) as progress:
        task = progress.add_task("starting", total=total)

        def step(label: str) -> None:
            progress.update(task, description=label, advance=1)

        yield step


@contextmanager
def counting(console: Console, what: str) -> Iterator[Callable[[int], None]]:
    """A spinner with a running count ("412,000 price points read") on a terminal, nothing
    elsewhere; yields the callback that adds to the count."""
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(
        SpinnerColumn(),
        TextColumn(f"{{task.completed:,.0f}} {what}"),
        TimeElapsedColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,
    ) as progress:
        task = progress.add_task(what, total=None)

        def add(count: int) -> None:
            progress.update(task, advance=count)

        yield add
