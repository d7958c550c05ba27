"""What the ``catalog`` commands print, and the user's catalog files as the CLI finds them.

The grouping of unmatched titles is ranking/titles/unmatched.py, their loading db/unmatched.py;
rigscout/cli/commands/catalog.py only declares the commands.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ranking.titles import user_normalizer
from rigscout.config.load import load_settings, resolve_config_path

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from rich.table import Table
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
    from ranking.titles import group_unmatched, render_unmatched

    with Session(engine) as session:
        groups = group_unmatched(load_unmatched_listings(session))
    if as_json:
        click.echo(json.dumps([asdict(g) for g in groups[:limit]], indent=2, default=str))
    elif not groups:
        click.echo("Every stored listing matched a catalog SKU (or is an accessory).")
    else:
        width = shutil.get_terminal_size((200, 24)).columns  # $COLUMNS, the terminal's, or 200
        for line in render_unmatched(groups, limit=limit, width=width):
            click.echo(line)


def render_catalog_table(entries: Sequence[Mapping[str, Any]]) -> Table:
    """The catalog with its specs: what a buyer compares before a search (GPUs first, then
    servers and boards), each SKU id as the config and ``--sku`` spell it."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    from ranking.titles import load_support

    support = {family: label.split(" — ")[0] for family, label in load_support().items()}
    table = Table(
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
        title="Catalog",
        caption="FP16: tensor TFLOP/s where the card has tensor cores; W: board power",
    )
    table.add_column("SKU", no_wrap=True)
    for name in ("VRAM", "GB/s", "FP16", "W"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("Form, support / GPUs", min_width=14)
    for e in entries:
        if e["category"] == "gpu":
            boards = int(e.get("gpus_per_board") or 1)
            vram = e.get("vram_gb")
            fp16 = e.get("fp16_tensor_tflops") or e.get("fp16_tflops")
            row = [
                f"{vram * boards:g} GB" if vram else "–",
                f"{e['mem_bandwidth_gbs']:g}" if e.get("mem_bandwidth_gbs") else "–",
                f"{fp16:g}" if fp16 else "none",
                str(e["tdp_w"]) if e.get("tdp_w") else "–",
                f"{e.get('form_factor') or '–'}, {support.get(str(e.get('family')), 'current')}",
            ]
        else:
            slots = e.get("gpu_slots")
            gpus = f"{slots}x {e.get('gpu_form_factor') or 'GPU'}" if slots else "–"
            link = e.get("interconnect")
            row = ["", "", "", "", f"{e['category']}: {gpus}" + (f", {link}" if link else "")]
        table.add_row(escape(str(e["sku"])), *(escape(c) for c in row))
    return table
