"""Setting rigscout up and keeping it running: ``init``, ``db upgrade``, ``schedule``."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import click

from core.errors import ConfigError
from rigscout.cli.commands.app import (
    STARTER,
    AppContext,
    handle_errors,
    masked_db_url,
    open_store,
    pass_app,
)
from rigscout.config.load import load_settings, resolve_config_path


@click.command()
@click.option("--force", is_flag=True, help="Overwrite an existing config file.")
@pass_app
@handle_errors
def init(app: AppContext, force: bool) -> None:
    """Write a commented starter config and create the database.

    Example:

        rigscout init && $EDITOR rigscout.toml
    """
    path = resolve_config_path(app.config_option, os.environ, Path.cwd())
    if path.is_dir():
        raise ConfigError(f"{path} is a directory; name a file with --config")
    if path.exists() and not force:
        click.echo(f"{path} exists; keeping it (use --force to overwrite).")
    else:
        try:
            path.write_text(STARTER.read_text(encoding="utf-8"), encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None
        click.echo(f"Wrote {path} with {len(load_settings(path, {}).searches)} saved searches.")
    settings = app.settings()
    earlier = _adopt_earlier_runs(settings.database_url)
    if earlier is not None:
        click.echo(f"Copied the database of your earlier runs ({earlier}) to start from.")
    open_store(settings).dispose()
    click.echo(f"Database ready: {masked_db_url(settings.database_url)}")


def _adopt_earlier_runs(url: str) -> Path | None:
    """Runs made before there was a config (the README's demo) stored to the user's data
    folder; a new SQLite database next to the config starts as a copy of that one, so what
    they collected is still there. The earlier file is left as it was."""
    from db.backup import backup_sqlite
    from db.engine import sqlite_file
    from rigscout.config.load import user_data_database

    target, earlier = sqlite_file(url), user_data_database()
    if target is None or target.exists() or not earlier.is_file():
        return None
    backup_sqlite(f"sqlite:///{earlier}", target)
    return earlier


@click.group()
def db() -> None:
    """Database maintenance: apply the schema migrations, back the store up."""


@db.command("backup")
@click.argument("file", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite FILE if it exists.")
@pass_app
@handle_errors
def db_backup(app: AppContext, file: Path | None, force: bool) -> None:
    """Copy the SQLite store to FILE (default ./rigscout-backup-DATE.db), safely while a run
    writes to it. For PostgreSQL, print the pg_dump command that backs it up.

    Example:

        rigscout db backup /backups/rigscout.db --force
    """
    from datetime import datetime

    from db.backup import backup_sqlite, pg_dump_command

    url = app.settings().database_url
    stamp = datetime.now().astimezone().strftime("%Y%m%d-%H%M%S")
    if not url.startswith("sqlite"):  # PostgreSQL: the only other store rigscout opens
        target = str(file or f"rigscout-backup-{stamp}.dump")
        click.echo("PostgreSQL is backed up with its own tool; run:")
        click.echo(f"  {pg_dump_command(url, target)}")
        click.echo("(restore with pg_restore; the password comes from PGPASSWORD or ~/.pgpass)")
        return
    backup = backup_sqlite(url, file or Path(f"rigscout-backup-{stamp}.db"), overwrite=force)
    click.echo(f"Backed up {masked_db_url(url)} to {backup.path} ({backup.size_bytes:,} bytes).")


@db.command("upgrade")
@click.option(
    "--force",
    is_flag=True,
    help="Also add rigscout's tables to a SQLite file that holds another application's.",
)
@pass_app
@handle_errors
def db_upgrade(app: AppContext, force: bool) -> None:
    """Apply the database migrations (run and init do this on their own).

    Example:

        rigscout db upgrade
    """
    from db.migrate import current_revision

    engine = open_store(app.settings(), adopt=force)
    click.echo(f"Database at revision {current_revision(engine)}.")
    engine.dispose()


@click.command()
@click.option(
    "--offline",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Replay saved pages instead of eBay (for trying the daemon out).",
)
@click.option("--run-now", is_flag=True, help="Also run once right away.")
@pass_app
@handle_errors
def schedule(app: AppContext, offline: Path | None, run_now: bool) -> None:
    """Run the daily job as a daemon on the cron trigger of [schedule] (default 06:00 daily).

    Stops cleanly on SIGTERM or Ctrl-C. For cron instead, see the README.

    Example:

        rigscout -v schedule
    """
    from db.lock import daemon_lock
    from rigscout.cli.scheduler import build_scheduler, serve_scheduler

    settings = app.settings()
    if not logging.getLogger().isEnabledFor(logging.INFO):
        logging.getLogger("rigscout").setLevel(logging.INFO)
    engine = open_store(settings)
    with daemon_lock(engine):  # a second daemon on this database stops here, exit 3
        serve_scheduler(
            build_scheduler(
                settings, engine, config_path=settings.config_path, offline=offline, run_now=run_now
            )
        )


COMMANDS: tuple[click.Command, ...] = (init, db, schedule)
