"""What the ``catalog`` commands print, and the user's catalog files as the CLI finds them.

The grouping of unmatched titles is ranking/unmatched.py, their loading db/unmatched.py;
rigscout/cli/commands/catalog.py only declares the commands.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import click

from ranking.catalog_user import user_normalizer
from rigscout.config.load import load_settings, resolve_config_path

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from ranking.catalog import Catalog


def catalog_extra(config_option: str | None) -> tuple[Path, ...]:
    """The user's catalog files named by the config file (none when there is no config)."""
    path = resolve_config_path(config_option, os.environ, Path.cwd())
    return load_settings(path, os.environ).catalog_extra if path.exists() else ()


def user_catalog(config_option: str | None) -> Catalog:
    """The packaged catalog with the user's own SKUs merged in."""
    return user_normalizer(catalog_extra(config_option)).catalog


def show_unmatched(engine: Engine, *, limit: int, as_json: bool) -> None:
    """Print the stored unmatched titles grouped by likely model, largest group first."""
    from sqlalchemy.orm import Session

    from db.unmatched import load_unmatched_listings
    from ranking.unmatched import group_unmatched, render_unmatched

    with Session(engine) as session:
        groups = group_unmatched(load_unmatched_listings(session))
    if as_json:
        click.echo(json.dumps([asdict(g) for g in groups[:limit]], indent=2, default=str))
    elif not groups:
        click.echo("Every stored listing matched a catalog SKU (or is an accessory).")
    else:
        for line in render_unmatched(groups, limit=limit):
            click.echo(line)
