"""Price history out of the database: ``export prices|listings`` (CSV), ``chart history|value``
(PNG). Both only read: an uninitialised database is refused, nothing is created in it."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from core.errors import ConfigError
from rigscout.cli.commands.app import AppContext, handle_errors, open_existing_store, pass_app
from rigscout.cli.commands.options import CATEGORIES, output_option, profile_option, resolve_skus

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from datetime import datetime

    from rigscout.outputs.export import ExportFilter

F = TypeVar("F", bound=Any)
DAY = click.DateTime(["%Y-%m-%d"])


def export_options(func: F) -> F:
    options: list[Callable[[F], F]] = [
        click.option("--sku", "skus", multiple=True, help="Only this SKU (repeatable)."),
        click.option("--category", type=click.Choice(CATEGORIES, case_sensitive=False)),
        click.option("--since", type=DAY, help="From this UTC day (YYYY-MM-DD)."),
        click.option("--until", type=DAY, help="To this UTC day, inclusive."),
        output_option("-o", "--output", help="Write to this file instead of stdout."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@contextmanager
def _output(path: Path | None) -> Iterator[Any]:
    if path is None:
        yield sys.stdout
        return
    with path.open("w", encoding="utf-8", newline="") as handle:
        yield handle


def _export_filter(
    skus: tuple[str, ...], category: str | None, since: datetime | None, until: datetime | None
) -> ExportFilter:
    from rigscout.outputs.export import ExportFilter

    skus = resolve_skus(skus)
    if since and until and since > until:
        raise ConfigError(f"--since {since:%Y-%m-%d} is after --until {until:%Y-%m-%d}")
    return ExportFilter(
        skus=skus,
        category=category,
        since=since.date() if since else None,
        until=until.date() if until else None,
    )


@click.group(invoke_without_command=True)
@click.pass_context
def export(ctx: click.Context) -> None:
    """Export price history as CSV (`export prices`, the default, or `export listings`).

    Example:

        rigscout export prices --sku nvidia-tesla-p40 --freq week -o p40.csv
    """
    if ctx.invoked_subcommand is None:
        ctx.invoke(export_prices_cmd)


@export.command("prices")
@export_options
@click.option(
    "--freq",
    type=click.Choice(["day", "week", "month"], case_sensitive=False),
    default="day",
    show_default=True,
)
@pass_app
@handle_errors
def export_prices_cmd(
    app: AppContext,
    skus: tuple[str, ...] = (),
    category: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    output: Path | None = None,
    freq: str = "day",
) -> None:
    """Landed unit price per SKU per period: count, min, median, max; sold vs active.

    Prices are landed as in `rank`: in your currency, per unit, with the estimated freight
    for unknown shipping.

    Example:

        rigscout export prices --category gpu --since 2026-10-01 --freq week
    """
    from rigscout.cli.render import PipeConsole, counting
    from rigscout.outputs.export import export_prices

    flt = _export_filter(skus, category, since, until)
    settings = app.settings()
    engine = open_existing_store(settings)
    with _output(output) as out, counting(PipeConsole(stderr=True), "price points read") as read:
        counts = export_prices(engine, out, flt, settings.rank, freq=freq, on_read=read)
    if counts.unpriced:
        click.echo(
            f"{counts.unpriced} prices left out: their currency has no rate in [rank.fx] "
            "(or the [rank] fx_file)",
            err=True,
        )
    _report(counts.rows, output)


@export.command("listings")
@export_options
@pass_app
@handle_errors
def export_listings_cmd(
    app: AppContext,
    skus: tuple[str, ...],
    category: str | None,
    since: datetime | None,
    until: datetime | None,
    output: Path | None,
) -> None:
    """Every price observation with its listing, as raw CSV rows.

    Example:

        rigscout export listings --sku nvidia-rtx-3090 -o 3090.csv
    """
    from rigscout.cli.render import PipeConsole, counting
    from rigscout.outputs.export import export_listings

    flt = _export_filter(skus, category, since, until)
    engine = open_existing_store(app.settings())
    with _output(output) as out, counting(PipeConsole(stderr=True), "observations read") as read:
        rows = export_listings(engine, out, flt, on_read=read)
    _report(rows, output)


def _report(rows: int, output: Path | None) -> None:
    if rows == 0:
        click.echo("No price history matches (no listings yet? run `rigscout run`).", err=True)
    elif output:
        click.echo(f"Wrote {rows} rows to {output}", err=True)


@click.group()
def chart() -> None:
    """PNG charts of price history and of performance per dollar."""


@chart.command("history")
@click.argument("skus", nargs=-1, required=True)
@click.option("--since", type=DAY, help="From this UTC day (YYYY-MM-DD).")
@click.option(
    "-o",
    "--output",
    "--output-dir",
    "output_dir",
    type=click.Path(path_type=Path),
    default=Path(),
    show_default=True,
    help="A .png file for one SKU, or a folder (made if missing): history-<sku>.png in it.",
)
@pass_app
@handle_errors
def chart_history(
    app: AppContext, skus: tuple[str, ...], since: datetime | None, output_dir: Path
) -> None:
    """Sold prices (points), their rolling median (line) and the active-listing range, per SKU.

    Example:

        rigscout chart history nvidia-tesla-p40 nvidia-rtx-3090 -o charts/
    """
    from ranking.titles import user_skus
    from rigscout.outputs.charts import load_history, render_history_chart

    settings = app.settings()
    skus = resolve_skus(skus, settings.catalog_extra)
    catalog = user_skus(settings.catalog_extra)
    engine = open_existing_store(settings)
    day = since.date() if since else None
    histories = {s: load_history(engine, s, settings.rank, since=day) for s in skus}
    empty = [s for s, history in histories.items() if history.empty]
    if len(empty) == len(skus):
        raise ConfigError(
            f"no price history for {', '.join(empty)} yet: run `rigscout run` to collect some"
        )
    output = output_dir  # a folder, or a .png file for one SKU
    one_file = output.suffix.lower() == ".png"
    if output.suffix and not one_file:
        raise ConfigError(f"-o {output}: a chart is a .png file; name one, or a folder")
    if one_file and len(skus) > 1:
        raise ConfigError(f"-o {output}: {len(skus)} SKUs make {len(skus)} charts; name a folder")
    if one_file and not output.parent.is_dir():
        raise ConfigError(f"-o {output}: the folder {output.parent} does not exist")
    if not one_file:
        try:
            output.mkdir(exist_ok=True)  # the folder itself, not a missing path to it
        except OSError as exc:
            raise ConfigError(f"-o {output}: cannot make the folder ({exc.strerror})") from None
    for sku, history in histories.items():
        if history.empty:
            click.echo(f"{sku}: no price history yet, no chart")
            continue
        path = output if one_file else output / f"history-{sku}.png"
        title = f"{catalog[sku].name}: landed price per unit"
        render_history_chart(history, title=title).savefig(path)
        click.echo(f"{path}: {len(history)} price points")


@chart.command("value")
@profile_option()
@click.option(
    "--category",
    type=click.Choice(CATEGORIES, case_sensitive=False),
    default="gpu",
    show_default=True,
)
@output_option("-o", "--output", default=Path("value.png"), show_default=True)
@pass_app
@handle_errors
def chart_value(app: AppContext, profile: str | None, category: str, output: Path) -> None:
    """Performance per dollar across SKUs at today's market price (sold median, else active).

    Example:

        rigscout chart value --profile training -o value-training.png
    """
    from sqlalchemy.orm import Session

    from core.clock import utcnow
    from ranking.titles import user_skus
    from rigscout.jobs.deals import rank_stored
    from rigscout.outputs.charts import render_value_chart, score_market_value_points

    settings = app.settings()
    engine = open_existing_store(settings)
    with Session(engine) as session:
        skus = user_skus(settings.catalog_extra)
        baselines = rank_stored(session, skus, settings.rank, now=utcnow()).markets
    points, metric = score_market_value_points(
        skus, baselines, profile or settings.rank.profile, category=category
    )
    if not points:
        raise ConfigError("no SKU has a market price yet: run `rigscout run` first")
    render_value_chart(points, metric=metric, currency=settings.rank.currency).savefig(output)
    click.echo(f"{output}: {metric} per 1,000 {settings.rank.currency}, {len(points)} SKUs")


COMMANDS: tuple[click.Command, ...] = (export, chart)
