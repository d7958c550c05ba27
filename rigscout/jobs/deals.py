"""The ranking at the edge: load the rows from the store, hand them to the pure rules."""

from __future__ import annotations

import contextlib
import hashlib
import logging
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any, cast

from sqlalchemy.exc import InternalError, OperationalError

from db.auction_rows import (
    FitMarks,
    load_fit_marks,
    load_fit_unchanged,
    load_sales_before,
    load_watch_fingerprint,
    load_watched_auctions,
)
from db.engine import without_waiting
from db.ignores import load_ignores
from db.rank_rows import (
    load_active_rows,
    load_sold_rows,
    load_sold_rows_over,
    load_unmatched_count,
)
from db.state import load_state, save_state_unless_busy
from ranking.market import (
    HISTORY_DAYS,
    PRIOR,
    WATCHED_LIMIT,
    fit_watched_model,
    markets_basis,
    model_from_json,
    model_to_json,
    sales_window_days,
    slice_markets_from_json,
    slice_markets_to_json,
)
from ranking.pricing import eligible_skus, price_rows
from ranking.rank import rank_priced
from ranking.records import RankFilters, Ranking
from rigscout.jobs.bulk import collector_paused
from rigscout.jobs.priced import rank_refreshed, refresh_priced

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping, Sequence
    from datetime import datetime

    from sqlalchemy.orm import Session

    from core.settings import RankSettings
    from ranking.catalog import Sku
    from ranking.ignores import Ignores
    from ranking.market import AuctionModel
    from ranking.rows import SoldRow
    from rigscout.jobs.priced import SalesLoader

log = logging.getLogger(__name__)
MODEL_STATE = "auction_model"
MARKETS_STATE = "auction_markets"  # the slice markets the last fit read


def rank_stored(
    session: Session,
    skus: Mapping[str, Sku],
    settings: RankSettings,
    *,
    now: datetime,
    filters: RankFilters | None = None,
) -> Ranking:
    """Today's ranking of the stored listings (see ``ranking.rank.rank_rows``).

    Running auctions are ranked at the end the auction model predicts, learned from the auctions
    watched to their end in the last ``HISTORY_DAYS`` before today (the prior where those are
    few).
    """
    (ranking,) = rank_stored_many(
        session, skus, settings, now=now, filters=[filters or RankFilters()]
    )
    return ranking


def rank_stored_many(
    session: Session,
    skus: Mapping[str, Sku],
    settings: RankSettings,
    *,
    now: datetime,
    filters: Sequence[RankFilters],
    sales: Sequence[SoldRow] | None = None,
    kept: bool = True,
) -> tuple[Ranking, ...]:
    """One ranking per ``filters`` (each profile, say), loading the stored rows once.

    ``sales``: recent sales the caller has loaded already, over at least ``window_days``.
    With ``kept`` the listings' priced rows are kept in the store and only those whose inputs
    changed are priced again (``rigscout/jobs/priced.py``), committed in ``session``; without
    it, in a session already in a transaction, or where the store cannot be written
    (read-only, or locked past the busy timeout), every active listing is priced now and
    nothing is kept. Both give the same rankings.
    """
    loaded = list(sales) if sales is not None else None

    markets_window = (settings.window_days, settings.pool_window_days)

    def recent_sales(skus: Collection[str] | None = None) -> Sequence[SoldRow]:
        nonlocal loaded
        if loaded is None:
            window, server = markets_window
            found = load_sold_rows(
                session, now=now, window_days=window, server_days=server, skus=skus
            )
            if skus is not None:
                return found  # these SKUs' only: not every sale
            loaded = found
        return loaded

    def fit_sales(days: int) -> Sequence[SoldRow]:
        # A fit follows new sales, and so do the markets: both windows in one read.
        nonlocal loaded
        if loaded is not None:
            return load_sold_rows(session, now=now, window_days=days)
        fit, loaded = load_sold_rows_over(session, now=now, windows=[(days, 0), markets_window])
        return fit

    # Kept rows are written and committed in the caller's session, so only in one with
    # nothing under way: a session already in a transaction may hold writes this ranking must
    # see but not commit, and is ranked in full.
    keep = kept and not session.in_transaction()
    with collector_paused():
        marks = load_fit_marks(session)
        fingerprint = load_watch_fingerprint(session, marks)
        model = current_auction_model(session, settings, now=now, sales=fit_sales, marks=marks)
        ignores = load_ignores(session)
        pricing = Pricing(skus, settings, now, filters, model, ignores)
        found = None
        if keep:
            found = _rank_kept(
                session, pricing, sales=recent_sales, fingerprint=fingerprint, marks=marks
            )
        rankings, unmatched = found or _rank_now(session, pricing, recent_sales())
        if unmatched:
            rankings = tuple(
                replace(r, skipped={**r.skipped, "unmatched": unmatched}) for r in rankings
            )
        return rankings


@dataclass(frozen=True, slots=True)
class Pricing:
    """What both ways of ranking the store read besides the rows."""

    skus: Mapping[str, Sku]
    settings: RankSettings
    now: datetime
    filters: Sequence[RankFilters]
    model: AuctionModel
    ignores: Ignores


def _rank_kept(
    session: Session,
    p: Pricing,
    *,
    sales: SalesLoader,
    fingerprint: object,
    marks: FitMarks,
) -> tuple[tuple[Ranking, ...], int] | None:
    """The rankings from the kept priced rows, those whose inputs changed priced again and
    committed, and the unmatched count; None where the store cannot be written."""
    try:
        with without_waiting(session):  # a run writing the store: rank in full, now
            refreshed = refresh_priced(
                session,
                p.skus,
                p.settings,
                now=p.now,
                sales=sales,
                model=p.model,
                ignores=p.ignores,
                fingerprint=fingerprint,
                marks=marks,
            )
            rankings = rank_refreshed(
                session, refreshed, p.skus, p.settings, now=p.now, filters=p.filters
            )
            session.commit()
    except (OperationalError, InternalError) as exc:
        session.rollback()
        log.debug("priced rows not kept (%s): every listing is priced now", exc)
        return None
    return rankings, refreshed.unmatched


def _rank_now(
    session: Session, p: Pricing, sales: Sequence[SoldRow]
) -> tuple[tuple[Ranking, ...], int]:
    """The rankings with every active listing priced now, nothing kept."""
    priced = price_rows(
        load_active_rows(session),
        sales,
        p.skus,
        p.settings,
        now=p.now,
        predict=p.model.predict,
        only=eligible_skus(p.skus, p.settings, p.filters),
        ignores=p.ignores,
    )
    rankings = tuple(
        rank_priced(priced, p.skus, p.settings, now=p.now, filters=f) for f in p.filters
    )
    return rankings, load_unmatched_count(session)


def current_auction_model(
    session: Session,
    settings: RankSettings,
    *,
    now: datetime,
    sales: Callable[[int], Sequence[SoldRow]] | None = None,
    marks: FitMarks | None = None,
) -> AuctionModel:
    """The auction model fitted on the watched auctions, fitted once per state of its inputs.

    The model learns from the auctions sold before today (UTC, the day of ``now``): the day's
    model is fitted by the day's first ranking, and today's endings teach tomorrow's. So an
    auction ending in the middle of the day (a fast-lane pass closes it as presumed sold)
    neither refits the model nor moves the prediction of every running auction with it.
    Fitting reads a year of watched auctions and their markets (seconds on a large store), yet
    its inputs change only when a save touches a sale dated before today or a listing that has
    one (``db.auction_rows.load_fit_unchanged``): a sold page's sales of the last days do. So
    the fitted model is kept in the ``state`` table with the store's marks at the fit, under
    the day and the settings: ``rank``, ``report``, ``plan``, the alerts after a run and the
    fast lane's passes reuse it.
    Keeping it never waits for a lock; a store that is busy or read-only only costs the next
    command the fit again. ``sales``: loads the sales of the last given days (a fit's);
    ``marks``: the store's marks now, where the caller has read them (``load_fit_marks``).
    """
    key, today = _model_key(settings, now), now.date()
    if marks is None:
        marks = load_fit_marks(session)
    cached = load_state(session, MODEL_STATE)
    if cached is not None and cached.get("key") == key:
        with contextlib.suppress(KeyError, ValueError, TypeError):
            kept = FitMarks.from_json(cached.get("marks"))
            before = (today, int(cast("int", cached["sold_before"])))
            if load_fit_unchanged(session, kept, marks, before=before):
                model = model_from_json(cast("dict[str, Any]", cached["model"]))
                if kept != marks:  # walk from here next time: the saves since changed nothing
                    moved = {**cached, "marks": marks.to_json()}
                    save_state_unless_busy(session.get_bind().engine, MODEL_STATE, moved, now)
                return model
    # The markets of the last fit's slices of sales (the sales of past days seldom change),
    # kept apart from the model: only a fit reads them.
    basis = markets_basis(settings)
    memo = load_state(session, MARKETS_STATE) or {}
    known = {}
    if memo.get("basis") == basis:
        with contextlib.suppress(ValueError, ArithmeticError):
            known = slice_markets_from_json(memo.get("markets"))
    since = now - timedelta(days=HISTORY_DAYS)
    sold_before = load_sales_before(session, today)
    watched = load_watched_auctions(session, since=since, newest=WATCHED_LIMIT, sold_before=today)
    days = sales_window_days(watched, now=now, window_days=settings.window_days)
    found = load_sold_rows(session, now=now, window_days=days) if sales is None else sales(days)
    fit = fit_watched_model(watched, found, settings, known=known)
    engine = session.get_bind().engine
    markets: dict[str, object] = {"basis": basis, "markets": slice_markets_to_json(fit.markets)}
    kept_model: dict[str, object] = {
        "key": key,
        "marks": marks.to_json(),
        "sold_before": sold_before,
        "model": model_to_json(fit.model),
    }
    if not (
        save_state_unless_busy(engine, MARKETS_STATE, markets, now)
        and save_state_unless_busy(engine, MODEL_STATE, kept_model, now)
    ):
        log.debug("the store is busy or read-only: the next command fits the auction model again")
    return fit.model


def _model_key(settings: RankSettings, now: datetime) -> str:
    """Changes with anything the fit reads besides the store: the day (the windows move), the
    settings, the prior."""
    parts = (
        now.date(),
        settings,
        HISTORY_DAYS,
        WATCHED_LIMIT,
        PRIOR.read_bytes(),
    )
    return hashlib.sha256(repr(parts).encode()).hexdigest()
