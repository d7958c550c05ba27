"""Reading what is stored: ``rank`` (the deals) and ``runs`` (what each run did).

Both only read: on a database rigscout has not initialised they say so and create nothing.
"""

from __future__ import annotations

from dataclasses import asdict, replace
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
    money_option,
    profile_option,
    resolve_skus,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from decimal import Decimal

    from core.models import Deal
    from ranking.catalog import Sku
    from ranking.records import Ranking


@click.command()
@profile_option()
@click.option("--sku", help="Only this catalog SKU.")
@click.option("--category", type=click.Choice(CATEGORIES, case_sensitive=False))
@money_option("--max-price", help="Maximum landed unit price.")
@click.option("--limit", type=POSITIVE, default=20, show_default=True)
@click.option(
    "--buying",
    type=click.Choice(["all", "buy_it_now", "auction"], case_sensitive=False),
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
        (sku,) = resolve_skus([sku], settings.catalog_extra)
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
    skus = user_skus(settings.catalog_extra)
    profile_name = filters.profile or settings.rank.profile
    other = _profile_that_ranks(skus.get(sku), profile_name) if sku else None
    asked = [filters] + ([replace(filters, profile=other[0])] if other else [])
    with Session(engine) as session:
        ranking, *elsewhere = rank_stored_many(
            session, skus, settings.rank, now=utcnow(), filters=asked, kept=not recompute
        )
    flagged = ranking.flagged if include_flagged else ()
    parts = ranking.parts if include_parts else ()
    if as_json:
        emit_json([deal_to_json(d, money=float) for d in (*ranking.deals, *flagged, *parts)])
        return
    shown = (*ranking.deals, *flagged, *parts)
    left_out = (*other, elsewhere[0]) if other else None
    hidden = _hidden(ranking, left_out, sku=sku, profile=profile_name, flagged=flagged, parts=parts)
    if not shown:
        filtered = bool(category or max_price)
        click.echo(hidden or _empty_hint(ranking.skipped, sku=sku, filtered=filtered))
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
    if skipped and sku is None:  # the store's other listings: not what was asked about
        click.echo(f"Not ranked: {skipped}.")
    if hidden:
        click.echo(hidden)


def _profile_that_ranks(sku: Sku | None, profile: str) -> tuple[str, str] | None:
    """When ``profile`` ranks no listing of ``sku``: the first profile that does, and why this
    one does not."""
    from ranking.profiles import load_profiles
    from ranking.value import profile_leaves_out

    profiles = load_profiles().profiles
    reason = profile_leaves_out(sku, profiles[profile]) if sku is not None else None
    if sku is None or reason is None:
        return None
    other = next((n for n, p in sorted(profiles.items()) if not profile_leaves_out(sku, p)), None)
    return (other, reason) if other is not None else None


def _hidden(
    ranking: Ranking,
    left_out: tuple[str, str, Ranking] | None,
    *,
    sku: str | None,
    profile: str,
    flagged: Sequence[Deal],
    parts: Sequence[Deal],
) -> str | None:
    """Why listings of the SKU a user asked for are not in the table, and what shows them:
    the profile's own limits (``left_out``: the profile that ranks the SKU, why this one does
    not, and the ranking under it), a risk flag, a part (None: nothing of it is hidden)."""
    lines = []
    if left_out is not None:
        name, reason, other = left_out
        if other.deals or other.flagged:
            lines.append(
                f"The {profile} profile ranks no {sku} listing: {reason}. "
                f"`--profile {name}` ranks them."
            )
    # Under --sku, the flagged view is that SKU's alone; the store-wide count is in skipped.
    kept = len(ranking.flagged) if sku else ranking.skipped.get("flagged", 0)
    if kept and not flagged:
        lines.append(
            f"{kept} listing(s) kept out by a risk flag: `--include-flagged` shows them with "
            "their flags."
        )
    if ranking.parts and not parts and sku is not None:
        lines.append(f"{len(ranking.parts)} part(s) and accessories: `--include-parts`.")
    return "\n".join(lines) or None


def _empty_hint(skipped: Mapping[str, int], *, sku: str | None, filtered: bool) -> str:
    if sku is not None and not filtered:
        return (
            f"No active {sku} listing is stored (`rigscout export listings --sku {sku}`"
            " shows every one ever seen)."
        )
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
        app.console.print(render_runs_table(recent, width=app.console.width))


COMMANDS: tuple[click.Command, ...] = (rank, runs)
