"""db/auction_rows: the auctions rigscout watched to their end, on SQLite and PostgreSQL.

The listings go in through the store's own save path (running sightings, then the sold page or
the end passing), so the loader reads exactly what a real run leaves behind.
"""

from __future__ import annotations

import random
from datetime import timedelta
from decimal import Decimal

import pytest
from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from core.models import BuyingFormat, Category, Included, Kind, Listing, Normalized
from core.settings import RankSettings
from db.auction_rows import (
    load_fit_marks,
    load_fit_unchanged,
    load_sales_before,
    load_watched_auctions,
)
from db.models import KeyValueRow, ListingRow, SaleRow
from db.state import load_state, save_state
from db.store import save_ended, save_listings
from ranking.market.auction import model_to_json, predict_final
from ranking.market.auction_watch import BidSeen
from ranking.rows import SoldRow
from ranking.titles import user_skus
from rigscout.jobs.deals import MARKETS_STATE, MODEL_STATE, current_auction_model, rank_stored

V100 = "nvidia-tesla-v100-sxm2-16gb"
P40 = "nvidia-tesla-p40"
HOUR = timedelta(hours=1)


def auction(item_id, price, bids, end, *, sold=None, buying=BuyingFormat.AUCTION):
    return Listing(
        item_id=item_id,
        title=f"Tesla V100 SXM2 16GB {item_id}",
        url=f"https://www.ebay.com/itm/{item_id}",
        price=Decimal(price),
        currency="USD",
        buying_format=buying,
        shipping=Decimal("12.50"),
        bids=bids,
        end_time=None if sold else end,
        sold_date=sold,
    )


def norm(sku=V100, kind=Kind.ITEM, includes=()):
    category = Category.SERVER if includes else Category.GPU
    return Normalized("t", sku, category, kind, 1, includes, 0.9)


def see(session, when, *listings, normalized=None):
    items = [(listing, normalized or norm()) for listing in listings]
    save_listings(session, items, search="v100", run_id=None, now=when)
    session.flush()


def test_an_auction_seen_running_then_sold_comes_back_with_its_sightings(session, now):
    end = now - 2 * HOUR
    see(session, end - 48 * HOUR, auction("101", "80", 2, end))
    see(session, end - 6 * HOUR, auction("101", "120", 7, end))
    see(session, now, auction("101", "150", 11, end, sold=end.date()))  # the sold page

    [watched] = load_watched_auctions(session, since=now - timedelta(days=365))

    assert watched.end_time == end
    assert watched.final == SoldRow(
        V100, 1, Decimal("150.00"), "USD", end.date(), Decimal("12.50"), False, "sold_page"
    )
    assert watched.seen == (
        BidSeen(end - 48 * HOUR, Decimal("80.00"), Decimal("12.50"), 2),
        BidSeen(end - 6 * HOUR, Decimal("120.00"), Decimal("12.50"), 7),
    )  # the sold page's own observation is the end, not a sighting


def test_an_auction_presumed_sold_at_its_last_bid_counts_too(session, now):
    end = now - HOUR
    see(session, end - 30 * HOUR, auction("102", "90", 3, end))
    see(session, end - 2 * HOUR, auction("102", "110", 5, end))
    save_ended(session, now=now)

    [watched] = load_watched_auctions(session, since=now - timedelta(days=365))

    assert (watched.final.price, watched.final.source) == (Decimal("110.00"), "presumed")
    assert [s.price for s in watched.seen] == [Decimal("90.00"), Decimal("110.00")]


def test_only_finished_auctions_of_single_catalog_items_in_the_year(session, now):
    end = now - HOUR
    sold = end.date()
    see(session, end - 5 * HOUR, auction("201", "100", 4, now + 5 * HOUR))  # still running
    see(session, now, auction("202", "150", None, None, sold=sold, buying=BuyingFormat.BUY_IT_NOW))
    old_end = now - timedelta(days=400)
    see(session, old_end - HOUR, auction("203", "70", 2, old_end))  # ended over a year ago
    see(session, now, auction("203", "75", 3, old_end, sold=old_end.date()))
    see(session, now, auction("204", "40", 3, end, sold=sold), normalized=norm(kind=Kind.FOR_PARTS))
    see(session, now, auction("205", "40", 3, end, sold=sold), normalized=norm(sku=None))
    with_gpus = norm(sku="supermicro-sys-4028gr-trt", includes=(Included(P40, 4),))
    see(session, now, auction("206", "900", 3, end, sold=sold), normalized=with_gpus)
    see(session, end - HOUR, auction("207", "60", 1, end))
    see(session, now, auction("207", "66", 2, end, sold=sold))  # the one that counts

    watched = load_watched_auctions(session, since=now - timedelta(days=365))

    assert [w.final.price for w in watched] == [Decimal("66.00")]


def test_an_auction_only_ever_seen_on_a_sold_page_is_left_out(session, now):
    end = now - HOUR
    see(session, end - HOUR, auction("301", "60", 1, end))
    see(session, now, auction("301", "61", 2, end, sold=end.date()))
    see(session, now, auction("302", "80", 4, end, sold=end.date()))  # no end time, no sighting

    watched = load_watched_auctions(session, since=now - timedelta(days=365))

    assert [(w.final.price, len(w.seen)) for w in watched] == [(Decimal("61.00"), 1)]


def test_the_model_reads_only_the_newest_watched_auctions_when_told(session, now):
    for i, days in enumerate((30, 3, 10)):  # ended 30, 3 and 10 days ago
        end = now - timedelta(days=days)
        see(session, end - HOUR, auction(f"50{i}", "60", 1, end))
        see(session, now, auction(f"50{i}", str(70 + i), 2, end, sold=end.date()))
    since = now - timedelta(days=365)

    newest = load_watched_auctions(session, since=since, newest=2)

    assert sorted(w.final.price for w in newest) == [Decimal("71.00"), Decimal("72.00")]
    assert len(load_watched_auctions(session, since=since)) == 3


def test_the_ranking_predicts_with_what_the_watched_auctions_taught(session, now):
    # 25 V100 auctions that each rose from $100 an hour before the end to $150.
    for i in range(25):
        end = now - timedelta(days=1 + i % 20)
        see(session, end - HOUR, auction(f"4{i:02d}", "100", 4, end))
        see(session, now, auction(f"4{i:02d}", "150", 9, end, sold=end.date()))
    see(session, now, auction("499", "100", 4, now + HOUR))  # running, an hour left
    prior = predict_final(
        current_bid=Decimal("112.50"), bids=4, time_left=HOUR, market=Decimal("162.50")
    )

    ranking = rank_stored(session, user_skus(), RankSettings(), now=now)

    [deal] = [d for d in ranking.deals if d.price_basis == "predicted"]
    assert deal.current_bid == Decimal("112.50")
    assert deal.landed_unit_price > prior.mid + 10  # learned: these auctions rise late
    assert deal.landed_unit_price <= Decimal("162.50")


def fitted_at(engine):
    """When the auction model was last fitted: a fit (only a fit) saves its slice markets."""
    with Session(engine) as session:
        row = session.get(KeyValueRow, MARKETS_STATE)
        return None if row is None else row.updated_at


def test_the_fitted_auction_model_is_kept_until_what_it_learns_from_changes(engine, now):
    for i in range(25):
        end = now - timedelta(days=1 + i % 20)
        with Session(engine) as session, session.begin():
            see(session, end - HOUR, auction(f"5{i:02d}", "100", 4, end))
            see(session, now, auction(f"5{i:02d}", "150", 9, end, sold=end.date()))
    settings = RankSettings()

    def model(when, rank=settings):
        with Session(engine) as session:
            return model_to_json(current_auction_model(session, rank, now=when))

    fitted = model(now)
    assert fitted_at(engine) == now
    assert model(now + HOUR) == fitted and fitted_at(engine) == now  # kept
    # A fast-lane pass: running auctions seen, new and again. Nothing the fit reads changed.
    with Session(engine) as session, session.begin():
        see(session, now + 2 * HOUR, auction("598", "90", 2, now + 9 * HOUR))
        see(session, now + 2 * HOUR, auction("599", "100", 4, now + 5 * HOUR))
    with Session(engine) as session, session.begin():
        see(session, now + 3 * HOUR, auction("599", "110", 5, now + 5 * HOUR))
    assert model(now + 3 * HOUR) == fitted and fitted_at(engine) == now
    # An auction sold today teaches tomorrow's model: today's predictions stay as they are.
    with Session(engine) as session, session.begin():
        see(session, now + 6 * HOUR, auction("599", "160", 8, now + 5 * HOUR, sold=now.date()))
    assert model(now + 6 * HOUR) == fitted and fitted_at(engine) == now
    # What the fit reads moves it: a sale of an earlier day (a sold page's), the same sale
    # moved to today, the next day, other settings.
    yesterday = now - timedelta(days=1)
    steps = [
        (now + 7 * HOUR, settings, ("597", yesterday.date())),
        (now + 8 * HOUR, settings, ("597", now.date())),
        (now + 30 * HOUR, settings, None),
        (now + 31 * HOUR, RankSettings(window_days=60), None),
    ]
    for when, rank, sale in steps:
        if sale is not None:
            item, day = sale
            with Session(engine) as session, session.begin():
                see(session, yesterday - HOUR, auction(item, "90", 3, yesterday))
                see(session, when, auction(item, "140", 7, yesterday, sold=day))
        before = fitted_at(engine)
        model(when, rank)
        assert fitted_at(engine) == when != before, (when, sale)


def test_a_fit_of_the_days_before_today_sees_every_change_to_their_sales(session, now):
    """``load_fit_unchanged`` with ``before``, the sales edited in place (an import, a repair):
    a sale dated today changes nothing the day's fit reads; one dated earlier, repriced, moved
    to today or moved from today, does."""
    today, yesterday = now.date(), (now - timedelta(days=1)).date()
    see(session, now - 30 * HOUR, auction("901", "90", 3, now - 26 * HOUR))
    see(session, now, auction("901", "150", 9, now - 26 * HOUR, sold=yesterday))
    see(session, now - 3 * HOUR, auction("902", "90", 3, now - HOUR))
    see(session, now, auction("902", "150", 9, now - HOUR, sold=today))
    session.commit()  # each edit below is rolled back to here
    marks, count = load_fit_marks(session), load_sales_before(session, today)
    assert (marks.sales[0], count) == (2, 1)

    def edit(item_id, **values):
        listing = select(ListingRow.id).where(ListingRow.item_id == item_id).scalar_subquery()
        seq = select(func.max(SaleRow.change_seq) + 1).scalar_subquery()
        session.execute(
            update(SaleRow).where(SaleRow.listing_id == listing).values(change_seq=seq, **values)
        )
        current = load_fit_marks(session)
        assert current.sales[0] == 2
        return load_fit_unchanged(session, marks, current, before=(today, count))

    assert edit("902", price=Decimal("155.00"))  # today's: tomorrow's model reads it
    assert not edit("901", price=Decimal("155.00"))
    session.rollback()
    assert not edit("901", sold_date=today)  # one sale fewer before today
    session.rollback()
    assert not edit("902", sold_date=yesterday)


@pytest.mark.parametrize("seed", range(4))
def test_a_kept_auction_model_is_the_model_a_fit_from_nothing_learns(engine, now, seed):
    """Random saves, as runs and fast-lane passes leave them: after each, the model the
    ranking uses (kept, or fitted again where something it reads changed) equals one fitted
    from nothing at the same instant."""
    rng = random.Random(seed)
    when, running, sold = now - 30 * 24 * HOUR, {}, {}
    settings = RankSettings()
    for step in range(30):
        when += timedelta(minutes=rng.randint(10, 600))
        action = rng.choice(["sighting", "sighting", "new", "sale", "ended", "moved", "late"])
        with Session(engine) as session, session.begin():
            if action == "new" or not running:
                item = f"8{step:03d}"
                running[item] = when + timedelta(hours=rng.randint(2, 72))
                see(session, when, auction(item, str(rng.randint(50, 150)), 1, running[item]))
            elif action == "sighting":
                item = rng.choice(sorted(running))
                price = str(rng.randint(60, 200))
                see(session, when, auction(item, price, rng.randint(1, 20), running[item]))
            elif action == "sale":
                item = rng.choice(sorted(running))
                end = min(running.pop(item), when)
                price = str(rng.randint(100, 250))
                see(session, when, auction(item, price, 12, end, sold=end.date()))
                sold[item] = end
            elif action == "ended":  # gone from the search: presumed sold at its last bid
                save_ended(session, now=when)
                for item in [i for i, end in running.items() if end < when]:
                    sold[item] = running.pop(item)
            elif action == "moved" and sold:  # a sold listing read again as another card
                item = rng.choice(sorted(sold))
                see(session, when, auction(item, "150", 9, sold[item], sold=sold[item].date()),
                    normalized=norm(sku=rng.choice([V100, P40])))  # fmt: skip
            elif action == "late" and sold:  # a sighting from before its end, saved late
                item = rng.choice(sorted(sold))
                see(session, sold[item] - HOUR, auction(item, "95", 3, sold[item]))
        with Session(engine) as session:
            kept = model_to_json(current_auction_model(session, settings, now=when))
        with Session(engine) as session, session.begin():
            session.execute(delete(KeyValueRow).where(KeyValueRow.key == MODEL_STATE))
        with Session(engine) as session:
            fresh = model_to_json(current_auction_model(session, settings, now=when))
        assert kept == fresh, (step, action)


def test_a_busy_store_does_not_make_the_ranking_wait_to_keep_its_model(engine, now):
    # SQLite has one writer at a time: the model is simply not kept (rather than waiting out
    # the 15 s busy timeout). PostgreSQL writes the state row beside the other transaction.
    with Session(engine) as writer:  # another process in the middle of a save
        see(writer, now, auction("601", "100", 4, now + HOUR))
        with Session(engine) as session:
            current_auction_model(session, RankSettings(), now=now)
        writer.rollback()
    with Session(engine) as session:
        kept = load_state(session, MODEL_STATE)
    assert (kept is not None) == (engine.dialect.name == "postgresql")


def test_a_refit_reuses_the_kept_markets_and_learns_what_a_fit_from_nothing_learns(engine, now):
    for i in range(25):
        end = now - timedelta(days=1 + i % 20)
        with Session(engine) as session, session.begin():
            see(session, end - HOUR, auction(f"7{i:02d}", str(100 + i), 4, end))
            see(session, now, auction(f"7{i:02d}", str(150 + 3 * i), 9, end, sold=end.date()))
    settings = RankSettings()
    with Session(engine) as session:
        current_auction_model(session, settings, now=now)
    with Session(engine) as session, session.begin():  # a run: one more auction ended today
        see(session, now - HOUR, auction("799", "120", 5, now))
        see(session, now + HOUR, auction("799", "210", 11, now, sold=now.date()))

    with Session(engine) as session:
        model, memo = load_state(session, MODEL_STATE), load_state(session, MARKETS_STATE)
    assert model is not None
    assert memo is not None
    assert memo["markets"]

    def refit(markets):
        with Session(engine) as session:  # the model as kept before the run, these markets
            save_state(session, MODEL_STATE, model, now)
            save_state(session, MARKETS_STATE, {**memo, "markets": markets}, now)
            session.commit()
            return model_to_json(current_auction_model(session, settings, now=now + HOUR))

    reusing = refit(markets=memo["markets"])  # yesterday's markets, as the run left them
    assert refit(markets={}) == reusing  # computed from nothing
    assert refit(markets="damaged") == reusing  # a damaged memo is computed again, not an error
