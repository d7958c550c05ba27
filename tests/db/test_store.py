"""save_/load_ of listings, price history and sales: what a user of the price history relies on."""

from __future__ import annotations

import threading
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.orm import Session

from core.errors import StoreError
from core.models import BuyingFormat, Category, Kind, Listing, Normalized
from db.models import ListingRow, ObservationRow, SaleRow
from db.store import (
    SaveCounts,
    load_known_item_ids,
    save_ended,
    save_listings,
    save_sales_import,
)

V100 = Normalized(
    title="NVIDIA Tesla V100 SXM2 16GB", sku="v100-sxm2-16gb", category=Category.GPU, kind=Kind.ITEM
)
UNKNOWN = Normalized(title="mystery card", sku=None, category=None, kind=Kind.ITEM)


def listing(item_id: str = "1001", price: str = "450.00", **changes: Any) -> Listing:
    base = Listing(
        item_id=item_id,
        title=f"NVIDIA Tesla V100 SXM2 16GB #{item_id}",
        url=f"https://www.ebay.com/itm/{item_id}",
        price=Decimal(price),
        currency="USD",
        buying_format=BuyingFormat.BUY_IT_NOW,
        shipping=Decimal("25.00"),
        seller="gpu_recycler",
    )
    return replace(base, **changes)


def sold(item_id: str = "2001", price: str = "380.00", **changes: Any) -> Listing:
    return listing(item_id, price, **({"sold_date": date(2026, 11, 18)} | changes))


def pairs(*items: Listing, norm: Normalized = V100) -> list[tuple[Listing, Normalized]]:
    return [(item, norm) for item in items]


def save(session: Session, *items: Listing, now: datetime, search: str = "v100") -> SaveCounts:
    counts = save_listings(session, pairs(*items), search=search, run_id=None, now=now)
    session.commit()
    return counts


def count(session: Session, model: type[Any]) -> int:
    return session.scalar(select(func.count()).select_from(model)) or 0


def observations(session: Session, item_id: str) -> list[ObservationRow]:
    stmt = (
        select(ObservationRow)
        .join(ListingRow)
        .where(ListingRow.item_id == item_id)
        .order_by(ObservationRow.id)
    )
    return list(session.scalars(stmt))


def row(session: Session, item_id: str) -> ListingRow:
    return session.scalars(select(ListingRow).where(ListingRow.item_id == item_id)).one()


def test_first_save_creates_listings_with_one_observation_each(session, now):
    counts = save(session, listing("1"), listing("2"), sold("3"), now=now)

    assert counts == SaveCounts(seen=3, new_listings=3, new_observations=3, new_sales=1)
    stored = row(session, "1")
    assert (stored.sku, stored.kind, stored.search, stored.status) == (
        "v100-sxm2-16gb",
        "item",
        "v100",
        "active",
    )
    assert stored.first_seen == stored.last_seen == now


def test_saving_the_same_listings_again_adds_no_rows(session, now):
    items = (listing("1"), listing("2"), sold("3"))
    save(session, *items, now=now)

    later = now + timedelta(hours=24)
    counts = save(session, *items, now=later)

    assert counts == SaveCounts(seen=3, new_listings=0, new_observations=0, new_sales=0)
    assert (count(session, ListingRow), count(session, ObservationRow)) == (3, 3)
    assert count(session, SaleRow) == 1
    assert (row(session, "1").first_seen, row(session, "1").last_seen) == (now, later)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("price", Decimal("420.00")),
        ("price_max", Decimal("520.00")),
        ("shipping", Decimal("0")),
        ("shipping", None),
        ("currency", "EUR"),
        ("bids", 3),
    ],
)
def test_a_price_change_adds_exactly_one_observation(session, now, field, value):
    save(session, listing("1"), listing("2"), now=now)

    counts = save(
        session, listing("1", **{field: value}), listing("2"), now=now + timedelta(days=1)
    )

    assert (counts.new_observations, counts.new_listings) == (1, 0)
    history = observations(session, "1")
    assert len(history) == 2
    assert getattr(history[-1], field) == value
    assert len(observations(session, "2")) == 1


@pytest.mark.parametrize(
    ("field", "value"),
    [("title", "V100 SXM2 16GB - tested"), ("seller", "new_owner"), ("url", "https://x/itm/1")],
)
def test_a_change_that_is_not_a_price_updates_the_listing_only(session, now, field, value):
    save(session, listing("1"), now=now)

    counts = save(session, listing("1", **{field: value}), now=now + timedelta(days=1))

    assert counts.new_observations == 0
    assert getattr(row(session, "1"), field) == value


def test_the_same_amount_written_differently_is_not_a_change(session, now):
    save(session, listing("1", price="450", shipping=Decimal("25")), now=now)

    counts = save(session, listing("1", price="450.00"), now=now + timedelta(days=1))

    assert counts.new_observations == 0


def test_going_back_to_an_earlier_price_is_recorded(session, now):
    for day, price in enumerate(["450.00", "400.00", "450.00"]):
        save(session, listing("1", price), now=now + timedelta(days=day))

    assert [o.price for o in observations(session, "1")] == [
        Decimal("450.00"),
        Decimal("400.00"),
        Decimal("450.00"),
    ]


def test_an_item_repeated_in_one_batch_is_saved_once_with_its_last_copy(session, now):
    counts = save(session, listing("1", "450.00"), listing("1", "440.00"), now=now)

    assert (counts.seen, counts.new_listings, counts.new_observations) == (1, 1, 1)
    assert [o.price for o in observations(session, "1")] == [Decimal("440.00")]


def test_the_same_item_id_on_two_marketplaces_is_two_listings(session, now):
    save(session, listing("1"), listing("1", marketplace="EBAY_GB", currency="GBP"), now=now)

    assert count(session, ListingRow) == 2


@pytest.mark.parametrize("best_offer_accepted", [True, False])
def test_a_sold_listing_gets_one_sales_row_that_keeps_best_offer(session, now, best_offer_accepted):
    item = sold("9", "612.50", best_offer_accepted=best_offer_accepted)
    save(session, item, now=now)
    save(session, item, now=now + timedelta(days=1))

    sale = session.scalars(select(SaleRow)).one()
    assert (sale.price, sale.shipping, sale.sold_date, sale.source) == (
        Decimal("612.50"),
        Decimal("25.00"),
        date(2026, 11, 18),
        "sold_page",
    )
    assert sale.best_offer_accepted is best_offer_accepted
    assert row(session, "9").status == "sold"
    assert [o.status for o in observations(session, "9")] == ["sold"]


def test_an_active_listing_seen_later_on_a_sold_page_is_sold(session, now):
    save(session, listing("5", "500.00"), now=now)

    counts = save(session, sold("5", "480.00"), now=now + timedelta(days=2))

    assert (counts.new_observations, counts.new_sales) == (1, 1)
    assert [o.status for o in observations(session, "5")] == ["active", "sold"]
    assert row(session, "5").status == "sold"


@pytest.mark.parametrize("amount", ["1234.56", "0.10", "0.01", "99999.99", "999999999999.99", "3"])
def test_money_round_trips_exactly(session, now, amount):
    save(session, sold("1", amount, shipping=Decimal(amount), price_max=Decimal(amount)), now=now)
    session.expunge_all()

    observed = observations(session, "1")[0]
    sale = session.scalars(select(SaleRow)).one()
    expected = Decimal(amount).quantize(Decimal("0.01"))
    assert [observed.price, observed.price_max, observed.shipping, sale.price] == [expected] * 4
    assert all(isinstance(v, Decimal) for v in (observed.price, sale.shipping))


def test_seller_percentage_round_trips_exactly(session, now):
    save(session, listing("1", seller_positive_pct=Decimal("99.8")), now=now)
    session.expunge_all()

    assert row(session, "1").seller_positive_pct == Decimal("99.8")


def test_times_come_back_as_the_same_instant_in_utc(session, now):
    tokyo_end = datetime(2026, 11, 25, 21, 30, tzinfo=timezone(timedelta(hours=9)))
    save(session, listing("1", end_time=tokyo_end), now=now)
    session.expunge_all()

    stored = row(session, "1")
    assert stored.end_time == tokyo_end
    assert stored.end_time is not None
    assert stored.end_time.tzinfo == UTC


def test_a_page_without_seller_details_keeps_the_known_ones(session, now):
    save(session, listing("1", seller="gpu_recycler", location="Austin, TX"), now=now)

    save(session, listing("1", seller=None, location=None), now=now + timedelta(days=1))

    assert (row(session, "1").seller, row(session, "1").location) == ("gpu_recycler", "Austin, TX")


def test_the_first_search_that_found_a_listing_keeps_it(session, now):
    save(session, listing("1"), now=now, search="v100")

    save(session, listing("1"), now=now, search="tesla gpu")

    assert row(session, "1").search == "v100"


def test_known_ids_are_the_listings_stored_at_the_same_price(session, now):
    save(session, listing("1", "450.00"), listing("2", "300.00"), now=now)

    known = load_known_item_ids(
        session,
        [
            listing("1", "450.00"),  # unchanged
            listing("2", "290.00"),  # price dropped
            listing("3", "450.00"),  # never seen
            listing("1", "450.00", marketplace="EBAY_DE"),  # same id, other site
        ],
    )

    assert known == {"1"}


def test_known_ids_of_an_empty_page_are_empty(session):
    assert load_known_item_ids(session, []) == set()


def auction(item_id: str, *, bids: int, ends: datetime) -> Listing:
    return listing(item_id, "700.00", buying_format=BuyingFormat.AUCTION, bids=bids, end_time=ends)


@pytest.mark.parametrize(
    ("item", "status", "sale_source"),
    [
        (listing("1", end_time=datetime(2026, 11, 19, tzinfo=UTC)), "ended", None),
        (auction("2", bids=0, ends=datetime(2026, 11, 19, tzinfo=UTC)), "ended", None),
        (
            auction("3", bids=4, ends=datetime(2026, 11, 19, 20, tzinfo=UTC)),
            "presumed_sold",
            "presumed",
        ),
        (auction("4", bids=4, ends=datetime(2026, 11, 21, tzinfo=UTC)), "active", None),
        (listing("5", end_time=None), "active", None),
    ],
)
def test_listings_past_their_end_time_are_closed(session, now, item, status, sale_source):
    save(session, item, now=now - timedelta(days=3))

    changed = save_ended(session, now=now)
    session.commit()

    assert changed == (0 if status == "active" else 1)
    assert row(session, item.item_id).status == status
    sales = list(session.scalars(select(SaleRow)))
    assert [s.source for s in sales] == ([sale_source] if sale_source else [])


def test_a_presumed_sale_is_at_the_last_price_seen_and_dated_at_the_end(session, now):
    ends = datetime(2026, 11, 19, 20, tzinfo=UTC)
    save(session, auction("3", bids=2, ends=ends), now=now - timedelta(days=3))
    save(session, replace(auction("3", bids=7, ends=ends), price=Decimal("810.00")), now=now)

    save_ended(session, now=now)
    session.commit()

    sale = session.scalars(select(SaleRow)).one()
    assert (sale.price, sale.sold_date, sale.source) == (Decimal("810.00"), ends.date(), "presumed")
    assert save_ended(session, now=now + timedelta(days=1)) == 0


def test_a_sold_page_replaces_a_presumed_sale(session, now):
    ends = datetime(2026, 11, 19, 20, tzinfo=UTC)
    save(session, auction("3", bids=2, ends=ends), now=now - timedelta(days=3))
    save_ended(session, now=now)
    session.commit()

    counts = save(session, sold("3", "760.00", sold_date=ends.date()), now=now)

    sale = session.scalars(select(SaleRow)).one()
    assert (sale.price, sale.source, counts.new_sales) == (Decimal("760.00"), "sold_page", 1)


def test_imported_sales_are_stored_with_their_source(session, now):
    counts = save_sales_import(session, pairs(sold("7"), sold("8")), source="terapeak", now=now)
    session.commit()

    assert counts.new_sales == 2
    assert {s.source for s in session.scalars(select(SaleRow))} == {"terapeak"}
    assert row(session, "7").search is None


def test_an_import_never_overrides_a_sale_seen_on_a_sold_page(session, now):
    save(session, sold("7", "380.00"), now=now)

    save_sales_import(session, pairs(sold("7", "999.00")), source="import", now=now)
    session.commit()

    sale = session.scalars(select(SaleRow)).one()
    assert (sale.price, sale.source) == (Decimal("380.00"), "sold_page")


@pytest.mark.parametrize(
    ("items", "source", "message"),
    [
        ([sold("7"), listing("8")], "terapeak", "without a sold date"),
        ([sold("7")], "ebay", "Unknown sales source"),
    ],
)
def test_a_bad_import_is_refused_whole(session, now, items, source, message):
    with pytest.raises(StoreError, match=message):
        save_sales_import(session, pairs(*items), source=source, now=now)

    assert count(session, ListingRow) == 0


def save_then_crash(engine, now: datetime) -> None:
    with Session(engine) as session, session.begin():
        items = pairs(listing("1", "1.00"), listing("2"), sold("3"))
        save_listings(session, items, search="v100", run_id=None, now=now)
        raise RuntimeError("crash")


def test_a_transaction_that_fails_midway_leaves_earlier_data_intact(engine, now):
    with Session(engine) as session, session.begin():
        save_listings(session, pairs(listing("1")), search="v100", run_id=None, now=now)

    with pytest.raises(RuntimeError, match="crash"):
        save_then_crash(engine, now + timedelta(days=1))

    with Session(engine) as session:
        assert [r.item_id for r in session.scalars(select(ListingRow))] == ["1"]
        assert [o.price for o in observations(session, "1")] == [Decimal("450.00")]
        assert (count(session, SaleRow), row(session, "1").last_seen) == (0, now)


def test_objects_loaded_before_a_save_show_the_saved_values(session, now):
    save(session, listing("1"), now=now)
    loaded = row(session, "1")

    save_listings(session, pairs(listing("1", title="renamed")), search=None, run_id=None, now=now)

    assert loaded.title == "renamed"


def test_two_workers_saving_overlapping_batches_at_once_both_succeed(engine, now):
    first = [listing(str(i)) for i in range(0, 300)]
    second = [listing(str(i), "399.00") for i in reversed(range(150, 450))]
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def worker(items: list[Listing]) -> None:
        try:
            barrier.wait(timeout=10)
            with Session(engine) as session, session.begin():
                save_listings(session, pairs(*items), search="v100", run_id=None, now=now)
        except Exception as exc:  # reported below, with the other worker's result
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(items,)) for items in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert errors == []
    with Session(engine) as session:
        assert count(session, ListingRow) == 450


def test_saves_take_turns_so_each_stamps_numbers_past_every_committed_one(engine, now):
    """Two collectors saving pages at once: the second waits for the first to commit, so its
    ``saved_seq`` is past the first's (drawn at once from the same committed rows, both would
    stamp the same number, and a ranking that read its mark between the two commits would
    never look at the second's listings again)."""
    done = threading.Event()
    errors: list[BaseException] = []

    def second() -> None:
        try:
            with Session(engine) as session, session.begin():
                save(session, listing("2"), now=now + timedelta(seconds=1))
        except Exception as exc:  # reported below
            errors.append(exc)
        done.set()

    with Session(engine) as first:
        save_listings(first, pairs(listing("1")), search=None, run_id=None, now=now)
        thread = threading.Thread(target=second)  # while the first is not committed
        thread.start()
        assert not done.wait(1.5), "the second save did not wait for the first to commit"
        first.commit()
    assert done.wait(30)
    thread.join()
    assert errors == []
    with Session(engine) as session:
        assert row(session, "2").saved_seq > row(session, "1").saved_seq


@pytest.mark.parametrize("size", [30, 400])
def test_a_batch_is_saved_with_the_same_few_statements_whatever_its_size(engine, now, size):
    statements: list[str] = []
    first = [listing(str(i)) for i in range(size)] + [sold(f"s{i}") for i in range(size)]
    again = [replace(item, price=item.price + 1) for item in first]

    def record(conn, cursor, statement, *args) -> None:
        if "pg_advisory_xact_lock" not in statement:  # saves take turns (next test)
            statements.append(statement.split()[0])

    with Session(engine) as session, session.begin():
        save_listings(session, pairs(*first), search="v100", run_id=None, now=now)
    event.listen(engine, "before_cursor_execute", record)
    try:
        with Session(engine) as session, session.begin():
            save_listings(session, pairs(*again), search="v100", run_id=None, now=now)
    finally:
        event.remove(engine, "before_cursor_execute", record)

    # look up, upsert the listings, add the observations, point each at its newest one
    assert statements == ["SELECT", "INSERT", "INSERT", "UPDATE"]


def test_every_save_that_writes_a_listing_stamps_it_past_every_other(session, now):
    """``saved_seq``: the ranking's kept rows find what was saved since by it. A sighting
    that changes nothing, a change, a new price, a closed auction: each stamps the listings it
    wrote past every other listing, and leaves the others as they were."""

    def seqs() -> dict[str, int]:
        session.commit()
        stamped = session.execute(select(ListingRow.item_id, ListingRow.saved_seq))
        return {str(item_id): seq for item_id, seq in stamped}

    ends = now + timedelta(hours=1)
    save(session, listing("1"), listing("2"), auction("3", bids=2, ends=ends), now=now)
    first = seqs()
    assert None not in first.values()
    steps = [
        ("1", lambda t: save(session, listing("1"), now=t)),  # seen again as it was
        ("2", lambda t: save(session, listing("2", title="V100 SXM2 16GB tested"), now=t)),
        ("1", lambda t: save(session, listing("1", price="430.00"), now=t)),  # a new price
        ("3", lambda t: save_ended(session, now=t + timedelta(hours=2))),  # the auction closed
    ]
    for step, (written, action) in enumerate(steps):
        before = seqs()
        action(now + timedelta(minutes=step + 1))
        after = seqs()
        assert after[written] > max(before.values()), step
        others = {k: v for k, v in after.items() if k != written}
        assert others == {k: v for k, v in before.items() if k != written}, step
