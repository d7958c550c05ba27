"""What every command shares: the settings it reads, the store it opens, how errors end it.

Exit codes (the README's): 0 all well, 1 some searches or alert channels failed, 2 a
configuration, usage or database error, 3 another run holds the lock, 130 interrupted.
Each error is one line on stderr; ``-vv`` adds the traceback of an unexpected one to the log.

Only click and the standard library are imported here, so ``--version``, ``parse``,
``normalize`` and ``catalog`` start without SQLAlchemy, Alembic, httpx or pandas.
"""

from __future__ import annotations

import logging
import os
import sys
from dataclasses import dataclass, field, replace
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from core.errors import (
    BlockedError,
    ConfigError,
    LockedError,
    ParseError,
    RigscoutError,
    StoreError,
)
from core.secrets import redact
from rigscout.cli.interrupts import ignore_interrupts
from rigscout.config.load import Settings, load_settings, resolve_config_path

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.console import Console
    from sqlalchemy import Engine

F = TypeVar("F", bound="Callable[..., Any]")
log = logging.getLogger("rigscout")
STARTER = Path(__file__).resolve().parents[2] / "config" / "starter.toml"

EXIT_OK, EXIT_PARTIAL, EXIT_ERROR, EXIT_LOCKED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
SAVING_COMMANDS = frozenset({"run", "collect", "fast-lane", "import"})  # they save searches


@dataclass
class AppContext:
    config_option: str | None
    _console: Console | None = field(default=None, repr=False)

    @property
    def console(self) -> Console:
        if self._console is None:
            from rigscout.cli.render import PipeConsole

            self._console = PipeConsole(stderr=False)
        return self._console

    def settings(self) -> Settings:
        path = resolve_config_path(self.config_option, os.environ, Path.cwd())
        if self.config_option or os.environ.get("RIGSCOUT_CONFIG") or path.exists():
            return load_settings(path, os.environ)
        # No config yet: the starter searches, with the default database location.
        starter = load_settings(STARTER, os.environ)
        defaults = load_settings(None, os.environ)
        click.echo(
            f"No {path.name} here: using the starter searches and "
            f"{masked_db_url(defaults.database_url)} "
            "(`rigscout init` writes a config you can edit).",
            err=True,
        )
        return replace(starter, database_url=defaults.database_url, config_path=None)


pass_app = click.make_pass_decorator(AppContext)


def fail(message: str, code: int = EXIT_ERROR) -> NoReturn:
    """End the command with one line on stderr and ``code``; from here on a further stop
    signal is ignored (``ignore_interrupts``): there is nothing left for it to stop."""
    ignore_interrupts()
    click.echo(f"Error: {redact(message)}", err=True)
    sys.exit(code)


def exit_code_for(exc: BaseException) -> tuple[int, str]:
    """The exit code and the one line for an exception that ends a command."""
    if isinstance(exc, KeyboardInterrupt) or _interrupted(exc):
        ctx = click.get_current_context(silent=True)
        if ctx is not None and ctx.info_name in SAVING_COMMANDS:
            return (
                EXIT_INTERRUPTED,
                "interrupted (nothing half-saved: each search is all or nothing)",
            )
        return EXIT_INTERRUPTED, "interrupted"
    if isinstance(exc, LockedError):
        return EXIT_LOCKED, str(exc)
    if isinstance(exc, ConfigError | StoreError | ParseError | BlockedError):
        # A page that cannot be read reaches here only as a file the user named (`parse`,
        # `import`): the daily job handles a search page's own as that search's failure.
        return EXIT_ERROR, str(exc)
    if isinstance(exc, RigscoutError):
        return EXIT_PARTIAL, str(exc)
    if _is_database_error(exc):
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        first = reason[0] if reason else type(exc).__name__
        from db.engine import STORE_BUSY, is_lock_timeout

        if is_lock_timeout(exc):
            return EXIT_LOCKED, f"database error: {first}: {STORE_BUSY}"
        return EXIT_ERROR, f"database error: {first}"
    if isinstance(exc, OSError):
        where = f"{exc.filename}: " if exc.filename else ""
        return EXIT_ERROR, f"{where}{exc.strerror or exc}"
    log.debug("unexpected error", exc_info=exc)
    lines = str(exc).strip().splitlines()
    detail = f": {lines[0]}" if lines else ""
    return EXIT_PARTIAL, f"unexpected {type(exc).__name__}{detail} (run with -vv for details)"


def _interrupted(exc: BaseException) -> bool:
    """An interrupt that reached us wrapped in another error: Python turns a Ctrl-C landing in
    a class being built (``__set_name__``, as pydantic's models are on first import) into a
    RuntimeError; the signal handler's flag (``rigscout.cli.interrupts``) says it came."""
    from rigscout.cli.interrupts import INTERRUPTED

    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__cause__ or seen.__context__
    return INTERRUPTED.is_set()


def _is_database_error(exc: BaseException) -> bool:
    sqlalchemy = sys.modules.get("sqlalchemy.exc")
    return sqlalchemy is not None and isinstance(exc, sqlalchemy.SQLAlchemyError)


def handle_errors(func: F) -> F:
    """Turn any error into one clear line and the documented exit code.

    The top-level group does this for every command already; the decorator keeps commands
    correct when they are invoked on their own (tests, other groups).
    """

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except (click.exceptions.Exit, click.ClickException, SystemExit, BrokenPipeError):
            raise  # a closed pipe is the reader's choice: the group ends quietly with 0
        except (Exception, KeyboardInterrupt) as exc:
            code, message = exit_code_for(exc)
            fail(message, code)

    return wrapper  # type: ignore[return-value]


def masked_db_url(url: str) -> str:
    """A database URL with its password masked, without importing SQLAlchemy."""
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if not sep or not at or ":" not in credentials:
        return url
    return f"{scheme}://{credentials.split(':', 1)[0]}:***@{host}"


def open_store(settings: Settings, *, adopt: bool = False) -> Engine:
    """The database, created or migrated to the current schema (``init``, ``run``, ``import``);
    ``adopt``: also a SQLite file holding another application's tables (``db upgrade --force``)."""
    from db.engine import open_engine
    from db.migrate import upgrade

    engine = open_engine(settings.database_url)
    try:
        upgrade(engine, adopt=adopt)
    except BaseException:
        engine.dispose()
        raise
    return engine


def open_existing_store(settings: Settings) -> Engine:
    """The database for reading: never created here, only brought up to date.

    A database rigscout has not initialised is refused with a pointer to ``rigscout init``,
    and nothing is written to it (no file, no tables).
    """
    from db.engine import open_engine, sqlite_file
    from db.revisions import shipped_head, stored_revision

    missing = StoreError(
        f"no rigscout database at {masked_db_url(settings.database_url)} yet: "
        "run `rigscout init` (or `rigscout run`) first"
    )
    path = sqlite_file(settings.database_url)
    if path is not None and not path.exists():
        raise missing
    engine = open_engine(settings.database_url, reading=True)  # a read-only file is read
    revision = stored_revision(engine)
    if revision is None:
        engine.dispose()
        raise missing
    if revision != shipped_head():
        from db.migrate import upgrade

        upgrade(engine)  # an older rigscout's database: migrate what already is rigscout's
    return engine


def emit_json(value: object) -> None:
    """``--json`` output: one indented JSON document on stdout."""
    import json

    click.echo(json.dumps(value, indent=2, default=str, ensure_ascii=False))
