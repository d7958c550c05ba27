"""``rigscout fast-lane``: one fast-lane pass by hand (the daemon runs it on its own)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from rigscout.cli.commands.app import AppContext, handle_errors, pass_app


@click.command("fast-lane")
@click.option(
    "--offline",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Replay saved pages from DIR instead of fetching.",
)
@pass_app
@handle_errors
def fast_lane(app: AppContext, offline: Path | None) -> None:
    """Poll the first page (newest first) of each saved search that is due, then save, rank
    and alert. Spends [collector] fast_lane_daily_requests a day, most where new listings
    appear most; `rigscout schedule` runs it every few minutes on its own.

    Example:

        rigscout fast-lane
    """
    from core.errors import BudgetError
    from rigscout.cli.render import render_run_summary
    from rigscout.jobs.fastlane_job import run_fast_lane

    try:
        report = run_fast_lane(app.settings(), offline=offline)
    except BudgetError as exc:
        click.echo(f"Nothing polled: {exc}.")
        return
    if report is None:
        click.echo("No search is due for a fast-lane poll yet.")
        return
    app.console.print(render_run_summary(report))
    for failure in report.failures:
        click.echo(f"FAILED {failure.search} ({failure.mode}): {failure.error}")
    sys.exit(report.exit_code)


COMMANDS: tuple[click.Command, ...] = (fast_lane,)
