"""Write the report: load from the store, render, and save ``index.html`` in the folder.

The page is one self-contained file (CSS, script and charts inline), so it opens from
``file://`` with no server and no network.
"""

from __future__ import annotations

import contextlib
import time
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from core.errors import ConfigError
from core.files import write_atomically
from rigscout.jobs.bulk import collector_paused
from rigscout.jobs.plans import load_bom_prices
from rigscout.outputs.report.asking import build_asking_days
from rigscout.outputs.report.load import build_report_data, history_start
from rigscout.outputs.report.page import render_report
from rigscout.outputs.report.rigs import load_report_rigs, report_planner, report_targets

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from datetime import date, datetime
    from pathlib import Path

    from sqlalchemy import Engine

    from ranking.catalog import Sku
    from rigscout.config.load import Settings
    from rigscout.outputs.report.records import AskingDay, RigPlan

INDEX = "index.html"


def write_report(
    engine: Engine,
    settings: Settings,
    out_dir: Path,
    *,
    skus: Mapping[str, Sku],
    now: datetime,
    plans: Sequence[RigPlan] | None = None,
    on_step: Callable[[str], None] = lambda _: None,
) -> Path:
    """Build the report as of ``now`` into ``out_dir`` and return the page's path.

    ``plans`` None: each ``[[plan]]`` target's best rig from the store (``rigs.py``).
    The page is written to a temporary file and renamed, so a reader never sees half a page.
    ``on_step`` hears each step as it starts (the CLI's progress bar).
    """
    on_step("ranking the listings")
    with collector_paused():
        since = history_start(now, settings.report)
        # The price-history scan is SQL (it runs outside the GIL) and the rankings are Python:
        # on two cores they overlap, which saves about a quarter of the build on 1M observations.
        later: list[Callable[[], None]] = []  # the asking days' keeping, once ranked
        with ThreadPoolExecutor(max_workers=1) as pool:
            asking = pool.submit(_load_asking, engine, settings, since, now, later)
            parts = planner = None
            if plans is None:  # the rigs' parts, and the bounds of what a plan can buy
                with Session(engine) as session:
                    parts = load_bom_prices(session, settings.rank, now)
                planner = report_planner(settings, skus, parts)
            with Session(engine) as session:
                data = build_report_data(
                    session,
                    skus,
                    settings.rank,
                    settings.report,
                    now=now,
                    asking=asking.result,
                    plan_profiles=_plan_profiles(settings) if parts is not None else (),
                    planner=planner,
                )
                if parts is not None:
                    on_step("planning the rigs")
                    plans = load_report_rigs(
                        session, settings, skus, data.plan_deals, now=now, parts=parts
                    )
            for keep in later:
                keep()
        on_step("drawing the page")
        html = render_report(
            data,
            plans=plans or (),
            top_per_sku=settings.report.top_per_sku,
            min_sales=settings.rank.min_sales,
        )
    on_step("writing the page")
    return save_page(out_dir, html)


def _plan_profiles(settings: Settings) -> list[str]:
    return sorted({target.profile for _, target in report_targets(settings)})


def _load_asking(
    engine: Engine,
    settings: Settings,
    since: date,
    now: datetime,
    later: list[Callable[[], None]],
) -> tuple[AskingDay, ...]:
    with Session(engine) as session:
        return build_asking_days(session, settings.rank, since=since, now=now, later=later)


LEFTOVER_AGE = 3600.0  # seconds: a temporary page this old is a killed write's, not a live one


def _remove_leftovers(out_dir: Path) -> None:
    """The temporary pages of writes killed midway (``.index-*.html``); a younger one may be
    another report being written right now, and is left alone."""
    cutoff = time.time() - LEFTOVER_AGE
    for leftover in out_dir.glob(".index-*.html"):
        with contextlib.suppress(OSError):  # gone already, or not ours to remove
            if leftover.stat().st_mtime < cutoff:
                leftover.unlink()


def save_page(out_dir: Path, html: str) -> Path:
    """Write ``index.html`` in ``out_dir`` atomically (ConfigError when the folder is unusable).

    A write that fails (a full disk, say) leaves the old page as it was and no temporary file.
    """
    target = out_dir / INDEX
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        _remove_leftovers(out_dir)
        write_atomically(target, html)  # readable by all: a web server must read it
    except OSError as exc:
        raise ConfigError(f"cannot write the report in {out_dir}: {exc.strerror or exc}") from exc
    return target
