"""Reading what is stored: ``rank`` (the deals) and ``runs`` (what each run did).

Both only read: on a database rigscout has not initialised they say so and create nothing.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

import click

from rigscout.cli.commands.app import (
    AppContext,
    emit_json,
    handle_errors,
    open_existing_store,
    pass_app,
)
from rigscout.cli.commands.options import (
    CATEGORIES,
    POSITIVE,
    check_skus,
    money_option,
    profile_option,
)

if TYPE_CHECKING:
    from collections.abc import Mapping
    from decimal import Decimal


@click.command()
@profile_option()
@click.option("--sku", help="Only this catalog SKU.")
@click.option("--category", type=click.Choice(CATEGORIES))
@money_option("--max-price", help="Maximum landed unit price.")
@click.option("--limit", type=POSITIVE, default=20, show_default=True)
@click.option(
    "--buying",
    type=click.Choice(["all", "buy_it_now", "auction"]),
    default="all",
    show_default=True,
    help="buy_it_now: fixed price and best offer. Auctions rank at their predicted end.",
)
@click.option("--include-parts", is_flag=True, help="Also list accessories and for-parts listings.")
@click.option(
    "--include-flagged",
    is_flag=True,
    help="Also list the listings a risk flag kept out, with their flags.",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON list instead of a table.")
@click.option("--wide", is_flag=True, help="Whole titles and models, wrapped, instead of cut.")
@click.option(
    "--recompute",
    is_flag=True,
    help="Price every listing now, without the priced listings the store keeps (same answer, "
    "slower on a large store).",
)
@pass_app
@handle_errors
def rank(
    app: AppContext,
    profile: str | None,
    sku: str | None,
    category: str | None,
    max_price: Decimal | None,
    limit: int,
    buying: str,
    include_parts: bool,
    include_flagged: bool,
    as_json: bool,
    wide: bool,
    recompute: bool,
) -> None:
    """Show the top deals among stored listings.

    Example:

        rigscout rank --profile training --category gpu --limit 10
    """
    from sqlalchemy.orm import Session

    from core.clock import utcnow
    from core.deal_json import deal_to_json
    from ranking.records import RankFilters
    from ranking.titles import user_skus
    from rigscout.cli.deal_view import print_deals
    from rigscout.jobs.deals import rank_stored_many

    settings = app.settings()
    if sku:
        check_skus([sku], settings.catalog_extra)
    engine = open_existing_store(settings)
    filters = RankFilters(
        profile=profile or settings.rank.profile,
        sku=sku,
        category=category,
        max_price=max_price,
        limit=limit,
        buying=buying,
        kept_out=False,
    )
    with Session(engine) as session:
        skus = user_skus(settings.catalog_extra)
        (ranking,) = rank_stored_many(
            session, skus, settings.rank, now=utcnow(), filters=[filters], kept=not recompute
        )
    flagged = ranking.flagged if include_flagged else ()
    parts = ranking.parts if include_parts else ()
    if as_json:
        emit_json([deal_to_json(d, money=float) for d in (*ranking.deals, *flagged, *parts)])
        return
    shown = (*ranking.deals, *flagged, *parts)
    if not shown:
        click.echo(_empty_hint(ranking.skipped, filtered=bool(sku or category or max_price)))
        return
    if ranking.deals:
        print_deals(app.console, ranking.deals, wide=wide)
    if flagged:  # a view with nothing in it prints nothing, not an empty table
        title = "Kept out by a risk flag (see each reason)"
        print_deals(app.console, flagged, title=title, wide=wide)
    if parts:
        print_deals(app.console, parts, title="Parts and accessories (never deals)", wide=wide)
    most_first = sorted(ranking.skipped.items(), key=lambda item: (-item[1], item[0]))
    skipped = ", ".join(f"{n} {reason.replace('_', ' ')}" for reason, n in most_first if n)
    if skipped:
        click.echo(f"Not ranked: {skipped}.")


def _empty_hint(skipped: Mapping[str, int], *, filtered: bool) -> str:
    if filtered:
        return "No deals match these filters."
    if any(skipped.values()):
        reasons = ", ".join(f"{n} {r.replace('_', ' ')}" for r, n in skipped.items() if n)
        return f"No deals: every stored listing was left out ({reasons})."
    return "No listings yet: run `rigscout run` (or `rigscout run --offline fixtures/demo`)."


@click.command()
@click.option("--limit", type=POSITIVE, default=20, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="One JSON list instead of a table.")
@pass_app
@handle_errors
def runs(app: AppContext, limit: int, as_json: bool) -> None:
    """List recent runs with their counts, failures and duration.

    Example:

        rigscout runs --limit 5
    """
    from sqlalchemy.orm import Session

    from db.runs import load_runs
    from rigscout.cli.render import render_runs_table

    engine = open_existing_store(app.settings())
    with Session(engine) as session:
        recent = load_runs(session, limit=limit)
    if as_json:
        emit_json([asdict(r) for r in recent])
    elif not recent:
        click.echo("No runs yet: run `rigscout run`.")
    else:
        app.console.print(render_runs_table(recent))


COMMANDS: tuple[click.Command, ...] = (rank, runs)
