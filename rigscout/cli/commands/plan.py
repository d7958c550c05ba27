"""``rigscout plan``: the cheapest complete rigs for a VRAM target from the stored listings.

It only reads: on a database rigscout has not initialised it says so and creates nothing.
"""

from __future__ import annotations

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
    NON_NEGATIVE_NUMBER,
    POSITIVE,
    POSITIVE_NUMBER,
    money_option,
    profile_option,
)

if TYPE_CHECKING:
    from decimal import Decimal

    from ranking.plan import Target


@click.command("plan")
@click.option(
    "--vram",
    type=POSITIVE_NUMBER,
    required=True,
    help="Total VRAM the rig needs, in GB.",
)
@money_option("--budget", help="Most the whole rig may cost, landed.")
@profile_option()
@click.option("--fp16-tflops", type=NON_NEGATIVE_NUMBER, help="Least aggregate FP16 TFLOP/s.")
@click.option("--gpus", type=POSITIVE, help="Exactly this many cards or modules.")
@click.option(
    "--form-factor",
    type=click.Choice(["any", "pcie", "sxm2", "sxm4"], case_sensitive=False),
    default="any",
    show_default=True,
)
@click.option(
    "--max-auctions",
    type=click.IntRange(min=0),
    help="At most this many running auctions to win.",
)
@click.option("--limit", type=POSITIVE, default=5, show_default=True, help="Plans to show.")
@click.option(
    "--sort",
    type=click.Choice(["measure", "price"], case_sensitive=False),
    default="measure",
    show_default=True,
    help="measure: least money per unit of the profile's own measure first (llm-inference "
    "GB/s, training FP16 TFLOP/s, capacity GB); price: the cheapest rig first.",
)
@click.option("--workstation-slots", type=POSITIVE, help="GPU slots of your own PC (default 4).")
@click.option("--workstation-width", type=POSITIVE, help="Widest card your PC takes (default 3).")
@click.option("--workstation-psu", type=POSITIVE, help="Your PC's PSU watts (default 1600).")
@click.option("--boards", is_flag=True, help="Also plan on bare GPU boards (your own chassis).")
@click.option("--json", "as_json", is_flag=True, help="One JSON list instead of text.")
@pass_app
@handle_errors
def plan(
    app: AppContext,
    vram: float,
    budget: Decimal | None,
    profile: str | None,
    fp16_tflops: float | None,
    gpus: int | None,
    form_factor: str,
    max_auctions: int | None,
    limit: int,
    sort: str,
    workstation_slots: int | None,
    workstation_width: int | None,
    workstation_psu: int | None,
    boards: bool,
    as_json: bool,
) -> None:
    """Plan complete rigs (a host plus GPU listings) that reach a VRAM target.

    The host is a server listing (barebones or with GPUs) or your own workstation; the
    prices are the ranker's landed prices, auctions at their predicted end. Plans come in
    the profile's order (least money per GB/s, FP16 TFLOP/s or GB), or cheapest first with
    --sort price; a plan another beats on price and every measure is never shown without it.

    Example:

        rigscout plan --vram 64 --budget 1500
    """
    from dataclasses import replace

    from sqlalchemy.orm import Session

    from core.clock import utcnow
    from db.rank_rows import load_active_count
    from ranking.plan import Target, load_plan_rules, render_plan_json, render_plans_text
    from rigscout.cli.render import wrap_lines
    from rigscout.jobs.plans import build_plans

    settings = app.settings()
    ws = load_plan_rules().workstation
    ws = replace(
        ws,
        gpu_slots=workstation_slots or ws.gpu_slots,
        slot_width=workstation_width or ws.slot_width,
        psu_watts=workstation_psu or ws.psu_watts,
    )
    target = Target(
        vram_gb=vram,
        profile=profile or settings.rank.profile,
        budget=budget,
        fp16_tflops=fp16_tflops,
        gpus=gpus,
        form_factor=form_factor,
        max_auctions=max_auctions,
        limit=limit,
        sort=sort,
        workstation=ws,
        boards=boards,
    )
    now = utcnow()
    with Session(open_existing_store(settings)) as session:
        plans = build_plans(session, settings, target, now)
        listings = 0 if plans else load_active_count(session)
    if as_json:
        emit_json([render_plan_json(p) for p in plans])
    elif plans:
        text = render_plans_text(plans, now)
        # Wrapped to a terminal; one line per item in a pipe (for grep), as rank's sentences.
        click.echo(wrap_lines(text, app.console.width) if app.console.is_terminal else text)
    else:
        click.echo(_no_plan(target, listings, settings.rank.currency))


def _no_plan(target: Target, listings: int, currency: str) -> str:
    """Why no plan: no listings at all, the budget, or the target itself."""
    from core import fmt

    if not listings:
        return "No listings yet: run `rigscout run` (or `rigscout run --offline fixtures/demo`)."
    want = f"{target.vram_gb:g} GB of VRAM"
    if target.budget is not None:
        limit = fmt.money(target.budget, currency)
        return (
            f"No complete rig reaches {want} for {limit} or less with today's "
            f"{listings:,} listings; without --budget, `plan` shows the cheapest that does."
        )
    return f"No complete rig reaches {want} with today's {listings:,} listings."


COMMANDS: tuple[click.Command, ...] = (plan,)
