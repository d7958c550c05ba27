"""``fx update``: exchange rates from the European Central Bank, dated, in a file of their own."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from core.errors import ConfigError
from rigscout.cli.commands.app import AppContext, handle_errors, pass_app
from rigscout.cli.commands.options import output_option

if TYPE_CHECKING:
    from decimal import Decimal

RATES_FILE = "fx-rates.toml"


@click.group()
def fx() -> None:
    """Exchange rates: fetch the ECB's daily reference rates for [rank] fx_file."""


@fx.command("update")
@click.option("--source", default=None, help="Where to read the rates (default: the ECB's).")
@output_option("--output", help=f"File to write (default: {RATES_FILE} next to the config file).")
@pass_app
@handle_errors
def fx_update(app: AppContext, source: str | None, output: Path | None) -> None:
    """Fetch the ECB's euro reference rates of the day, in your [rank] currency.

    They are written, dated, to fx-rates.toml next to the config; [rank] fx_file =
    "fx-rates.toml" makes rigscout price listings with them (instead of a [rank.fx] table).

    Example:

        rigscout fx update && rigscout rank
    """
    import httpx

    from core.files import write_atomically
    from rigscout.config.load import load_settings, resolve_config_path
    from scraper.fx import ECB_DAILY, check_rates, fetch_ecb_rates, rates_in

    config = resolve_config_path(app.config_option, os.environ, Path.cwd())
    settings = load_settings(config if config.exists() else None, os.environ, without_rates=True)
    currency = settings.rank.currency
    url = source or ECB_DAILY
    with httpx.Client() as client:
        rates = fetch_ecb_rates(client, url)
    table = rates_in(rates, currency)
    target = output or settings.fx_file or config.parent / RATES_FILE
    check_rates(rates, today=datetime.now(UTC).date(), previous=_previous(target, currency))
    lines = [
        f"# Units of {currency} per unit of each currency: the European Central Bank's euro",
        f"# reference rates of {rates.day.isoformat()}, re-based on {currency} by",
        f"# `rigscout fx update` on {datetime.now(UTC):%Y-%m-%d} from {url}",
        f'date = "{rates.day.isoformat()}"',
        *(f"{code} = {rate}" for code, rate in table.items()),
    ]
    try:  # all or nothing: a failed write leaves the old rates as they were
        write_atomically(target, "\n".join(lines) + "\n")
    except OSError as exc:
        raise ConfigError(f"cannot write {target}: {exc.strerror or exc}") from None
    click.echo(f"Wrote {target}: {len(table)} rates in {currency}, the ECB's of {rates.day}.")
    if settings.fx_file is None:
        click.echo(
            f'To use them: set [rank] fx_file = "{target.name}" in {config.name} and remove '
            "its [rank.fx] table."
        )


COMMANDS: tuple[click.Command, ...] = (fx,)


def _previous(target: Path, currency: str) -> dict[str, Decimal] | None:
    """The rates last written to ``target``, when they are in ``currency`` (else None: a
    rate in another currency says nothing about today's)."""
    import tomllib
    from decimal import Decimal, InvalidOperation

    try:
        raw = tomllib.loads(target.read_text(encoding="utf-8"))
        table = {
            code: Decimal(str(rate)) for code, rate in raw.items() if isinstance(rate, int | float)
        }
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, InvalidOperation):
        return None
    return table if table.get(currency) == 1 else None
