"""The ``rigscout`` command line: the top-level group; each command is in ``cli.commands``.

Each command reads ``Settings`` once, opens the store, calls one library function and echoes
the result. Any error ends the command with one line and the README's exit code (see
``rigscout.cli.commands.app``), whichever command raised it.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, NoReturn

import click

from rigscout import __version__
from rigscout.cli.commands.app import EXIT_ERROR, AppContext, exit_code_for, fail
from rigscout.cli.logs import setup_logging
from rigscout.cli.quiet import hold_output, release_output
from rigscout.jobs.bulk import skip_collection_at_exit

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence


class RigscoutGroup(click.Group):
    """A click group whose every error, usage mistakes included, is one line and an exit code."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        def inner() -> Any:
            return super(RigscoutGroup, self).main(
                args, prog_name, complete_var, standalone_mode=False, **extra
            )

        if not standalone_mode:
            return inner()
        skip_collection_at_exit()
        try:
            self._main(inner)
        except SystemExit as done:
            release_output(failed=done.code not in (0, None))
            raise

    def _main(self, inner: Callable[[], Any]) -> NoReturn:
        try:
            result = inner()
        except click.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx else "rigscout"
            click.echo(f"Error: {exc.format_message()}", err=True)
            click.echo(f"(see `{where} --help`)", err=True)
            sys.exit(EXIT_ERROR)
        except click.ClickException as exc:
            fail(exc.format_message(), exc.exit_code)
        except BrokenPipeError:
            _quiet_stdout()  # the reader (head, less) went away: nothing of ours failed
            sys.exit(0)
        except (Exception, KeyboardInterrupt, click.Abort) as exc:
            if isinstance(exc, click.Abort):
                exc = KeyboardInterrupt()
            code, message = exit_code_for(exc)
            fail(message, code)
        sys.exit(result if isinstance(result, int) else 0)

    def invoke(self, ctx: click.Context) -> Any:
        # Click itself turns a closed pipe into exit 1; a reader that stops early (head,
        # less) is no failure of ours, so the command ends quietly with 0.
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            _quiet_stdout()
            raise click.exceptions.Exit(0) from None


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


@click.group(cls=RigscoutGroup)
@click.option(
    "--config",
    "config",
    envvar=None,
    metavar="FILE",
    help="Config file (default: $RIGSCOUT_CONFIG or ./rigscout.toml).",
)
@click.option("-v", "--verbose", count=True, help="More logging (-v info, -vv debug).")
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="Print nothing unless the command fails; then print all it would have (for cron).",
)
@click.version_option(__version__, prog_name="rigscout")
@click.pass_context
def cli(ctx: click.Context, config: str | None, verbose: int, quiet: bool) -> None:
    """rigscout finds used GPU and GPU-server deals on eBay and ranks them per landed dollar.

    Exit codes: 0 all well, 1 some searches or alert channels failed, 2 a configuration,
    usage or database error, 3 another run holds the lock, 130 interrupted.

    Example:

        rigscout init && rigscout run --offline fixtures/demo
    """
    if quiet:
        hold_output()
    setup_logging(verbose)
    ctx.obj = AppContext(config)


def _register() -> None:
    """Every command module's ``COMMANDS``; a new module adds one line here."""
    from rigscout.cli.commands import (
        alerts,
        catalog,
        check,
        export,
        fastlane,
        fx,
        ignore,
        plan,
        rank,
        report,
        run,
        setup,
    )

    modules = (setup, run, fastlane, rank, check, plan, report, catalog, export, alerts, ignore, fx)
    for module in modules:
        for command in module.COMMANDS:
            cli.add_command(command)


_register()
