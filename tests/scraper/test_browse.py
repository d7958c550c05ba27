"""The Browse API collector against a real local Browse server and a real database.

Each test runs on SQLite and PostgreSQL (the ``engine`` fixture), because the token cache
and the call budget live in the database and are shared by every process using it.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import httpx
import pytest
from sqlalchemy.orm import Session

from bench import SAMPLES
from core.errors import BudgetError, FetchError, RateLimitedError
from core.models import SavedSearch
from core.settings import ApiSettings
from db.state import SessionStateStore
from scraper.browse import (
    CALL_DEADLINE,
    RESULT_CAP,
    BrowseClient,
    PriceBand,
    search_params,
    split_band,
)
from tests.conftest import load_sample
from tests.support.fake_browse import FakeBrowse

V100 = "itemsummaries_tesla-v100_2024-01.json"
AUCTION_ID = "296156094954"
SECRET = "s3cr3t-never-shown"


def _sample_items(*names: str) -> list[dict[str, Any]]:
    items: dict[str, dict[str, Any]] = {}
    for name in names:
        for item in json.loads(load_sample("browse-api", name)):
            items.setdefault(item["legacyItemId"], item)
    return list(items.values())


def _all_items() -> list[dict[str, Any]]:
    names = sorted(p.name for p in (SAMPLES / "browse-api").glob("itemsummaries_*.json"))
    return _sample_items(*names) if names else _sample_items(V100)


class Clock:
    def __init__(self, start: datetime) -> None:
        self.moment = start

    def __call__(self) -> datetime:
        return self.moment


@pytest.fixture
def clock(now):
    return Clock(now)


@pytest.fixture
def sleeps():
    return []


@pytest.fixture
def make_client(engine, clock, sleeps):
    """Builds BrowseClients that share the database, each with a session of its own."""
    sessions: list[Session] = []
    http = httpx.Client(timeout=5)

    def build(
        fake: FakeBrowse,
        *,
        budget: int = 5000,
        secret: str | None = None,
        deadline: float = CALL_DEADLINE,
    ) -> BrowseClient:
        session = Session(engine)
        sessions.append(session)
        api = ApiSettings(
            client_id=fake.client_id,
            client_secret=secret or fake.client_secret,
            base_url=fake.base_url,
            daily_budget=budget,
        )
        return BrowseClient(
            http,
            api,
            SessionStateStore(session),
            now=clock,
            sleep=sleeps.append,
            call_deadline=deadline,
        )

    yield build
    for session in sessions:
        session.close()
    http.close()


def _search(**changes) -> SavedSearch:
    return SavedSearch(**{"name": "v100", "query": "tesla v100", "category_id": "27386", **changes})


def test_a_search_pages_through_every_result_with_what_ebay_requires(make_client):
    items = _all_items()
    with FakeBrowse(items, client_secret=SECRET) as fake:
        result = make_client(fake).fetch_item_summaries(_search(), max_pages=10)
    assert [x.item_id for x in result.listings] == [i["legacyItemId"] for i in items]
    pages = (len(items) + 199) // 200
    assert (result.calls, result.total, result.bands) == (1 + pages, len(items), (PriceBand(),))
    searches = fake.search_calls
    assert [c.params["offset"] for c in searches] == [str(200 * n) for n in range(pages)]
    for call in searches:
        assert call.params["q"] == "tesla v100"
        assert call.params["category_ids"] == "27386"
        assert (call.params["sort"], call.params["limit"]) == ("newlyListed", "200")
        assert call.headers["x-ebay-c-marketplace-id"] == "EBAY_US"
    assert len(fake.token_calls) == 1


def test_max_pages_bounds_the_requests_of_one_search(make_client):
    with FakeBrowse(_all_items()) as fake:
        result = make_client(fake).fetch_item_summaries(_search(), max_pages=2)
    assert (len(result.listings), len(fake.search_calls)) == (400, 2)


def test_one_token_serves_many_calls_and_every_client_sharing_the_database(make_client):
    with FakeBrowse(_sample_items(V100)) as fake:
        first = make_client(fake)
        first.fetch_item_summaries(_search(), max_pages=1)
        first.fetch_item_summaries(_search(), max_pages=1)
        make_client(fake).fetch_item_summaries(_search(), max_pages=1)
    assert (len(fake.token_calls), len(fake.search_calls)) == (1, 3)


@pytest.mark.parametrize(
    ("later", "mints"),
    [(timedelta(hours=1, minutes=54), 1), (timedelta(hours=1, minutes=56), 2)],
    ids=["still valid", "inside the five-minute margin"],
)
def test_a_token_is_minted_again_only_near_its_expiry(make_client, clock, later, mints):
    with FakeBrowse(_sample_items(V100), token_lifetime=7200) as fake:
        client = make_client(fake)
        client.fetch_item_summaries(_search(), max_pages=1)
        clock.moment += later
        client.fetch_item_summaries(_search(), max_pages=1)
    assert len(fake.token_calls) == mints


def test_a_revoked_token_is_refreshed_once_and_the_call_retried(make_client):
    with FakeBrowse(_sample_items(V100)) as fake:
        client = make_client(fake)
        client.fetch_item_summaries(_search(), max_pages=1)
        fake.revoke_tokens()
        result = client.fetch_item_summaries(_search(), max_pages=1)
    assert len(result.listings) > 0
    assert [c.status for c in fake.calls] == [200, 200, 401, 200, 200]
    assert [c.is_token for c in fake.calls] == [True, False, False, True, False]


def test_a_second_401_is_an_error_not_a_loop(make_client):
    with FakeBrowse(_sample_items(V100)) as fake:
        fake.fail_next(401, times=5)
        with pytest.raises(FetchError) as caught:
            make_client(fake).fetch_item_summaries(_search(), max_pages=1)
    assert (caught.value.status, caught.value.search) == (401, "v100")
    assert (len(fake.token_calls), len(fake.search_calls)) == (2, 2)


@pytest.mark.parametrize(
    ("status", "retry_after", "times", "expected_sleeps"),
    [
        (429, "3", 1, [3.0]),
        (500, None, 2, [2.0, 4.0]),
        (503, "1", 3, [1.0, 1.0, 1.0]),
    ],
)
def test_429_and_5xx_are_retried_politely(
    make_client, sleeps, status, retry_after, times, expected_sleeps
):
    with FakeBrowse(_sample_items(V100)) as fake:
        fake.fail_next(status, times=times, retry_after=retry_after)
        result = make_client(fake).fetch_item_summaries(_search(), max_pages=1)
    assert len(result.listings) > 0
    assert sleeps == expected_sleeps
    assert result.calls == 1 + times + 1  # token, failures, success: every try is budgeted


def test_retries_are_bounded_and_end_in_an_error_naming_the_search(make_client, sleeps):
    with FakeBrowse(_sample_items(V100)) as fake:
        fake.fail_next(500, times=10)
        with pytest.raises(FetchError, match=r"HTTP 500.*\[search 'v100'\]") as caught:
            make_client(fake).fetch_item_summaries(_search(), max_pages=1)
    assert caught.value.status == 500
    assert len(fake.search_calls) == 4
    assert len(sleeps) == 3


def test_an_hours_retry_after_defers_the_search_instead_of_waiting(make_client, sleeps, clock):
    with FakeBrowse(_sample_items(V100)) as fake:
        fake.fail_next(429, retry_after="3600")
        with pytest.raises(RateLimitedError, match="wait 3600s") as caught:
            make_client(fake).fetch_item_summaries(_search(), max_pages=1)
    assert caught.value.until == clock() + timedelta(hours=1)
    assert (sleeps, len(fake.search_calls)) == ([], 1)


def test_a_spent_budget_refuses_before_calling(make_client):
    with FakeBrowse(_sample_items(V100)) as fake:
        client = make_client(fake, budget=2)
        client.fetch_item_summaries(_search(), max_pages=1)
        calls_before = len(fake.calls)
        with pytest.raises(BudgetError, match="budget of 2 calls is spent"):
            make_client(fake, budget=2).fetch_item_summaries(_search(), max_pages=1)
    assert len(fake.calls) == calls_before == 2


def test_the_budget_stops_a_search_midway_without_calling_again(make_client):
    with FakeBrowse(_all_items()) as fake, pytest.raises(BudgetError):
        make_client(fake, budget=3).fetch_item_summaries(_search(), max_pages=10)
    assert len(fake.calls) == 3  # token and two pages; the third page was never asked for


@pytest.mark.parametrize(
    ("spent_at", "next_call", "allowed"),
    [
        (
            datetime(2026, 11, 21, 7, 30, tzinfo=UTC),
            datetime(2026, 11, 21, 7, 59, tzinfo=UTC),
            False,
        ),
        (datetime(2026, 11, 21, 7, 30, tzinfo=UTC), datetime(2026, 11, 21, 8, 0, tzinfo=UTC), True),
        (datetime(2026, 7, 1, 6, 30, tzinfo=UTC), datetime(2026, 7, 1, 7, 0, tzinfo=UTC), True),
        (datetime(2026, 11, 20, 8, 0, tzinfo=UTC), datetime(2026, 11, 21, 0, 0, tzinfo=UTC), False),
    ],
    ids=["23:59 Pacific", "midnight PST", "midnight PDT", "same Pacific day, next UTC day"],
)
def test_the_budget_resets_at_midnight_us_pacific(make_client, clock, spent_at, next_call, allowed):
    with FakeBrowse(_sample_items(V100)) as fake:
        client = make_client(fake, budget=2)
        clock.moment = spent_at
        client.fetch_item_summaries(_search(), max_pages=1)
        clock.moment = next_call
        if allowed:
            assert len(client.fetch_item_summaries(_search(), max_pages=1).listings) > 0
        else:
            with pytest.raises(BudgetError):
                client.fetch_item_summaries(_search(), max_pages=1)


def test_a_search_over_the_cap_is_split_into_price_bands_and_loses_nothing(make_client, caplog):
    items = _sample_items(V100)
    with FakeBrowse(items, total_scale=250) as fake, caplog.at_level(logging.WARNING):
        result = make_client(fake).fetch_item_summaries(_search(), max_pages=3)
    assert result.total == len(items) * 250 > RESULT_CAP
    assert "more than the 10000 it pages through" in caplog.text
    assert sorted(x.item_id for x in result.listings) == sorted(i["legacyItemId"] for i in items)
    assert len(result.bands) > 1
    assert not result.truncated
    lows = [b.low or Decimal(0) for b in result.bands]
    highs = [b.high for b in result.bands]
    assert all(high is None or high < low for high, low in zip(highs, lows[1:], strict=False))


def test_price_bands_stay_inside_the_saved_search_price_range(make_client):
    items = _sample_items(V100)
    search = _search(min_price=Decimal("100"), max_price=Decimal("3000"))
    with FakeBrowse(items, total_scale=500) as fake:
        result = make_client(fake).fetch_item_summaries(search, max_pages=3)
    assert all(
        Decimal(100) <= (b.low or 0) and (b.high or 0) <= Decimal(3000) for b in result.bands
    )
    expected = {
        i["legacyItemId"]
        for i in items
        if Decimal(100) <= Decimal((i.get("currentBidPrice") or i["price"])["value"]) <= 3000
    }
    assert {x.item_id for x in result.listings} == expected
    assert all("priceCurrency:USD" in c.filters for c in fake.search_calls)


def _with_auction_only(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """eBay drops FIXED_PRICE from an auction once it has a bid; the saved sample had none yet."""
    bid = {
        **next(i for i in items if i["legacyItemId"] == AUCTION_ID),
        "buyingOptions": ["AUCTION"],
    }
    return [bid if i["legacyItemId"] == AUCTION_ID else i for i in items]


@pytest.mark.parametrize(
    ("buying", "options", "has_auction", "has_fixed"),
    [
        ("all", "buyingOptions:{AUCTION|FIXED_PRICE}", True, True),
        ("auction", "buyingOptions:{AUCTION}", True, False),
        ("buy_it_now", "buyingOptions:{FIXED_PRICE}", False, True),
    ],
)
def test_auctions_are_asked_for_explicitly(make_client, buying, options, has_auction, has_fixed):
    items = _with_auction_only(_sample_items(V100))
    with FakeBrowse(items) as fake:
        result = make_client(fake).fetch_item_summaries(_search(buying=buying), max_pages=1)
    assert options in fake.search_calls[0].filters
    ids = {x.item_id for x in result.listings}
    assert (AUCTION_ID in ids) == has_auction
    assert (len(ids) > 1) == has_fixed


def test_a_token_answer_trickling_in_is_cut_at_the_call_deadline_and_minted_again(make_client):
    """The token request has the same whole-call deadline as a search call."""
    with FakeBrowse(_sample_items(V100)) as fake:
        fake.trickle_token_next(seconds_per_byte=0.2)  # ~25 s for the whole answer
        client = make_client(fake, deadline=1.0)
        started = time.monotonic()
        result = client.fetch_item_summaries(_search(), max_pages=1)
        elapsed = time.monotonic() - started
    assert result.listings
    assert len(fake.token_calls) == 2
    assert 1.0 <= elapsed < 3.0


def test_a_token_endpoint_that_never_finishes_fails_clearly_within_its_tries(make_client):
    with FakeBrowse(_sample_items(V100)) as fake:
        fake.trickle_token_next(seconds_per_byte=0.2, times=10)
        client = make_client(fake, deadline=0.5)
        started = time.monotonic()
        with pytest.raises(FetchError, match="no complete answer within the request deadline"):
            client.fetch_item_summaries(_search(), max_pages=1)
        elapsed = time.monotonic() - started
    assert len(fake.token_calls) == 3  # the token policy's three tries, each cut at 0.5 s
    assert elapsed < 3.0
    assert fake.search_calls == []


def test_wrong_credentials_fail_clearly_without_showing_the_secret(make_client, caplog):
    with FakeBrowse(_sample_items(V100), client_secret="the-real-one") as fake:
        client = make_client(fake, secret=SECRET)
        with (
            caplog.at_level(logging.DEBUG),
            pytest.raises(FetchError, match="client id and secret") as caught,
        ):
            client.fetch_item_summaries(_search(), max_pages=1)
    assert caught.value.status == 401
    assert fake.search_calls == []
    for text in (str(caught.value), repr(caught.value), repr(client), caplog.text):
        assert SECRET not in text


@pytest.mark.parametrize(
    ("changes", "band", "expected"),
    [
        ({}, PriceBand(), "buyingOptions:{AUCTION|FIXED_PRICE}"),
        (
            {"condition": "used", "location": "domestic", "marketplace": "EBAY_GB"},
            PriceBand(Decimal("100"), Decimal("250.50")),
            "price:[100..250.50],priceCurrency:GBP,"
            "conditionIds:{2000|2010|2020|2030|2500|2750|3000|4000|5000|6000},"
            "buyingOptions:{AUCTION|FIXED_PRICE},itemLocationCountry:GB",
        ),
        (
            {"condition": "for_parts", "buying": "auction"},
            PriceBand(None, Decimal(50)),
            "price:[..50],priceCurrency:USD,conditionIds:{7000},buyingOptions:{AUCTION}",
        ),
        (
            {"marketplace": "EBAY_DE", "condition": "new"},
            PriceBand(Decimal("100000.01"), None),
            "price:[100000.01],priceCurrency:EUR,conditionIds:{1000|1500},buyingOptions:{AUCTION|FIXED_PRICE}",
        ),
    ],
    ids=["defaults", "used domestic GB band", "auction parts under 50", "open-ended band in EUR"],
)
def test_search_filters_follow_the_saved_search(changes, band, expected):
    assert search_params(_search(**changes), band, offset=0)["filter"] == expected


@pytest.mark.parametrize(
    ("band", "halves"),
    [
        (
            PriceBand(),
            (PriceBand(Decimal(0), Decimal(100000)), PriceBand(Decimal("100000.01"), None)),
        ),
        (
            PriceBand(Decimal(100), Decimal(300)),
            (
                PriceBand(Decimal(100), Decimal("200.00")),
                PriceBand(Decimal("200.01"), Decimal(300)),
            ),
        ),
        (PriceBand(Decimal("10.00"), Decimal("10.01")), None),
        (PriceBand(Decimal(200000), None), None),
    ],
    ids=["open search", "bounded band", "one cent wide", "beyond the ceiling"],
)
def test_split_band_bisects_without_overlap(band, halves):
    assert split_band(band) == halves
