"""The daily job and its parts: ``run``, ``collect``, ``import``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TypeVar

import click

from rigscout.cli.commands.app import AppContext, handle_errors, open_store, pass_app
from rigscout.cli.commands.options import profile_option

F = TypeVar("F", bound=Any)


def search_options(func: F) -> F:
    func = click.option(
        "--search",
        "search_names",
        multiple=True,
        metavar="NAME",
        help="Only these saved searches (repeatable).",
    )(func)
    return click.option(
        "--offline",
        type=click.Path(exists=True, file_okay=False, path_type=Path),
        help="Replay saved pages from DIR/<search>/<mode>-p<N>.html instead of eBay.",
    )(func)


@click.command()
@search_options
@click.option(
    "--dry-run",
    is_flag=True,
    help=(
        "Collect, store and rank as usual, then show the alert messages without sending "
        "them or marking them sent (needs no secrets)."
    ),
)
@click.option("--no-alerts", is_flag=True, help="Skip the alert step.")
@profile_option()
@click.option("--wait", is_flag=True, help="Wait for a run already in progress instead of exiting.")
@click.option(
    "--worker",
    is_flag=True,
    help="Share today's searches with other workers on the same PostgreSQL database.",
)
@click.option(
    "--limit", type=click.IntRange(min=0), default=15, show_default=True, help="Deals shown."
)
@pass_app
@handle_errors
def run(
    app: AppContext,
    offline: Path | None,
    search_names: tuple[str, ...],
    dry_run: bool,
    no_alerts: bool,
    profile: str | None,
    wait: bool,
    worker: bool,
    limit: int,
) -> None:
    """Run the daily job: collect, normalize, save, rank, alert, summarize.

    Exit code 0 when all went well, 1 when some searches or alert channels failed,
    2 on a configuration or database error, 3 when another run holds the lock.

    Example:

        rigscout run --offline fixtures/demo
    """
    from rigscout.cli.run_view import run_and_show

    report = run_and_show(
        app.settings(),
        app.console,
        offline=offline,
        search_names=search_names,
        profile=profile,
        alert=not no_alerts,
        dry_run=dry_run,
        wait=wait,
        limit=limit,
        worker=worker,
    )
    sys.exit(report.exit_code)


@click.command()
@search_options
@click.option("--wait", is_flag=True, help="Wait for a run already in progress instead of exiting.")
@pass_app
@handle_errors
def collect(
    app: AppContext, offline: Path | None, search_names: tuple[str, ...], wait: bool
) -> None:
    """Collect and store listings only (no ranking, no alerts).

    Example:

        rigscout collect --search v100-sxm2
    """
    from rigscout.cli.run_view import run_and_show

    report = run_and_show(
        app.settings(),
        app.console,
        offline=offline,
        search_names=search_names,
        profile=None,
        alert=False,
        dry_run=False,
        wait=wait,
        limit=0,
        rank=False,
    )
    sys.exit(report.exit_code)


@click.command("import")
@click.argument(
    "files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@pass_app
@handle_errors
def import_(app: AppContext, files: tuple[Path, ...]) -> None:
    """Import sold listings from saved sold search pages (.html) or Terapeak CSV exports (.csv).

    Example:

        rigscout import sold-v100-page1.html terapeak-p40.csv
    """
    from rigscout.jobs.daily import import_files

    settings = app.settings()
    engine = open_store(settings)
    for path, counts in import_files(engine, files, settings.catalog_extra):
        click.echo(f"{path}: {counts.seen} sold listings, {counts.new_sales} new sales")


COMMANDS: tuple[click.Command, ...] = (run, collect, import_)
