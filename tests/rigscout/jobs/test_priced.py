"""Incremental ranking gives the answer a full recompute gives, on SQLite and PostgreSQL.

A randomized store (the demo's titles at random prices, formats, sellers, places, with sales)
is ranked from its kept priced rows and in full; then it is edited at random (new prices, new
listings, sales that move the markets, a seller's feedback, time passing over auctions, an
ignored seller, other FX rates) and the two are compared again after each edit, for the
views a buyer reads: the deals, the flagged, the parts, what was left out, the markets.
"""

from __future__ import annotations

import csv
import random
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, cast

import pytest
from sqlalchemy import create_engine, event, func, select, update
from sqlalchemy.orm import Session

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sqlalchemy import Engine

from alerts.rules import RuleFacts, Trust, match_rules
from alerts.settings import AlertRule
from core.models import BuyingFormat, Category, Kind, Listing, Normalized
from core.settings import RankSettings
from db.engine import open_engine
from db.ignores import save_ignore
from db.migrate import upgrade
from db.models import ListingRow, PricedRow, SaleRow
from db.store import save_ended, save_listings
from ranking.catalog import load_catalog
from ranking.plan.records import Offer, Plan, Target
from ranking.plan.rules import load_plan_rules
from ranking.plan.search import plan_rigs, planner_view
from ranking.records import RankFilters, Ranking
from ranking.titles import user_skus
from ranking.titles.normalize import default_normalizer
from rigscout.config.load import load_settings
from rigscout.jobs.deals import rank_stored_many
from rigscout.jobs.pipeline import alert_filters
from rigscout.jobs.plans import build_offers, load_bom_prices
from tests.rigscout.jobs.test_demo_shortlist import AS_OF, demo_top_15
from tests.support.cli import write_config

DEMO = Path(__file__).resolve().parents[3] / "fixtures" / "demo" / "listings.tsv"
NOW = datetime(2026, 11, 25, 9, 0, tzinfo=UTC)
SETTINGS = RankSettings(
    fx_rates={"USD": Decimal(1), "EUR": Decimal("1.08"), "GBP": Decimal("1.27")},
    min_seller_feedback=10,
)
FILTERS = (
    RankFilters(limit=25),
    RankFilters(profile="training", limit=10),
    RankFilters(profile="capacity", category="server", limit=8),
    RankFilters(buying="auction", limit=10),
    RankFilters(max_price=Decimal("150"), limit=10),
    RankFilters(sku="nvidia-tesla-v100-sxm2-16gb", limit=5),
    RankFilters(limit=100_000, explain=False),  # the planner's view: every listing
)
V100_16, V100_32 = "nvidia-tesla-v100-sxm2-16gb", "nvidia-tesla-v100-sxm2-32gb"
PLACES = ("United States", "United States", "Canada", "Germany", "Hong Kong", "China")


@cache
def titles() -> tuple[tuple[str, Decimal, Normalized], ...]:
    """Each demo title with its price and what the normalizer makes of it."""
    normalizer = default_normalizer()
    with DEMO.open(encoding="utf-8") as f:
        rows = {r["title"]: Decimal(r["price"]) for r in csv.DictReader(f, delimiter="\t")}
    return tuple((t, price, normalizer.normalize(t)) for t, price in sorted(rows.items()))


class Market:
    """A random store and the edits a collector makes to it."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.next_id = 1
        self.active: dict[str, tuple[Listing, Normalized]] = {}

    def listing(self, now: datetime, *, sold: bool = False) -> tuple[Listing, Normalized]:
        rng = self.rng
        title, price, norm = rng.choice(titles())
        item_id = f"9{self.next_id:08d}"
        self.next_id += 1
        auction = not sold and rng.random() < 0.3
        low_feedback = rng.random() < 0.15
        seller = f"new_{rng.randrange(3)}" if low_feedback else f"seller_{rng.randrange(40)}"
        currency = rng.choice(("USD", "USD", "USD", "EUR", "GBP", "JPY"))  # JPY: no rate
        item = Listing(
            item_id=item_id,
            title=title,
            url=f"https://www.ebay.com/itm/{item_id}",
            price=(price * Decimal(rng.uniform(0.4, 1.5))).quantize(Decimal("0.01")),
            currency=currency,
            buying_format=BuyingFormat.AUCTION if auction else BuyingFormat.BUY_IT_NOW,
            shipping=rng.choice((None, Decimal(0), Decimal("25.00"))),
            bids=rng.randrange(12) if auction else None,
            end_time=now + timedelta(minutes=rng.randrange(10, 4 * 24 * 60)) if auction else None,
            sold_date=(now - timedelta(days=rng.randrange(0, 80))).date() if sold else None,
            best_offer_accepted=sold and rng.random() < 0.2,
            seller=seller,
            seller_feedback=rng.randrange(0, 9) if low_feedback else rng.randrange(50, 90_000),
            seller_positive_pct=Decimal("99.1"),
            location=rng.choice(PLACES),
        )
        return item, norm

    def seed(self, session: Session, now: datetime, *, active: int, sold: int) -> None:
        items = [self.listing(now) for _ in range(active)]
        items += [self.listing(now, sold=True) for _ in range(sold)]
        self.save(session, items, now)

    def save(
        self, session: Session, items: list[tuple[Listing, Normalized]], now: datetime
    ) -> None:
        save_listings(session, items, search="random", run_id=None, now=now)
        session.commit()
        for item, norm in items:
            if item.sold_date is None:
                self.active[item.item_id] = (item, norm)
            else:
                self.active.pop(item.item_id, None)

    def edit(self, session: Session, now: datetime, kind: str | None = None) -> str:
        """One random edit (or one of ``kind``), as a run or the user would make it; says
        which."""
        rng = self.rng
        ids = sorted(self.active)
        kind = kind or rng.choice(
            ("prices", "new", "sold", "ended", "feedback", "seen", "ignore", "elsewhere")
        )
        if kind == "prices":
            picked = rng.sample(ids, min(15, len(ids)))
            self.save(
                session,
                [
                    (
                        replace(self.active[i][0], price=self.active[i][0].price + 7),
                        self.active[i][1],
                    )
                    for i in picked
                ],
                now,
            )
        elif kind == "new":
            self.save(session, [self.listing(now) for _ in range(20)], now)
        elif kind == "sold":  # a sold page: sales of the days before move the markets
            picked = rng.sample(ids, min(12, len(ids)))
            sold = [
                (
                    replace(
                        self.active[i][0],
                        sold_date=now.date() - timedelta(days=1 + rng.randrange(3)),
                        buying_format=BuyingFormat.BUY_IT_NOW,
                    ),
                    self.active[i][1],
                )
                for i in picked
            ]
            self.save(session, sold + [self.listing(now, sold=True) for _ in range(10)], now)
        elif kind == "feedback":  # a new account's listings pass the threshold together
            seller = f"new_{rng.randrange(3)}"
            items = [
                (replace(item, seller_feedback=25), norm)
                for item, norm in self.active.values()
                if item.seller == seller
            ]
            self.save(session, items, now)
        elif kind == "elsewhere":  # a search on another marketplace meets the same items
            picked = rng.sample(ids, min(8, len(ids)))
            self.save(
                session,
                [
                    (
                        replace(self.active[i][0], marketplace="EBAY_DE", currency="EUR"),
                        self.active[i][1],
                    )
                    for i in picked
                ],
                now,
            )
        elif kind == "ended":  # ended auctions closed, those with bids presumed sold
            save_ended(session, now=now)
            session.commit()
            for item_id, (item, _) in list(self.active.items()):
                if item.end_time is not None and item.end_time < now:
                    del self.active[item_id]  # gone from the searches
        elif kind == "seen":  # a run that sees listings unchanged
            self.save(session, [self.active[i] for i in rng.sample(ids, min(30, len(ids)))], now)
        else:
            save_ignore(session, "seller", f"seller_{rng.randrange(40)}", now=now)
            session.commit()
        return kind


def both(
    session: Session, now: datetime, settings: RankSettings = SETTINGS
) -> tuple[object, object]:
    """The rankings from the kept rows (checked to be read), and in full."""
    skus = {s.sku: s for s in load_catalog()}
    session.commit()  # nothing under way: the kept rows are used and kept
    with recorded(session.get_bind()) as statements:
        kept = rank_stored_many(session, skus, settings, now=now, filters=FILTERS)
    assert read_kept(statements), "the kept rows were not read"
    full = rank_stored_many(session, skus, settings, now=now, filters=FILTERS, kept=False)
    return kept, full


PLAN_TARGETS = (
    Target(vram_gb=64, limit=12),
    Target(vram_gb=96, profile="training", max_auctions=1, limit=12),
    Target(vram_gb=48, form_factor="pcie", budget=Decimal(2500)),
)


def plans_both(session: Session, now: datetime) -> tuple[object, object]:
    """The plans from the kept rows' planner view (checked to be read), and from every listing."""
    skus = {s.sku: s for s in load_catalog()}
    rules = load_plan_rules()
    session.commit()
    parts = load_bom_prices(session, SETTINGS, now)
    session.commit()
    view = planner_view(skus, rules, parts)
    with recorded(session.get_bind()) as statements:
        kept = build_offers(session, SETTINGS, "llm-inference", now, skus=skus, planner=view)
    assert read_kept(statements), "the kept rows were not read"
    every = build_offers(session, SETTINGS, "llm-inference", now, skus=skus, kept=False)
    assert len(kept) <= len(every)

    def plans(offers: list[Offer]) -> list[Plan]:
        return [p for t in PLAN_TARGETS for p in plan_rigs(offers, skus, rules, t, parts=parts)]

    return plans(kept), plans(every)


@contextmanager
def recorded(engine: Engine) -> Iterator[list[str]]:
    """The SQL statements run on ``engine`` in the block."""
    statements: list[str] = []

    def record(conn, cursor, statement, *args) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", record)


def read_kept(statements: list[str]) -> bool:
    """The kept rows were read (a full ranking reads none; on PostgreSQL the score columns are
    fetched past SQLAlchemy, in the binary format, so their statement is not seen here)."""
    return any("FROM priced" in s or "score_columns" in s for s in statements)


def priced_rows(session: Session) -> int:
    return session.scalar(select(func.count()).select_from(PricedRow)) or 0


@pytest.mark.parametrize("seed", [1, 2])
def test_the_kept_ranking_is_the_full_ranking_after_random_edits(engine, seed):
    market = Market(seed)
    with Session(engine) as session:
        market.seed(session, NOW - timedelta(days=1), active=260, sold=200)
        now = NOW
        kept, full = both(session, now)
        assert kept == full
        assert kept[0].deals and kept[-1].deals and kept[2].deals  # the views are not empty
        for step in range(8):
            now += timedelta(minutes=market.rng.randrange(5, 600))  # auctions move, some end
            edit = market.edit(session, now)
            kept, full = both(session, now)
            assert kept == full, f"after edit {step} ({edit})"
            now += timedelta(minutes=market.rng.randrange(1, 90))  # no edit: kept markets
            kept, full = both(session, now)
            assert kept == full, f"{step}: later, with nothing saved"
            kept_plans, every_plans = plans_both(session, now)
            assert kept_plans == every_plans != [], f"{step}: the plans"
        settings = replace(SETTINGS, fx_rates={**SETTINGS.fx_rates, "EUR": Decimal("1.15")})
        kept, full = both(session, now, settings)
        assert kept == full, "after the FX rates changed"


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_the_markets_kept_from_the_sales_follow_each_sold_page_the_same_day(engine, seed):
    """The sales' part of the markets is kept while no sale it reads changes: the runs of the
    same day that save only running listings, or close auctions that ended today as presumed
    sold (a fast-lane pass: today's sales wait for tomorrow's markets), read no sale but the
    servers' (whose chassis are valued against today's card markets); sales of earlier days
    only added (a sold page of new sales, auctions that ended yesterday closed today) are read
    with their SKUs' other sales alone; a sale replaced (a sold page's, of an auction presumed
    sold) makes every sale read again."""
    market = Market(seed)
    with Session(engine) as session:
        market.seed(session, NOW - timedelta(days=1), active=200, sold=150)
        now = NOW
        skus = {s.sku: s for s in load_catalog()}
        rank_stored_many(session, skus, SETTINGS, now=now, filters=FILTERS)
        presumed = 0
        edits = ("prices", "ended", "sold", "new", "sold", "ended", "seen", "prices")
        for step, kind in enumerate(edits):
            # the same day throughout; hours before closing ended auctions, for some to end
            now += timedelta(hours=6) if kind == "ended" else timedelta(minutes=20)
            newest, change, count = session.execute(
                select(
                    func.max(SaleRow.id), func.max(SaleRow.change_seq), func.count()
                ).select_from(SaleRow)
            ).one()
            market.edit(session, now, kind)
            with recorded(engine) as statements:
                kept = rank_stored_many(session, skus, SETTINGS, now=now, filters=FILTERS)
            full = rank_stored_many(session, skus, SETTINGS, now=now, filters=FILTERS, kept=False)
            assert kept == full, f"after edit {step} ({kind})"
            if kind == "sold":
                continue  # sales of earlier days: the auction model learns from every sale
            changed = select(func.count()).where(SaleRow.change_seq > change)
            replaced = session.scalar(changed.where(SaleRow.id <= newest))
            # auctions that ended yesterday, closed today: the auction model learns from them
            earlier = session.scalar(changed.where(SaleRow.sold_date < now.date()))
            added = (session.scalar(select(func.count()).select_from(SaleRow)) or 0) - count
            # the window's sales read (not the sales' marks, dated before a day, nor some SKUs')
            read = [s for s in statements if "sales.sold_date >=" in s]
            every_sale = [s for s in read if "listings.sku IN" not in s]
            assert bool(every_sale) == bool(replaced or earlier), (kind, replaced, earlier)
            if added and not (replaced or earlier):
                presumed += added  # ended today: no market reads them, nor their SKUs' sales
                assert len(read) <= 1, read  # the servers' sales, where their chassis moved
        assert NOW.date() == now.date()
        assert presumed > 0, "no auction ended today: the fast lane's case was not tried"


def test_an_item_seen_on_two_marketplaces_is_ranked_once_as_last_seen(engine):
    market = Market(7)
    skus = {s.sku: s for s in load_catalog()}
    every = RankFilters(limit=10_000, explain=False, kept_out=False)
    with Session(engine) as session:
        market.seed(session, NOW - timedelta(days=1), active=60, sold=80)
        (before,) = rank_stored_many(session, skus, SETTINGS, now=NOW, filters=[every])
        deal = before.deals[0]
        item, norm = market.active[deal.item_id]
        german = replace(item, marketplace="EBAY_DE", currency="EUR", url=item.url + "?de")
        market.save(session, [(german, norm)], NOW)
        rows = select(func.count()).where(ListingRow.item_id == item.item_id)
        assert session.scalar(rows) == 2  # each marketplace's row keeps its own history
        kept, full = both(session, NOW)
        assert kept == full
        (after,) = rank_stored_many(session, skus, SETTINGS, now=NOW, filters=[every])
        # The first row seen again as it was (no new price: only its sighting is saved)
        # takes the item's place back; the kept rows follow, though nothing it says changed.
        later = NOW + timedelta(minutes=30)
        market.save(session, [(item, norm)], later)
        kept, full = both(session, later)
        assert kept == full
        (again,) = rank_stored_many(session, skus, SETTINGS, now=later, filters=[every])
    seen = [d for d in after.deals if d.item_id == item.item_id]
    assert [d.marketplace for d in seen] == ["EBAY_DE"]  # once, as last seen
    assert len(after.deals) == len(before.deals)
    assert [d.marketplace for d in again.deals if d.item_id == item.item_id] == ["EBAY_US"]


def test_a_second_ranking_prices_only_what_changed(engine):
    market = Market(3)
    with Session(engine) as session:
        market.seed(session, NOW - timedelta(days=1), active=120, sold=80)
        skus = {s.sku: s for s in load_catalog()}
        rank_stored_many(session, skus, SETTINGS, now=NOW, filters=FILTERS[:1])
        first = {r.listing_id: r.observation_id for r in session.scalars(select(PricedRow))}
        matched = select(func.count()).where(
            ListingRow.sku.is_not(None), ListingRow.status == "active"
        )
        assert len(first) == session.scalar(matched) > 100  # every ranked listing priced, kept

        # seen again unchanged, an hour later: only auctions whose time bucket moved
        market.save(session, list(market.active.values()), NOW + timedelta(hours=1))
        session.execute(update(PricedRow).values(landed="marked"))  # mark the kept rows
        session.commit()
        with recorded(engine) as statements:
            later = NOW + timedelta(hours=1)
            rank_stored_many(session, skus, SETTINGS, now=later, filters=FILTERS[:1])
        assert read_kept(statements)  # ranked from the kept rows
        # the stale rows sought among the listings saved since the last ranking, by index
        stale = [s for s in statements if "priced.basis !=" in s]
        assert stale and all("saved_seq >" in s for s in stale), stale
        session.expire_all()
        again = {r.listing_id: r for r in session.scalars(select(PricedRow))}
        repriced = [r for r in again.values() if r.landed != "marked"]
        assert len(repriced) < 40, "a run that changed nothing must not price everything again"
        assert all(r.auction for r in repriced)


def test_with_nothing_saved_the_markets_are_read_back_not_computed_again(engine):
    market = Market(4)
    with Session(engine) as session:
        market.seed(session, NOW - timedelta(days=1), active=80, sold=60)
        skus = {s.sku: s for s in load_catalog()}
        first = rank_stored_many(session, skus, SETTINGS, now=NOW, filters=FILTERS[:2])
        with recorded(engine) as statements:
            later = NOW + timedelta(minutes=20)
            again = rank_stored_many(session, skus, SETTINGS, now=later, filters=FILTERS[:2])
        full = rank_stored_many(session, skus, SETTINGS, now=later, filters=FILTERS[:2], kept=False)

    assert again == full
    assert [r.markets for r in again] == [r.markets for r in first]
    assert not [s for s in statements if "sales.sold_date >" in s], "the sales were read again"


def test_a_store_that_cannot_be_written_is_ranked_in_full(tmp_path):
    path = tmp_path / "store.db"
    writable = create_engine(f"sqlite:///{path}")
    upgrade(writable)
    with Session(writable) as session:
        Market(5).seed(session, NOW - timedelta(days=1), active=60, sold=40)
        skus = {s.sku: s for s in load_catalog()}
        full = rank_stored_many(session, skus, SETTINGS, now=NOW, filters=FILTERS[:2], kept=False)
    writable.dispose()
    read_only = create_engine(f"sqlite:///file:{path}?mode=ro&uri=true")
    with Session(read_only) as session:
        ranked = rank_stored_many(session, skus, SETTINGS, now=NOW, filters=FILTERS[:2])
        assert session.scalar(select(func.count()).select_from(PricedRow)) == 0  # none kept
    assert ranked == full


def test_on_the_demo_the_kept_ranking_is_the_full_ranking(tmp_path):
    demo_top_15(tmp_path)  # the demo pages replayed (the run kept its priced listings)
    settings = load_settings(write_config(tmp_path, f"sqlite:///{tmp_path / 'demo.db'}"), {})
    engine = open_engine(settings.database_url)
    skus = user_skus()
    every_profile = [
        RankFilters(profile=name, limit=100_000, explain_top=40)
        for name in ("llm-inference", "training", "capacity")
    ]
    filters = [*every_profile, RankFilters(category="server", limit=20)]
    with Session(engine) as session:
        for when in (AS_OF, AS_OF + timedelta(hours=3), AS_OF + timedelta(days=1)):
            kept = rank_stored_many(session, skus, settings.rank, now=when, filters=filters)
            full = rank_stored_many(
                session, skus, settings.rank, now=when, filters=filters, kept=False
            )
            session.commit()
            assert kept == full, when
    engine.dispose()


def test_a_new_accounts_flag_goes_when_one_of_its_auctions_ends_with_nothing_saved(engine):
    # A seller with 3 feedback and 5 listings worth $5,500 (over [scam] stake_floor): flagged,
    # until the one auction among them ends ($4,400 left); nothing is saved in between, so
    # only time changes the flag.
    norm = default_normalizer().normalize("NVIDIA Tesla V100 SXM2 32GB GPU Accelerator")
    base = Listing(
        item_id="",
        title="NVIDIA Tesla V100 SXM2 32GB GPU Accelerator",
        url="",
        price=Decimal("1100.00"),
        currency="USD",
        buying_format=BuyingFormat.BUY_IT_NOW,
        shipping=Decimal(0),
        seller="fresh_seller",
        seller_feedback=3,
        seller_positive_pct=Decimal(100),
        location="United States",
    )
    items = [
        replace(base, item_id=f"77{i:04d}", url=f"https://www.ebay.com/itm/77{i:04d}")
        for i in range(5)
    ]
    items[0] = replace(
        items[0], buying_format=BuyingFormat.AUCTION, bids=3, end_time=NOW + timedelta(minutes=30)
    )
    skus = {s.sku: s for s in load_catalog()}
    filters = [RankFilters(limit=50, explain_top=50), RankFilters(limit=100_000, explain=False)]
    with Session(engine) as session:
        save_listings(session, [(i, norm) for i in items], search="s", run_id=None, now=NOW)
        session.commit()

        def ranked(when: datetime) -> tuple[Ranking, ...]:
            kept = rank_stored_many(session, skus, SETTINGS, now=when, filters=filters)
            full = rank_stored_many(session, skus, SETTINGS, now=when, filters=filters, kept=False)
            session.commit()
            assert kept == full
            return kept

        def flagged(rankings: tuple[Ranking, ...]) -> set[str]:
            views = [*rankings[0].deals, *rankings[0].flagged]
            return {
                d.item_id for d in views if any(f.code == "new_account_pattern" for f in d.flags)
            }

        before = ranked(NOW)
        after = ranked(NOW + timedelta(hours=1))

    assert flagged(before) == {i.item_id for i in items}
    assert flagged(after) == set()
    assert after[0].skipped["auction_ended"] == 1


def test_a_new_accounts_flag_goes_when_one_of_its_listings_is_closed_by_a_save(engine):
    # The same seller: 5 fixed-price listings worth $5,500, flagged; one of them (another
    # card, so no market the others read moves) ends and the run closes it (a save: it leaves
    # the ranked listings without being priced again), so the 4 left ($4,400) are under the
    # stake. Nothing else of the seller changed: the kept ranking must still count that seller
    # again, as the full ranking does.
    norm = default_normalizer().normalize("NVIDIA Tesla V100 SXM2 32GB GPU Accelerator")
    base = Listing(
        item_id="",
        title="NVIDIA Tesla V100 SXM2 32GB GPU Accelerator",
        url="",
        price=Decimal("1100.00"),
        currency="USD",
        buying_format=BuyingFormat.BUY_IT_NOW,
        shipping=Decimal(0),
        seller="fresh_seller",
        seller_feedback=3,
        seller_positive_pct=Decimal(100),
        location="United States",
        end_time=NOW + timedelta(days=20),
    )
    items = [
        replace(base, item_id=f"78{i:04d}", url=f"https://www.ebay.com/itm/78{i:04d}")
        for i in range(5)
    ]
    p100 = "NVIDIA Tesla P100 16GB PCIe GPU Accelerator"
    items[0] = replace(items[0], title=p100, end_time=NOW + timedelta(minutes=30))
    norms = [default_normalizer().normalize(p100), *[norm] * 4]
    skus = {s.sku: s for s in load_catalog()}
    filters = [RankFilters(limit=50, explain_top=50)]
    with Session(engine) as session:
        save_listings(
            session, list(zip(items, norms, strict=True)), search="s", run_id=None, now=NOW
        )
        session.commit()

        def flagged(when: datetime) -> set[str]:
            (kept,) = rank_stored_many(session, skus, SETTINGS, now=when, filters=filters)
            (full,) = rank_stored_many(
                session, skus, SETTINGS, now=when, filters=filters, kept=False
            )
            session.commit()
            assert kept == full
            views = [*kept.deals, *kept.flagged]
            return {
                d.item_id for d in views if any(f.code == "new_account_pattern" for f in d.flags)
            }

        before = flagged(NOW)
        # another seller's card saved (of a card no market of theirs reads): the seller's own
        # listings are not priced again, and its label holds (worth $5,500, 10 % over its stake)
        soon = NOW + timedelta(minutes=10)
        rtx = "NVIDIA GeForce RTX 3090 24GB Founders Edition"
        other = replace(items[1], item_id="790000", url="https://www.ebay.com/itm/790000")
        other = replace(other, title=rtx, seller="old_hand", seller_feedback=5_000)
        found = default_normalizer().normalize(rtx)
        save_listings(session, [(other, found)], search="s", run_id=None, now=soon)
        session.commit()
        meanwhile = flagged(soon)
        later = NOW + timedelta(hours=1)
        assert save_ended(session, now=later) == 1
        session.commit()
        after = flagged(later)
        # and no kept row still carries the label: the next ranking would sort by its penalty
        labelled = list(
            session.scalars(select(PricedRow.listing_id).where(PricedRow.account.is_not(None)))
        )

    assert before == meanwhile == {i.item_id for i in items}
    assert after == set()
    assert labelled == []


def test_a_seller_whose_record_drops_with_a_closed_listing_is_counted_again(engine):
    # Five cards at $1,100 from a 3-feedback seller, and one of another card saved when the
    # seller had 10: the record is 10, the stake $11,000, the $6,600 listed is not flagged.
    # The 10-feedback listing ends and is closed: its record drops to 3 (a $5,000 stake) and
    # the five left, $5,500, are flagged, though none of them changed.
    title = "NVIDIA Tesla V100 SXM2 32GB GPU Accelerator"
    p100 = "NVIDIA Tesla P100 16GB PCIe GPU Accelerator"
    base = Listing(
        item_id="",
        title=title,
        url="",
        price=Decimal("1100.00"),
        currency="USD",
        buying_format=BuyingFormat.BUY_IT_NOW,
        shipping=Decimal(0),
        seller="fresh_seller",
        seller_feedback=3,
        seller_positive_pct=Decimal(100),
        location="United States",
        end_time=NOW + timedelta(days=20),
    )
    items = [
        replace(base, item_id=f"80{i:04d}", url=f"https://www.ebay.com/itm/80{i:04d}")
        for i in range(6)
    ]
    items[0] = replace(
        items[0], title=p100, seller_feedback=10, end_time=NOW + timedelta(minutes=30)
    )
    normalize = default_normalizer().normalize
    skus = {s.sku: s for s in load_catalog()}
    filters = [RankFilters(limit=50, explain_top=50)]
    with Session(engine) as session:
        save_listings(
            session, [(i, normalize(i.title)) for i in items], search="s", run_id=None, now=NOW
        )
        session.commit()

        def flagged(when: datetime) -> set[str]:
            (kept,) = rank_stored_many(session, skus, SETTINGS, now=when, filters=filters)
            (full,) = rank_stored_many(
                session, skus, SETTINGS, now=when, filters=filters, kept=False
            )
            session.commit()
            assert kept == full
            views = [*kept.deals, *kept.flagged]
            return {
                d.item_id for d in views if any(f.code == "new_account_pattern" for f in d.flags)
            }

        before = flagged(NOW)
        later = NOW + timedelta(hours=1)
        assert save_ended(session, now=later) == 1
        session.commit()
        after = flagged(later)

    assert before == set()
    assert after == {i.item_id for i in items[1:]}


def test_a_seller_seen_again_with_a_record_that_vouches_is_counted_again(engine):
    # Five cards at $1,100 from a 3-feedback seller: $5,500 listed, over the $5,000 stake,
    # flagged. A run sees one of them again from the seller now at 5,000 feedback: that
    # listing no longer counts (a record that vouches), the four left ($4,400) are under the
    # stake. The seller is no longer under 1,000 feedback on the listing that changed: the
    # kept ranking must still count the seller again, from what the listing was priced as.
    title = "NVIDIA Tesla V100 SXM2 32GB GPU Accelerator"
    base = Listing(
        item_id="",
        title=title,
        url="",
        price=Decimal("1100.00"),
        currency="USD",
        buying_format=BuyingFormat.BUY_IT_NOW,
        shipping=Decimal(0),
        seller="fresh_seller",
        seller_feedback=3,
        seller_positive_pct=Decimal(100),
        location="United States",
        end_time=NOW + timedelta(days=20),
    )
    items = [
        replace(base, item_id=f"81{i:04d}", url=f"https://www.ebay.com/itm/81{i:04d}")
        for i in range(5)
    ]
    norm = default_normalizer().normalize(title)
    skus = {s.sku: s for s in load_catalog()}
    filters = [RankFilters(limit=50, explain_top=50)]
    with Session(engine) as session:
        save_listings(session, [(i, norm) for i in items], search="s", run_id=None, now=NOW)
        session.commit()

        def flagged(when: datetime) -> set[str]:
            (kept,) = rank_stored_many(session, skus, SETTINGS, now=when, filters=filters)
            (full,) = rank_stored_many(
                session, skus, SETTINGS, now=when, filters=filters, kept=False
            )
            session.commit()
            assert kept == full
            views = [*kept.deals, *kept.flagged]
            return {
                d.item_id for d in views if any(f.code == "new_account_pattern" for f in d.flags)
            }

        before = flagged(NOW)
        later = NOW + timedelta(hours=1)
        vouched = replace(items[0], seller_feedback=5_000)
        save_listings(session, [(vouched, norm)], search="s", run_id=None, now=later)
        session.commit()
        after = flagged(later)

    assert before == {i.item_id for i in items}
    assert after == set()


ALERT_RULES = (
    AlertRule("cheap-v100", ("x",), skus=(V100_16, V100_32), max_price=Decimal(250),
              min_discount=0.15),
    AlertRule("great", ("x",), min_score=60, max_per_run=5),
    AlertRule("under-market", ("x",), min_discount=0.3),
    AlertRule("servers", ("x",), category="server", max_price=Decimal(1500)),
    AlertRule("bid", ("x",), skus=(V100_16,), ending_within=timedelta(hours=20)),
    AlertRule("other-profile", ("x",), profile="training"),
)  # fmt: skip


def alerts_both(session: Session, now: datetime) -> tuple[list[object], list[object], int, int]:
    """The run's alert matches from the kept rows (only what the rules may match priced) and
    from every listing, and how many deals each ranking priced."""
    skus = {s.sku: s for s in load_catalog()}
    filters = alert_filters(ALERT_RULES, None)
    trust = Trust.of(load_plan_rules())
    found = []
    for kept in (True, False):
        session.commit()
        (ranking,) = rank_stored_many(
            session, skus, SETTINGS, now=now, filters=[filters], kept=kept
        )
        matches = match_rules(ranking.deals, ALERT_RULES, now=now, facts=RuleFacts(), trust=trust)
        found.append(([(m.deal, m.rule.name) for m in matches], len(ranking.deals)))
    (kept_matches, kept_n), (full_matches, full_n) = found
    return kept_matches, full_matches, kept_n, full_n


@pytest.mark.parametrize("seed", [3, 4])
def test_the_alert_rules_match_the_same_deals_when_only_their_candidates_are_priced(engine, seed):
    market = Market(seed)
    with Session(engine) as session:
        market.seed(session, NOW - timedelta(days=1), active=260, sold=200)
        now = NOW
        for step in range(6):
            kept, full, kept_n, full_n = alerts_both(session, now)
            assert kept == full, f"step {step}"
            assert kept_n < full_n  # fewer deals priced and explained than every listing
            assert {rule for _, rule in kept} >= {"great", "servers"}  # the rules do match
            now += timedelta(minutes=market.rng.randrange(5, 600))
            market.edit(session, now)


def test_a_listing_priced_again_for_its_market_is_not_read_again_until_its_title_changes(engine):
    market = Market(5)
    skus = {s.sku: s for s in load_catalog()}
    every = [RankFilters(limit=10_000, explain=False)]

    def priced(now: datetime) -> PricedRow:
        rank_stored_many(session, skus, SETTINGS, now=now, filters=every)
        session.expire_all()
        row = session.get(PricedRow, listing_id)
        assert row is not None
        return row

    with Session(engine) as session:
        market.seed(session, NOW - timedelta(days=1), active=80, sold=120)
        (ranking,) = rank_stored_many(session, skus, SETTINGS, now=NOW, filters=every)
        deal = next(d for d in ranking.deals if d.buying_format == BuyingFormat.BUY_IT_NOW)
        listing_id = deal.listing_id
        item, norm = market.active[deal.item_id]
        first = session.get(PricedRow, listing_id)
        assert first is not None and first.reading is not None and not first.excluded
        digest, reading = first.digest, first.reading
        # What the title says is kept: a reading it does not hold stands in for it...
        session.execute(
            update(PricedRow)
            .where(PricedRow.listing_id == listing_id)
            .values(reading="for_parts|for_parts|unknown")
        )
        session.commit()
        # ...when a sold page moves the listing's market (more sales of its SKU)...
        yesterday = NOW.date() - timedelta(days=1)
        sold = [
            (replace(item, item_id=f"8{k:08d}", price=item.price - k, sold_date=yesterday), norm)
            for k in range(6)
        ]
        market.save(session, sold, NOW + timedelta(hours=1))
        again = priced(NOW + timedelta(hours=1))
        assert again.digest != digest  # priced again against the moved market
        assert again.excluded and again.reading == "for_parts|for_parts|unknown"  # not read again
        # ...until the listing itself changes: then its title is read again.
        renamed = replace(item, title=item.title + " tested")
        market.save(session, [(renamed, norm)], NOW + timedelta(hours=2))
        fresh = priced(NOW + timedelta(hours=2))
        assert not fresh.excluded and fresh.reading == reading


def test_a_card_priced_like_its_smaller_sibling_follows_that_sibling_s_market(engine):
    """A V100 32GB at a 16GB's price is a mislabelled capacity while the 16GB's market says
    so: when the 16GB's sales move away from that price, the kept 32GB listing says it too,
    though its own market did not move."""
    small, large = "nvidia-tesla-v100-sxm2-16gb", "nvidia-tesla-v100-sxm2-32gb"
    counter = iter(range(10**6))

    def item(sku: str, price: int, *, sold: int | None = None) -> tuple[Listing, Normalized]:
        item_id = f"77{next(counter):06d}"
        listing = Listing(
            item_id=item_id,
            title=f"Tesla V100 SXM2 {sku[-4:].upper()} {item_id}",
            url=f"https://www.ebay.com/itm/{item_id}",
            price=Decimal(price),
            currency="USD",
            buying_format=BuyingFormat.BUY_IT_NOW,
            shipping=Decimal(0),
            sold_date=None if sold is None else (NOW - timedelta(days=sold)).date(),
            seller="seller_1",
            seller_feedback=5_000,
            seller_positive_pct=Decimal("99.5"),
            location="United States",
        )
        return listing, Normalized(listing.title, sku, Category.GPU, Kind.ITEM, 1, (), 0.95)

    with Session(engine) as session:
        seeded = [item(small, 100 + i, sold=1 + i) for i in range(6)]
        seeded += [item(large, 300 + i, sold=1 + i) for i in range(6)]
        seeded.append(item(large, 110))  # far under the 32GB's $300, the 16GB's price
        save_listings(session, seeded, search="v100", run_id=None, now=NOW)
        kept, full = both(session, NOW)
        assert kept == full
        assert "fits the NVIDIA Tesla V100 SXM2 16GB" in said_of_110(kept)
        later = NOW + timedelta(minutes=30)
        dear = [item(small, 400 + i, sold=1) for i in range(12)]  # the 16GB now sells dear
        save_listings(session, dear, search="v100", run_id=None, now=later)
        kept, full = both(session, later)
        assert kept == full
        assert "fits the NVIDIA Tesla V100 SXM2 16GB" not in said_of_110(kept)


def said_of_110(rankings: object) -> str:
    """Every flag said of the $110 listing, in any view."""
    return " | ".join(
        f.label
        for r in cast("tuple[Ranking, ...]", rankings)
        for d in (*r.deals, *r.flagged)
        if d.landed_unit_price == 110
        for f in d.flags
    )
