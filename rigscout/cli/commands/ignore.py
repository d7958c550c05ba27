"""``ignore`` and ``unignore``: never show me this item, this seller or this word again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from core.errors import ConfigError
from rigscout.cli.commands.app import AppContext, handle_errors, open_store, pass_app

F = TypeVar("F", bound=Callable[..., Any])
_WHAT = {"item": "item", "seller": "seller", "title_word": "title word"}


def _targets(
    items: tuple[str, ...], sellers: tuple[str, ...], words: tuple[str, ...]
) -> list[tuple[str, str]]:
    from ranking.ignores import ignore_value

    wanted = [
        *(("item", v) for v in items),
        *(("seller", v) for v in sellers),
        *(("title_word", v) for v in words),
    ]
    try:
        return [(kind, ignore_value(kind, value)) for kind, value in wanted]
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


def _common(command: F) -> F:
    """The three things either command takes: item numbers, --seller, --title-word."""
    command = click.option(
        "--title-word", "words", multiple=True, help="A word (whole word, any case) in titles."
    )(command)
    command = click.option("--seller", "sellers", multiple=True, help="An eBay seller name.")(
        command
    )
    return click.argument("items", nargs=-1)(command)


@click.command()
@_common
@click.option("--list", "show", is_flag=True, help="List what is ignored, and stop.")
@pass_app
@handle_errors
def ignore(
    app: AppContext,
    items: tuple[str, ...],
    sellers: tuple[str, ...],
    words: tuple[str, ...],
    show: bool,
) -> None:
    """Never show these listings again: in the ranking, the plans, the report and the alerts.

    `rank --include-flagged` still lists them, "ignored by you"; `unignore` undoes it.

    Example:

    \b
        rigscout ignore 389912345678 389912345679
        rigscout ignore --seller n3wseller_gpus --title-word refurbished
        rigscout ignore --list
    """
    from sqlalchemy.orm import Session

    from core.clock import utcnow
    from db.ignores import load_ignore_list, load_ignores, save_ignore
    from db.outbox import save_dropped_for

    targets = _targets(items, sellers, words)
    if not show and not targets:
        raise ConfigError("name an item number, --seller or --title-word (or --list)")
    engine = open_store(app.settings())
    if show:
        with Session(engine) as session:
            stored = load_ignore_list(session)
        if not stored:
            click.echo("Nothing is ignored.")
        for entry in stored:
            click.echo(
                f"{_WHAT[entry.kind]:<10}  {entry.value}  (since {entry.created_at:%Y-%m-%d})"
            )
        return
    with Session(engine) as session, session.begin():
        added = [(k, v) for k, v in targets if save_ignore(session, k, v, now=utcnow())]
        ignores = load_ignores(session)
        dropped = save_dropped_for(
            session, lambda item, seller, title: ignores.reason(item, seller, title) is not None
        )
    for kind, value in targets:
        state = "ignored" if (kind, value) in added else "already ignored"
        click.echo(f"{_WHAT[kind]} {value}: {state}")
    if dropped:
        click.echo(f"{dropped} queued alert(s) for them dropped")


@click.command()
@_common
@pass_app
@handle_errors
def unignore(
    app: AppContext, items: tuple[str, ...], sellers: tuple[str, ...], words: tuple[str, ...]
) -> None:
    """Show these listings again (undo `ignore`).

    Example:

        rigscout unignore --seller n3wseller_gpus
    """
    from sqlalchemy.orm import Session

    from db.ignores import delete_ignore

    targets = _targets(items, sellers, words)
    if not targets:
        raise ConfigError("name an item number, --seller or --title-word to unignore")
    with Session(open_store(app.settings())) as session, session.begin():
        removed = [(k, v) for k, v in targets if delete_ignore(session, k, v)]
    for kind, value in targets:
        state = "shown again" if (kind, value) in removed else "was not ignored"
        click.echo(f"{_WHAT[kind]} {value}: {state}")


COMMANDS: tuple[click.Command, ...] = (ignore, unignore)
