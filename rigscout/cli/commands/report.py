"""``rigscout report``: write the morning report as a static site, then open or serve it.

It only reads the store: on a database rigscout has not initialised it says so and creates
nothing.
"""

from __future__ import annotations

from pathlib import Path

import click

from core.errors import ConfigError
from rigscout.cli.commands.app import AppContext, handle_errors, open_existing_store, pass_app

REPORT_STEPS = 4  # rank, plan, draw, write (rigscout/outputs/report/build.py)
DEFAULT_DIR = Path("rigscout-report")


@click.command()
@click.option(
    "-o",
    "--output",
    "output_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder to write (default: [report] dir, else ./rigscout-report).",
)
@click.option("--open", "open_", is_flag=True, help="Open the page in your web browser.")
@click.option("--serve", is_flag=True, help="Serve the folder on http://127.0.0.1 until Ctrl-C.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="Port for --serve (0: any free).",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address for --serve; 0.0.0.0 only inside a container whose port is published.",
)
@pass_app
@handle_errors
def report(
    app: AppContext, output_dir: Path | None, open_: bool, serve: bool, port: int, host: str
) -> None:
    """Write today's deals, price history and run health as a static web page.

    The page works from file:// with no network. Runs write it too when [report] dir is set.

    Example:

        rigscout run --offline fixtures/demo && rigscout report --open
    """
    import webbrowser

    from core.clock import utcnow
    from ranking.titles import user_skus
    from rigscout.cli.render import progress_bar
    from rigscout.outputs.report.build import write_report

    settings = app.settings()
    folder = output_dir or settings.report.dir or DEFAULT_DIR
    engine = open_existing_store(settings)
    with progress_bar(app.console, REPORT_STEPS) as step:  # shown on a terminal only
        page = write_report(
            engine, settings, folder, skus=user_skus(settings.catalog_extra), now=utcnow(),
            on_step=step,
        )  # fmt: skip
    engine.dispose()
    click.echo(f"Wrote {page}")
    if open_ and not webbrowser.open(page.resolve().as_uri()):
        click.echo(
            f"No web browser could be opened here (no display?); open {page.resolve()} in one.",
            err=True,
        )
    if serve:  # its HTTP server and watchdog (httpx) are imported only for it
        from rigscout.outputs.report.serve import open_server
        from rigscout.outputs.report.serve import serve as serve_forever

        try:
            server = open_server(folder, port, host=host)
        except OSError as exc:
            raise ConfigError(f"cannot serve on {host}:{port}: {exc.strerror}") from exc
        serve_forever(server, lambda url: click.echo(f"Serving {url} (Ctrl-C to stop)"))


COMMANDS: tuple[click.Command, ...] = (report,)
