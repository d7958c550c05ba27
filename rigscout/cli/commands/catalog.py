"""Commands that need no database or config: ``parse``, ``normalize``, ``catalog``; and
``catalog unmatched``, which reads the stored titles."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from rigscout.cli.commands.app import (
    AppContext,
    emit_json,
    handle_errors,
    open_existing_store,
    pass_app,
)
from rigscout.cli.commands.options import POSITIVE


@click.command()
@click.pass_context
@handle_errors
def normalize(ctx: click.Context) -> None:
    """Map titles (one per line on stdin) to catalog SKUs: one JSON object per line.

    Keys: title, sku, category, kind, quantity, includes, confidence.

    Example:

        echo "Lot of 2 NVIDIA Tesla V100 SXM2 16GB" | rigscout normalize
    """
    from ranking.titles import user_normalizer
    from rigscout.cli.catalog_view import catalog_extra

    normalizer = user_normalizer(catalog_extra(ctx.obj.config_option))
    for line in sys.stdin:
        title = line.rstrip("\r\n")
        sys.stdout.write(
            json.dumps(normalizer.normalize(title).as_json(), ensure_ascii=False) + "\n"
        )


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--fetched-at", help="When the page was fetched (ISO 8601; default: file mtime).")
@handle_errors
def parse(file: Path, fetched_at: str | None) -> None:
    """Parse a saved eBay search page: one JSON object per listing.

    Keys: item_id, title, price, price_max, currency, shipping, buying_format, bids,
    sold_date, condition, url (and more after them). A running auction's end_time is its
    countdown counted from --fetched-at.

    Example:

        rigscout parse saved-search.html --fetched-at 2026-07-09T14:30:00Z | jq .price
    """
    from scraper.offline import parse_fetched_at
    from scraper.parse import listing_to_contract, parse_search_page

    now = parse_fetched_at(fetched_at, file)  # auction countdowns count from here
    text = file.read_text(encoding="utf-8", errors="replace")
    page = parse_search_page(text, url=str(file), now=now)
    for listing in page.listings:
        click.echo(json.dumps(listing_to_contract(listing), ensure_ascii=False))


@click.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="The whole catalog as a JSON list.")
@click.pass_context
@handle_errors
def catalog(ctx: click.Context, as_json: bool) -> None:
    """Show the hardware catalog (SKUs and specs).

    Example:

        rigscout catalog --json | jq '.[] | select(.category=="gpu") | .sku'
    """
    if ctx.invoked_subcommand is not None:
        return
    from rigscout.cli.catalog_view import render_catalog_table, user_catalog

    entries = user_catalog(ctx.obj.config_option).as_json()
    if as_json:
        emit_json(entries)
        return
    ctx.obj.console.print(render_catalog_table(entries))


@catalog.command("unmatched")
@click.option("--limit", type=POSITIVE, default=30, show_default=True, help="Groups to show.")
@click.option("--json", "as_json", is_flag=True, help="The groups as a JSON list.")
@pass_app
@handle_errors
def catalog_unmatched(app: AppContext, limit: int, as_json: bool) -> None:
    """Stored titles no SKU matched, grouped by the model they most likely name.

    Each group: how many listings, their price range, the model word, the words most of its
    titles share and an example title - what to add to your own catalog.

    Example:

        rigscout catalog unmatched --limit 20
    """
    from rigscout.cli.catalog_view import show_unmatched

    show_unmatched(open_existing_store(app.settings()), limit=limit, as_json=as_json)


COMMANDS: tuple[click.Command, ...] = (normalize, parse, catalog)
