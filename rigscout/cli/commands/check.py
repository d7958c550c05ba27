"""``rigscout check ITEM``: is this listing a good deal? One listing's reading, reference,
flags, score and place in today's ranking and plans."""

from __future__ import annotations

import contextlib

import click

from core.errors import ConfigError
from rigscout.cli.commands.app import (
    AppContext,
    emit_json,
    handle_errors,
    open_existing_store,
    pass_app,
)
from rigscout.cli.commands.options import profile_option


@click.command()
@click.argument("item")
@profile_option()
@click.option(
    "--offline", is_flag=True, help="Only a listing the store holds; never fetch its page."
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object instead of text.")
@pass_app
@handle_errors
def check(app: AppContext, item: str, profile: str | None, offline: bool, as_json: bool) -> None:
    """Say whether one listing is a good deal: ITEM is its item number or its link.

    A listing the store holds is ranked among today's listings; one it does not is fetched
    from its item page first (and not saved).

    Example:

        rigscout check https://www.ebay.com/itm/196183871274
    """
    from sqlalchemy.orm import Session

    from core.clock import utcnow
    from core.marketplaces import item_number
    from rigscout.cli.check_view import render_check
    from rigscout.jobs.check import check_item
    from rigscout.jobs.wiring import polite_fetcher

    number = item_number(item)
    if number is None:
        raise ConfigError(f"{item!r} is not an eBay item number (its digits, or the item's link)")
    settings = app.settings()
    engine = open_existing_store(settings)
    with contextlib.ExitStack() as stack:
        fetcher = None if offline else stack.enter_context(polite_fetcher(settings.collector))
        fetch = fetcher.fetch_text if fetcher else None
        with Session(engine) as session:
            result = check_item(
                session, settings, number, now=utcnow(), profile=profile, fetch_page=fetch
            )
    engine.dispose()
    if as_json:
        from core.deal_json import deal_to_json

        emit_json(
            {
                "item_id": result.item_id,
                "fetched": result.fetched,
                "status": result.status,
                "reading": result.reading.as_json(),
                "profile": result.profile,
                "view": result.view,
                "deal": deal_to_json(result.deal, money=float) if result.deal else None,
                "place": result.place,
                "deals": result.deals,
                "place_in_model": result.place_in_model,
                "model_deals": result.model_deals,
                "plans": [
                    {
                        "vram_gb": h.vram_gb,
                        "place": h.place,
                        "role": h.role,
                        "total": float(h.plan.total),
                    }
                    for h in result.plans
                ],
            }
        )
        return
    click.echo(render_check(result))


COMMANDS: tuple[click.Command, ...] = (check,)
