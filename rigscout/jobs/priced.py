"""Incremental ranking: each listing priced once, and again only when what it read changed.

``rank_stored_many`` (``rigscout/jobs/deals.py``) used to price every active listing on every
command: at a million listings, most of a minute. Here the priced listings are kept in the
``priced`` table (``db/priced_rows.py``), and a ranking

1. prices the listings whose row is out of date: new, a new price or a changed listing, a
   changed basis (rules, settings, FX, catalog, ignores: ``ranking.kept.digest.pricing_basis``), an
   auction whose time left has moved to the next step (``ranking.rank.priced_until``);
2. when something was saved since the last ranking (or it is another day, or another basis),
   computes the markets from the sales and the asking prices (the kept landed prices of the
   others, the fresh ones of these) and prices again the listings whose markets moved
   (``ranking.kept.digest.MarketDigests``) or whose seller's new-account flag changed; otherwise it
   reads the kept markets back, and prices again only the auctions whose price expired. The
   markets' own steps are kept too (``_price_markets``): what the sales make, while no sale
   changed, and the chassis markets, while the GPUs their sales came with are valued alike;
3. saves those rows and reads every row's score inputs as arrays; ``ranking.kept.shortlist`` keeps
   the listings that can make each view's top, and those alone are priced again from their
   rows and ranked exactly (``ranking.rank.rank_priced`` with the population's percentiles).

The answer is the one a full recompute gives (``tests/rigscout/jobs/test_priced.py`` compares them
on randomized stores after random edits). The caller (``rank_stored_many``) ranks in full where
the store cannot be written or its session is already in a transaction.
"""

from __future__ import annotations

import contextlib
import heapq
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

import numpy as np

from core.models import Category
from db import priced_rows, rank_rows
from db.auction_rows import FitMarks, load_fit_unchanged, load_new_sales, load_sales_before
from db.batches import batches
from db.latest import load_last_saved
from db.priced_rows import (
    delete_unranked,
    load_asking,
    load_digests,
    load_exact_landed,
    load_expired,
    load_outcomes,
    load_part_prices,
    load_rows,
    load_rows_priced_against,
    load_sellers_of,
    load_sellers_under,
    load_stale_rows,
    save_priced,
)
from db.rank_rows import load_active_rows, load_unmatched_count
from db.score_columns import load_columns
from db.state import load_state, save_state
from ranking.kept import (
    MarketDigests,
    chassis_from_json,
    chassis_to_json,
    markets_from_json,
    markets_to_json,
    pack_inputs,
    pricing_basis,
    shortlist,
    sold_side_from_json,
    sold_side_to_json,
)
from ranking.market import (
    chassis_of,
    load_scam_rules,
    model_to_json,
    new_accounts,
    server_valuer,
    sold_side,
    sold_side_with,
    with_asking,
)
from ranking.plan import load_plan_rules, module_heatsink, plan_kind
from ranking.pricing import AUCTION, Landing, Pricer, asks, land_row, markets_of, priced_until
from ranking.profiles import load_profiles
from ranking.rank import rank_priced, shown
from ranking.records import PricedRows, Ranking
from ranking.value import score_sku_value

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
    from datetime import datetime
    from decimal import Decimal

    from sqlalchemy.orm import Session

    from core.settings import RankSettings
    from db.priced_rows import Stale
    from ranking.catalog import Sku
    from ranking.ignores import Ignores
    from ranking.kept import PricedColumns
    from ranking.market import AuctionModel, Market, ServerReferences
    from ranking.records import Priced, RankFilters
    from ranking.rows import ActiveRow, SoldRow

    class SalesLoader(Protocol):
        """Loads the recent sales (``db.rank_rows.load_sold_rows``); given SKUs, it may load
        only theirs."""

        def __call__(self, skus: Collection[str] | None = None, /) -> Sequence[SoldRow]: ...


# What a kept row is made by, besides the rules (``ranking``, ``core``): a change to these
# prices everything again.
CODE = (Path(__file__), Path(priced_rows.__file__ or ""), Path(rank_rows.__file__ or ""))
STATE = "priced"  # the ``state`` row of the last refresh: its key, markets, unmatched count
SOLD = "priced_sold"  # and the sales' part of its markets, with the sales' marks it was made at
ACCOUNTS = "priced_accounts"  # and its new-account sellers (they change with time alone)
# Listings are read by id lists, or in one pass over the store where they are more than this
# share of the priced ones (a caller asking for every listing).
MOST = 0.25
SAVED_AT_ONCE = 5_000  # priced rows built and saved together
# Past this many listings changed since the last ranking, every seller is counted again for the
# new-account pattern, not only theirs (finding theirs would then cost more).
RECOUNTED_AT_MOST = 20_000


@dataclass(frozen=True, slots=True)
class Refreshed:
    """The store's priced rows brought up to date, and what pricing one again needs."""

    pricer: Pricer
    markets: Mapping[str, Market]
    priced: int  # listings priced (again) to get there
    unmatched: int  # active listings no SKU matched
    basis: str  # what the rows were priced under (``pricing_basis``)


def refresh_priced(
    session: Session,
    skus: Mapping[str, Sku],
    settings: RankSettings,
    *,
    now: datetime,
    sales: SalesLoader,
    model: AuctionModel,
    ignores: Ignores | None,
    fingerprint: object,
    marks: FitMarks,
) -> Refreshed:
    """Price again every listing whose row is out of date, and save them (not committed).

    ``sales``: loads the recent sales, called only when the markets must be computed again;
    ``fingerprint``: changes whenever a save could change them (``load_watch_fingerprint``);
    ``marks``: the store's sales marks now (``load_fit_marks``), which say whether the sales'
    part of the markets kept by the last computation still holds.
    """
    basis = pricing_basis(settings, skus, ignores, code=CODE)
    todo: dict[int, tuple[Stale, Landing]] = {}

    def take(found: Iterable[Stale]) -> None:
        for stale in found:
            todo[stale[0].listing_id] = (stale, land_row(stale[0], skus, settings, now))

    key = repr((fingerprint, now.date(), basis))
    last = load_state(session, STATE)
    kept = _kept_state(session, last, key, skus)
    if kept is not None:
        # Nothing saved since the rows were brought up to date under these markets: only the
        # prices that expire with time (auctions) are out of date.
        markets, servers, accounts, unmatched = kept
        take(load_rows(session, load_expired(session, now), basis=basis))
        digests = MarketDigests(markets, servers, skus, model_to_json(model))
        if any(_ended_under(row, landing, settings) for (row, _, _), landing in todo.values()):
            # An ended auction no longer counts toward its new-account seller's listings:
            # nothing was saved since, so only the sellers of the ones priced again are counted.
            sellers = {str(r.seller) for (r, _, _), _ in todo.values() if r.seller}
            accounts = _settle_accounts(session, todo, settings, take, basis, (accounts, sellers))
            save_state(session, ACCOUNTS, _accounts_state(key, basis, accounts), now)
    else:
        saved = load_last_saved(session)
        since = _saved_since(last, basis)
        left = delete_unranked(session, saved_after=since)
        take(load_stale_rows(session, basis=basis, now=now, saved_after=since))
        recount = _recount(session, since, basis, todo.values(), left)

        def asking(sold: Collection[str]) -> dict[str, list[Decimal]]:
            # The landed asking prices of the SKUs without a market of their sales (``sold``):
            # the others' asking prices make no market (``with_asking``). The kept ones of the
            # others, the fresh ones of these.
            found: dict[str, list[Decimal]] = {}
            for listing_id, sku, price in load_asking(session, besides=sold):
                if listing_id not in todo:
                    found.setdefault(sku, []).append(price)
            for (row, _, _), landing in todo.values():
                if landing.landed is not None and str(row.sku) not in sold and asks(row):
                    found.setdefault(str(row.sku), []).append(landing.landed.unit_price)
            return found

        markets, servers = _price_markets(
            session, asking, skus, settings, now=now, sales=sales, marks=marks, basis=basis
        )
        digests = MarketDigests(markets, servers, skus, model_to_json(model))
        moved = [
            (sku, auction, digest)
            for sku, auction, digest in load_digests(session)
            if digest not in digests.accepts(sku, auction=auction)
        ]
        take(
            stale
            for stale in load_rows_priced_against(session, moved, basis=basis)
            if stale[0].listing_id not in todo
        )
        accounts = _settle_accounts(session, todo, settings, take, basis, recount)
        unmatched = load_unmatched_count(session)
        state: dict[str, object] = {
            "key": key,
            "basis": basis,
            "saved": saved,
            "markets": markets_to_json(markets, servers),
            "unmatched": unmatched,
        }
        save_state(session, STATE, state, now)
        save_state(session, ACCOUNTS, _accounts_state(key, basis, accounts), now)
    pricer = Pricer(skus, markets, servers, settings, now, model.predict, accounts, ignores)
    priced = len(todo)
    # Priced and saved a few thousand at a time, in the order of their ids, each listing let go
    # once saved: after a sold page that is half the store's listings.
    for chunk in batches(sorted(todo), SAVED_AT_ONCE):
        rows = [_row(*todo.pop(listing_id), pricer, digests, basis) for listing_id in chunk]
        save_priced(session, rows)
    return Refreshed(pricer, markets, priced, unmatched, basis)


def _price_markets(
    session: Session,
    asking: Callable[[Collection[str]], Mapping[str, Sequence[Decimal]]],
    skus: Mapping[str, Sku],
    settings: RankSettings,
    *,
    now: datetime,
    sales: SalesLoader,
    marks: FitMarks,
    basis: str,
) -> tuple[dict[str, Market], ServerReferences]:
    """``price_markets``, of its steps, keeping two of them in the ``state`` table under the
    day and the basis: the sales' part (``SoldSide``) while no sale it reads changed (the
    markets read the sales dated before today, ``ranking.market.sales_days``: the test the
    auction model's reuse passes, ``load_fit_unchanged``) and, where sales were
    only added (``load_new_sales``), made again for their SKUs alone; and the chassis
    markets while they hold (``Chassis.holds``: the GPUs their sales came with are valued
    alike). A run that saved no sale then reads no sale at all, or the server SKUs' alone,
    and a fast-lane pass that closed a few auctions (sales dated today) reads none.
    ``asking``: the SKUs' asking prices but those of the SKUs given; ``marks``: the store's
    sales marks now (``load_fit_marks``)."""
    today = now.date()
    key = repr((today, basis))
    side, chassis, added = None, None, None
    kept = load_state(session, SOLD)
    if kept is not None and kept.get("key") == key:
        with contextlib.suppress(KeyError, TypeError, ValueError, AttributeError, ArithmeticError):
            then = FitMarks.from_json(kept.get("marks"))
            before = (today, int(cast("int", kept["sold_before"])))
            unchanged = load_fit_unchanged(session, then, marks, before=before)
            added = frozenset[str]() if unchanged else load_new_sales(session, then, marks)
            if added is not None:
                side = sold_side_from_json(cast("dict[str, Any]", kept["side"]))
                chassis = chassis_from_json(cast("dict[str, Any]", kept["chassis"]))
    if side is not None and added:
        # Sales added and nothing else (closed auctions presumed sold, a sold page of new
        # sales): the part of their SKUs made again from their sales alone.
        side = sold_side_with(side, sold_side(sales(added), settings, now=now), added)
    every = None
    if side is None:
        every = sales()
        side = sold_side(every, settings, now=now)
    cards = with_asking(side.cards, asking(side.cards.keys()), settings)
    valuer = server_valuer(side, cards, skus)
    servers = {code for code, sku in skus.items() if sku.category is Category.SERVER}
    if (
        every is not None
        or chassis is None
        or not chassis.holds(valuer.markets)
        or not servers.isdisjoint(added or ())
    ):
        found = every if every is not None else sales(sorted(servers))
        chassis = chassis_of(found, valuer, settings, now=now)
    elif kept is not None and kept.get("marks") == marks.to_json():
        return markets_of(side, valuer, chassis)  # nothing to keep that is not kept
    state: dict[str, object] = {
        "key": key,
        "marks": marks.to_json(),
        "sold_before": load_sales_before(session, today),
        "side": sold_side_to_json(side),
        "chassis": chassis_to_json(chassis),
    }
    save_state(session, SOLD, state, now)
    return markets_of(side, valuer, chassis)


def _ended_under(row: ActiveRow, landing: Landing, settings: RankSettings) -> bool:
    """Whether this listing, priced again, has left the priced listings (an auction that
    ended) while its seller was under ``[scam] vouched_feedback``: the only sellers the
    new-account pattern counts (``ranking.market.scam.new_accounts``)."""
    feedback = row.seller_feedback
    return (
        landing.landed is None
        and bool(row.seller)
        and feedback is not None
        and feedback < load_scam_rules().vouched_feedback
    )


def _saved_since(last: Mapping[str, object] | None, basis: str) -> int | None:
    """The newest ``saved_seq`` at the last refresh (``last``: its state), if it was made under
    ``basis``: every row was then brought up to date, and only the listings saved since can
    have moved (``load_stale_rows``). None: every row must be checked."""
    if last is None or last.get("basis") != basis:
        return None
    saved = last.get("saved")
    return saved if isinstance(saved, int) else None


def _kept_state(
    session: Session, kept: Mapping[str, object] | None, key: str, skus: Mapping[str, Sku]
) -> tuple[dict[str, Market], ServerReferences, dict[str, str], int] | None:
    """The markets and new-account sellers kept by the last refresh (``kept``: its state), if
    it was made under ``key`` (the store as it is, today, the same basis): only a save, a new
    day or another basis changes them. The auctions priced again since read them; they do not
    change them (an auction's price is not an asking price, and its landed price stays the
    same)."""
    accounts = load_state(session, ACCOUNTS)
    if kept is None or accounts is None or key != kept.get("key") or key != accounts.get("key"):
        return None
    try:
        markets, servers = markets_from_json(cast("dict[str, Any]", kept["markets"]), skus)
        sellers = cast("dict[str, Any]", accounts["accounts"])
        unmatched = int(cast("int", kept["unmatched"]))
        return markets, servers, {str(k): str(v) for k, v in sellers.items()}, unmatched
    except (KeyError, TypeError, ValueError, AttributeError, ArithmeticError):
        return None


def rank_refreshed(
    session: Session,
    refreshed: Refreshed,
    skus: Mapping[str, Sku],
    settings: RankSettings,
    *,
    now: datetime,
    filters: Sequence[RankFilters],
) -> tuple[Ranking, ...]:
    """Each ``filters``' ranking from the (current) priced rows."""
    columns = load_columns(session)
    outcomes = load_outcomes(session)
    profiles = load_profiles()
    rankings = []
    again: dict[int, Priced] = {}  # a listing priced again for one view serves the others
    parts_of: dict[tuple[str | None, int], list[tuple[Decimal, ActiveRow]]] = {}  # and its parts
    for wanted in filters:
        profile = profiles.get(wanted.profile or settings.profile)
        values = {code: score_sku_value(s, profile, profiles) for code, s in skus.items()}
        limit, explained = shown(wanted)
        over = _over_max_price(session, columns, wanted.max_price)
        short = shortlist(
            columns,
            skus,
            values,
            profile,
            wanted,
            limit=limit,
            flagged=explained,
            over_max_price=over,
        )
        wanted_ids = {*short.deals, *short.flagged}
        todo = wanted_ids - again.keys()
        again |= {
            p.row.listing_id: p for p in _price_again(session, refreshed, todo, every=len(columns))
        }
        items = [again[i] for i in sorted(wanted_ids) if i in again]
        parts = parts_of.get((wanted.sku, explained))
        if parts is None:
            parts = parts_of[wanted.sku, explained] = _cheapest_parts(
                session, wanted.sku, explained, refreshed.basis
            )
        priced = PricedRows(tuple(items), tuple(parts), outcomes, refreshed.markets)
        ranking = rank_priced(
            priced,
            skus,
            settings,
            now=now,
            filters=wanted,
            profiles=profiles,
            population=short.population,
        )
        rankings.append(ranking)
    return tuple(rankings)


def _settle_accounts(
    session: Session,
    todo: Mapping[int, tuple[Stale, Landing]],
    settings: RankSettings,
    take: Callable[[Iterable[Stale]], None],
    basis: str,
    recount: tuple[Mapping[str, str], Collection[str]] | None = None,
) -> dict[str, str]:
    """The new-account pattern's sellers (``ranking.market.scam.new_accounts``) over every priced
    listing; each kept row whose label no longer holds is taken to be priced again.

    ``recount``: the sellers' labels as last counted and the sellers whose listings changed
    since (``_recount``): a label reads its seller's listings alone, so only those are counted
    again, the others keep theirs."""
    rules = load_scam_rules()
    sellers = None if recount is None else recount[1]
    listings: list[tuple[str | None, int | None, int, Decimal]] = []
    labels: dict[int, tuple[str, str | None]] = {}
    for listing_id, seller, feedback, quantity, price, label in load_sellers_under(
        session, rules.vouched_feedback, sellers=sellers
    ):
        if listing_id not in todo:
            listings.append((seller, feedback, quantity, price))
            labels[listing_id] = (seller, label)
    for (row, _, _), landing in todo.values():
        if landing.landed is not None and (sellers is None or row.seller in sellers):
            price = landing.landed.unit_price
            listings.append((row.seller, row.seller_feedback, row.quantity, price))
    accounts = new_accounts(listings, settings, rules)
    if recount is not None:
        kept, counted = recount
        accounts = {s: label for s, label in kept.items() if s not in counted} | accounts
    changed = [i for i, (s, label) in labels.items() if accounts.get(s) != label]
    take(load_rows(session, changed, basis=basis))
    return accounts


def _recount(
    session: Session,
    since: int | None,
    basis: str,
    changed: Collection[tuple[Stale, Landing]],
    left: Collection[str],
) -> tuple[dict[str, str], set[str]] | None:
    """The new-account labels kept by the last ranking, and the sellers to count again: those
    under ``[scam] vouched_feedback`` of the listings ``changed`` since (as they are and as
    they were priced) and of the rows dropped since (``left``); no other seller's listings
    changed. None where every seller is counted: no ranking under ``basis`` before (``since``,
    ``_saved_since``), or more than ``RECOUNTED_AT_MOST`` listings changed."""
    kept = load_state(session, ACCOUNTS)
    if since is None or kept is None or kept.get("basis") != basis:
        return None
    if len(changed) > RECOUNTED_AT_MOST:
        return None
    try:
        accounts = {str(k): str(v) for k, v in cast("dict[str, Any]", kept["accounts"]).items()}
    except (KeyError, TypeError, AttributeError):
        return None
    vouched = load_scam_rules().vouched_feedback
    rows = [row for (row, _, _), _ in changed]
    sellers = {
        str(r.seller)
        for r in rows
        if r.seller and r.seller_feedback is not None and r.seller_feedback < vouched
    }
    sellers |= load_sellers_of(session, [r.listing_id for r in rows], vouched)
    return accounts, sellers | set(left)


def _accounts_state(key: str, basis: str, accounts: Mapping[str, str]) -> dict[str, object]:
    return {"key": key, "basis": basis, "accounts": dict(accounts)}


@cache
def _seller_risk() -> frozenset[str]:
    """plan.toml's [trust] seller_risk: the flags that make a listing a risky buy."""
    return load_plan_rules().seller_risk


def _row(
    stale: Stale, landing: Landing, pricer: Pricer, digests: MarketDigests, basis: str
) -> dict[str, Any]:
    """The ``priced`` row of one listing."""
    row, observation, changed = stale
    found: dict[str, Any] = {
        "listing_id": row.listing_id,
        "observation_id": observation,
        "changed_at": changed,
        "basis": basis,
        "digest": "",
        "valid_until": None,
        "account": None,
        "outcome": landing.outcome,
        "sku": row.sku,
        "unit_price": None,
        "asking": False,
        "landed": None,
        "excluded": False,
        "inputs": None,
        "auction": row.buying_format == AUCTION,
        "reading": None,
        "seller": row.seller,
        "seller_feedback": row.seller_feedback,
        "quantity": row.quantity,
    }
    if landing.part_price is not None:
        found["unit_price"] = str(landing.part_price)
    if landing.outcome in ("priced", "no_fx_rate"):
        # Time moves a running auction's price to the next step, and ends it: an unpriced
        # one too (it is then counted as ended, not as missing a rate).
        found["valid_until"] = priced_until(row, pricer.now)
    if landing.landed is None:
        return found
    p = pricer.price(row, landing.landed)
    auction = row.buying_format == AUCTION
    reading = pricer.signals.reading_of(row)
    heatsink = module_heatsink(row.title, (f.code for f in p.flags), said=reading.heatsink)
    found |= {
        "reading": reading.to_text(),
        "digest": digests.of(str(row.sku), auction=auction, includes=bool(row.includes)),
        "account": pricer.accounts.get(row.seller or ""),
        "unit_price": str(landing.landed.unit_price),
        "asking": asks(row),
        "landed": str(p.landed),
        "excluded": p.excluded,
        "inputs": pack_inputs(
            landed=float(p.landed),
            chassis=float(p.chassis),
            discount=p.discount,
            evidence=p.market.weight if p.market else 0.0,
            penalty=p.penalty,
            checked=p.check is not None,
            software=any(f.code == "software_support" for f in p.flags),
            excluded=p.excluded,
            auction=auction,
            risky=any(f.code in _seller_risk() for f in p.flags),
            units=row.quantity,
            kind=plan_kind(p.sku, heatsink, row.includes, row.config),
        ),
    }
    return found


def _over_max_price(
    session: Session, columns: PricedColumns, max_price: Decimal | None
) -> np.ndarray[Any, np.dtype[np.bool_]] | None:
    """Which listings cost more than ``max_price``: by the float column, and exactly (from the
    kept Decimal) where the float cannot tell."""
    if max_price is None:
        return None
    bound = float(max_price)
    over = columns.landed > bound
    close = np.flatnonzero(columns.landed == bound)
    if len(close):
        exact = load_exact_landed(session, columns.listing_id[close].tolist())
        for index in close:
            over[index] = exact[int(columns.listing_id[index])] > max_price
    return over


def _price_again(
    session: Session, refreshed: Refreshed, listing_ids: set[int], *, every: int
) -> list[Priced]:
    """These listings priced again from their rows (the shortlist's: few, unless a caller asks
    for most of the ``every`` priced listings: then they are read in one pass)."""
    if len(listing_ids) > MOST * every:
        rows = [row for row in load_active_rows(session) if row.listing_id in listing_ids]
    else:
        rows = [row for row, _, _ in load_rows(session, listing_ids, basis=refreshed.basis)]
    pricer = refreshed.pricer
    found = []
    for row in rows:
        landing = land_row(row, pricer.skus, pricer.settings, pricer.now)
        if landing.landed is not None:
            found.append(pricer.price(row, landing.landed))
    return found


def _cheapest_parts(
    session: Session, sku: str | None, count: int, basis: str
) -> list[tuple[Decimal, ActiveRow]]:
    """The ``count`` cheapest for-parts and accessory listings (of ``sku``), with their price."""
    if count <= 0:
        return []
    cheapest = heapq.nsmallest(count, load_part_prices(session, count, sku))
    listings = [i for _, i in cheapest]
    rows = {row.listing_id: row for row, _, _ in load_rows(session, listings, basis=basis)}
    return [(price, rows[i]) for price, i in cheapest if i in rows]
