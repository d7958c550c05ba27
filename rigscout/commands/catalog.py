"""Commands that need no database or config: ``parse``, ``normalize``, ``catalog``; and
``catalog unmatched``, which reads the stored titles."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from rigscout.commands.app import (
    AppContext,
    emit_json,
    handle_errors,
    open_existing_store,
    pass_app,
)
from rigscout.commands.options import POSITIVE


@click.command()
@handle_errors
def normalize() -> None:
    """Map titles (one per line on stdin) to catalog SKUs: one JSON object per line.

    Keys: title, sku, category, kind, quantity, includes, confidence.

    Example:

        echo "Lot of 2 NVIDIA Tesla V100 SXM2 16GB" | rigscout normalize
    """
    from ranking.catalog import load_catalog
    from ranking.normalize import Normalizer

    normalizer = Normalizer(load_catalog())
    for line in sys.stdin:
        title = line.rstrip("\r\n")
        sys.stdout.write(
            json.dumps(normalizer.normalize(title).as_json(), ensure_ascii=False) + "\n"
        )


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@handle_errors
def parse(file: Path) -> None:
    """Parse a saved eBay search page: one JSON object per listing.

    Keys: item_id, title, price, price_max, currency, shipping, buying_format, bids,
    sold_date, condition, url (and more after them).

    Example:

        rigscout parse saved-search.html | jq .price
    """
    from scraper.parse import listing_to_contract, parse_search_page

    page = parse_search_page(file.read_text(encoding="utf-8", errors="replace"), url=str(file))
    for listing in page.listings:
        click.echo(json.dumps(listing_to_contract(listing), ensure_ascii=False))


@click.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="The whole catalog as a JSON list.")
@click.pass_context
def catalog(ctx: click.Context, as_json: bool) -> None:
    """Show the hardware catalog (SKUs and specs).

    Example:

        rigscout catalog --json | jq '.[] | select(.category=="gpu") | .sku'
    """
    if ctx.invoked_subcommand is not None:
        return
    from ranking.catalog import load_catalog

    entries = load_catalog().as_json()
    if as_json:
        emit_json(entries)
        return
    for entry in entries:
        click.echo(f"{entry['sku']:<34} {entry['category']:<7} {entry['name']}"[:80])


@catalog.command("unmatched")
@click.option("--limit", type=POSITIVE, default=50, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="One JSON list instead of lines.")
@pass_app
@handle_errors
def catalog_unmatched(app: AppContext, limit: int, as_json: bool) -> None:
    """Stored titles the normalizer could not place, most frequent first.

    Example:

        rigscout catalog unmatched --limit 20
    """
    from sqlalchemy.orm import Session

    from db.store import load_unmatched_titles

    engine = open_existing_store(app.settings())
    with Session(engine) as session:
        titles = load_unmatched_titles(session, limit=limit)
    if as_json:
        emit_json([{"title": title, "count": count} for title, count in titles])
        return
    if not titles:
        click.echo("No unmatched titles.")
    for title, count in titles:
        click.echo(f"{count:>5}  {title}"[:80])


COMMANDS: tuple[click.Command, ...] = (normalize, parse, catalog)
