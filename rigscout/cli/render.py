"""Terminal output: rich tables for deals, runs and the run summary (pure: data in, Table
out), and the run's progress bar."""

from __future__ import annotations

import re
import textwrap
from collections import Counter
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
    notes = min(max((width - fixed) // 5, 12), 28) if width >= 80 else 0

    def gaps(columns: int) -> int:  # per column: its padding and the box's divider or edge
        return 2 * columns + 1

    base = 5 + bool(notes)  # #, Model, Landed, vs market, Score (+ Notes)
    if width < 100:  # "V100 SXM2 16GB" whole; a longer model name gives way to the title
        model = min(model, 14)
    listing = width - fixed - model - notes - gaps(base + 1)
    if listing < 8:  # too narrow for a useful title: the model takes the room
        listing = 0
        model = max(min(width - fixed - notes - gaps(base), 18), 5)
    elif not wide:
        rows = _told_apart(rows, deals, listing)
    table = Table(
        title=title,
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 1, 0, 0),
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
    for cells, deal in zip(rows, deals, strict=True):
        shown = [cells[0], cells[1]] + ([cells[2]] if listing else []) + list(cells[3:6])
        tags = render_notes(deal, now)
        table.add_row(*shown, *([escape(fit_tags(tags, notes))] if notes else []))
    return table


def _deal_cells(i: int, deal: Deal, now: datetime) -> tuple[str, ...]:
    lot = f"{deal.quantity}x " if deal.quantity > 1 else ""
    return (
        str(i),
        escape(short_model(deal.sku_name)),
        escape(lot + title_beyond_model(deal.title, deal.sku_name)),
        render_landed(deal),
        render_market(deal),
        f"{deal.score:.0f}",
        escape(", ".join(render_notes(deal, now))),
    )


def _told_apart(
    rows: list[tuple[str, ...]], deals: Sequence[Deal], width: int
) -> list[tuple[str, ...]]:
    """Rows whose titles read the same in ``width`` characters start with the item number's
    last digits instead (the number each deal's link below ends with)."""
    seen = Counter(cells[2][: width - 1] for cells in rows)
    return [
        (*cells[:2], f"…{deal.item_id[-4:]} {cells[2]}", *cells[3:])
        if seen[cells[2][: width - 1]] > 1
        else cells
        for cells, deal in zip(rows, deals, strict=True)
    ]


_SAID_BY_EVERY_TITLE = frozenset({"nvidia", "tesla", "geforce", "gpu", "amd", "radeon"})
_WORD = re.compile(r"[^\s,|()\[\]]+")


def title_beyond_model(title: str, model: str) -> str:
    """The seller's title without the words the Model column already says, so two rows of
    one model differ in what they show: "NVIDIA Tesla V100 SXM2 16GB GPU Server Pull" under
    "V100 SXM2 16GB" reads "Server Pull". The whole title when nothing else is left."""
    said = {w.lower() for w in re.split(r"[\s\-]+", model)} | _SAID_BY_EVERY_TITLE
    kept = [word for word in _WORD.findall(title) if not set(re.split(r"-+", word.lower())) <= said]
    return " ".join(kept) or title


def fit_tags(tags: Sequence[str], width: int, lines: int = 2) -> str:
    """As many tags as fit ``lines`` lines of ``width``, then "+N" for the rest (each deal's
    sentence under the table says them all)."""
    for keep in range(len(tags), -1, -1):
        hidden = len(tags) - keep
        parts = [t + "," for t in tags[: keep - 1]] + list(tags[keep - 1 : keep])
        parts += [f"+{hidden}"] if hidden else []
        rows: list[str] = []
        for part in parts:
            if rows and len(rows[-1]) + 1 + len(part) <= width:
                rows[-1] += " " + part
            else:
                rows.append(part)
        if len(rows) <= lines and all(len(r) <= width for r in rows):
            return "\n".join(rows)
    return ""


def short_model(name: str) -> str:
    """The catalog name without the maker and product line everyone knows: "Tesla V100 SXM2
    16GB" reads "V100 SXM2 16GB", "NVIDIA GeForce RTX 3090 24GB" reads "RTX 3090 24GB",
    "Supermicro SuperServer 4028GR-TRT" reads "4028GR-TRT"."""
    for prefix in (
        "NVIDIA ", "AMD ", "Tesla ", "GeForce ", "Radeon ", "Instinct ",
        "Supermicro ", "SuperServer ", "Gigabyte ", "Asus ",
    ):  # fmt: skip
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


# Flags every card of a kind carries (its CUDA support, where it ships from): after the ones
# that set this listing apart, so a narrow Notes column keeps those.
_COMMON_FLAGS = ("software_support", "ships_from_abroad")


def render_notes(deal: Deal, now: datetime) -> list[str]:
    """Short tags, what sets this listing apart first: the auction's bid and time left, its
    own flags, its configuration, the host it needs, then the flags its kind shares."""
    notes = []
    if deal.current_bid is not None:
        bid = fmt.money(deal.current_bid, deal.currency)
        notes.append(f"bid {bid} {fmt.time_left(deal.end_time, now)}".strip())
    notes += [_tag(f) for f in deal.flags if f.code not in _COMMON_FLAGS]
    if deal.config is not None:
        notes.append(deal.config.tag(gpus=deal.gpus_included > 0))
    if deal.needs_host:
        notes.append(f"{deal.needs_host} host")
    notes += [_tag(f) for code in _COMMON_FLAGS for f in deal.flags if f.code == code]
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
        *([("deals ranked", len(report.deals))] if report.ranked else []),
        *([("alerts sent", report.alerts.total_sent)] if report.alerts else []),
        ("failed searches", len(report.failures)),
    ]
    if saved.cards_skipped:  # each named in the log's warning line
        rows.append(("unreadable cards skipped", saved.cards_skipped))
    for name, value in rows:
        table.add_row(name, str(value))
    return table


# The runs table's columns, most needed first: on a narrow terminal the last ones give way
# whole (``--json`` has them all) instead of every column being cut to "…".
_RUN_COLUMNS = (
    "id", "started", "status", "seen", "new", "err", "took", "req", "chg", "alerts", "chan",
)  # fmt: skip
_RUN_LEGEND = {
    "req": "req requests",
    "seen": "seen/new listings",
    "chg": "chg price changes",
    "err": "err failed searches",
    "chan": "chan failed alert channels",
}


def render_runs_table(runs: Sequence[RunSummary], *, width: int = 80) -> Table:
    """Recent runs in ``width`` columns: every number whole. The columns that do not fit are
    left out, the least needed first; the source takes what room is left."""
    cells = [
        {
            "id": str(run.id),
            "started": run.started_at.strftime("%m-%d %H:%M"),
            "status": run.status,
            "source": escape(run.source),
            "req": str(run.requests),
            "seen": str(run.listings_seen),
            "new": str(run.listings_new),
            "chg": str(run.observations_new),
            "alerts": str(run.alerts_sent),
            "err": str(sum("channel" not in e for e in run.errors)),
            "chan": str(sum("channel" in e for e in run.errors)),
            "took": render_duration(run.duration.total_seconds()) if run.duration else "",
        }
        for run in runs
    ]

    def needs(name: str) -> int:  # its widest cell or heading, its padding and divider
        return max([len(name), *(len(c[name]) for c in cells)]) + 2

    room = width - 2  # the table's two edges
    shown = list(_RUN_COLUMNS)
    while len(shown) > 1 and sum(map(needs, shown)) > room:
        shown.pop()
    source = room - sum(map(needs, shown)) - 2
    legend = [text for name, text in _RUN_LEGEND.items() if name in shown]
    table = Table(
        title="Recent runs",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 1, 0, 0),
        caption=", ".join(legend) or None,
    )
    names = list(shown)
    if source >= 8:  # room for the source's start ("offline:…", "ebay")
        names.insert(names.index("status") + 1 if "status" in names else len(names), "source")
    for name in names:
        if name == "source":
            table.add_column(name, overflow="ellipsis", no_wrap=True, max_width=min(source, 40))
        elif name in ("started", "status"):
            table.add_column(name, no_wrap=True)
        else:
            table.add_column(name, justify="right", no_wrap=True)
    for c in cells:
        table.add_row(*(c[n] for n in names))
    return table


def wrap_lines(text: str, width: int) -> str:
    """Each line of ``text`` wrapped at word breaks to ``width``, its continuation indented two
    more than the line (past a "! " or "- " mark), never breaking a link or a number."""
    out: list[str] = []
    for line in text.splitlines():
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        hang = indent + (2 if body[:2] in ("! ", "- ") else 0) + 2
        out += textwrap.wrap(
            line,
            width=max(width, hang + 20),
            subsequent_indent=" " * hang,
            break_long_words=False,
            break_on_hyphens=False,
        ) or [""]
    return "\n".join(out)


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
