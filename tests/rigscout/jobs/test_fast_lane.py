"""The fast lane: between full sweeps, one newest-first first-page request per due search,
budgeted per day and shared out by where new listings appear; deals found there are alerted at
once through the same outbox as the daily run, so nothing is sent twice."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner

from core.models import Mode, SavedSearch
from rigscout.cli.main import cli
from rigscout.jobs.fastlane import due_searches, plan_poll_intervals
from tests.support.cli import DEMO, collector_config, engine_url, serve_demo_pages, write_config
from tests.support.fake_ebay import FakeEbay
from tests.support.webhook_server import running_webhook_server

HOOK_ENV = "TEST_RIGSCOUT_FAST_HOOK"
P40_PAGE = DEMO / "p40" / "active-p1.html"
SEEN_ITEM, NEW_ITEM = "334119299840", "334119299999"  # a Dell P40 at $212.90, and a new one


def with_new_listing(page: str) -> str:
    """The page with a copy of the Dell P40's card first, as a new item at $149.00."""
    start = page.index('<li class="s-card')
    card_start = page.rindex('<li class="s-card', 0, page.index(SEEN_ITEM))
    card = page[card_start : page.index("</li>", card_start) + len("</li>")]
    new = card.replace(SEEN_ITEM, NEW_ITEM).replace("$212.90", "$149.00")
    return page[:start] + new + page[start:]


NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("weights", "budget", "expected_minutes"),
    [
        # polls beyond one a day each go as the square root of new listings: 2:1 here
        ({"p40": 4.0, "a100": 1.0}, 8, {"p40": 288, "a100": 480}),
        ({"rtx-3090": 49.0, "esc4000": 1.0}, 18, {"rtx-3090": 96, "esc4000": 480}),
        ({"p40": 1.0, "a100": 1.0}, 96, {"p40": 30, "a100": 30}),
        # a search with no new listings still gets its daily poll
        ({"rtx-3090": 1.0, "esc4000": 0.0}, 49, {"rtx-3090": 30, "esc4000": 1440}),
    ],
)
def test_the_daily_budget_is_shared_where_listings_appear(weights, budget, expected_minutes):
    intervals = plan_poll_intervals(weights, budget)
    assert {k: v / timedelta(minutes=1) for k, v in intervals.items()} == expected_minutes


def test_only_searches_past_their_interval_are_due_as_first_page_active_polls():
    searches = [
        SavedSearch(name=n, query=n, modes=(Mode.ACTIVE, Mode.SOLD), max_pages=3)
        for n in ("p40", "a100", "new")
    ]
    intervals = {"p40": timedelta(minutes=30), "a100": timedelta(hours=6)}
    last = {"p40": NOW - timedelta(minutes=31), "a100": NOW - timedelta(hours=1), "new": None}
    due = due_searches(searches, intervals, last, NOW)
    assert [(s.name, s.modes, s.max_pages) for s in due] == [
        ("p40", (Mode.ACTIVE,), 1),
        ("new", (Mode.ACTIVE,), 1),
    ]


ALERTS = f"""
[alerts.channels.chat]
type = "discord"
webhook_url_env = "{HOOK_ENV}"

[[alerts.rule]]
name = "under-market"
min_discount = 0.15
channels = ["chat"]
"""


def test_a_fast_lane_pass_polls_each_first_page_once_and_alerts_without_duplicates(
    engine, tmp_path
):
    with FakeEbay() as ebay, running_webhook_server() as hook:
        serve_demo_pages(ebay)
        extra = collector_config(ebay.base_url, 50.0) + "fast_lane_daily_requests = 264\n"
        config = write_config(tmp_path, engine_url(engine), extra + ALERTS)
        env = {HOOK_ENV: hook.webhook_url()}
        runner = CliRunner()
        # A day of history first, so the market has sold prices to judge deals by.
        daily = runner.invoke(cli, ["--config", str(config), "run"], env=env)
        assert daily.exit_code == 0, daily.output
        posts_after_daily = len(hook.delivered)
        before = len(ebay.requests)

        # Minutes later a P40 is listed 30 % under the market, newest first on page 1.
        ebay.add_page("tesla p40 24gb", with_new_listing(P40_PAGE.read_text(encoding="utf-8")))
        lane = runner.invoke(cli, ["--config", str(config), "fast-lane"], env=env)
        polled = ebay.requests[before:]
        alerted_now = [
            e["url"] for post in hook.delivered[posts_after_daily:] for e in post["embeds"]
        ]
        again = runner.invoke(cli, ["--config", str(config), "fast-lane"], env=env)
        posts_after_lane = len(hook.delivered)
        rerun = runner.invoke(cli, ["--config", str(config), "run"], env=env)

    assert lane.exit_code == 0, lane.output
    assert alerted_now == [f"https://www.ebay.com/itm/{NEW_ITEM}"]
    assert len(polled) == 11  # the starter's 11 searches, one request each
    assert {r.page for r in polled} == {1}
    assert all(r.params.get("_sop") == "10" for r in polled)  # newest first
    assert not any(r.params.get("LH_Sold") for r in polled)
    assert "No search is due" in again.output
    assert rerun.exit_code == 0, rerun.output
    assert len(hook.delivered) == posts_after_lane  # the daily run does not alert it again


@pytest.mark.parametrize(
    "condition",
    [
        "For parts or not working",
        "Als Ersatzteil / defekt",
        "Pour pièces détachées ou ne fonctionne pas",
    ],
)
def test_a_listing_whose_condition_says_broken_is_a_part_however_plain_its_title(
    engine, tmp_path, condition
):
    """The same P40 at $149, its title unchanged, but eBay's condition says it is broken: it
    is stored as a part and not alerted as a card under the market."""
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from db.models import ListingRow

    with FakeEbay() as ebay, running_webhook_server() as hook:
        serve_demo_pages(ebay)
        extra = collector_config(ebay.base_url, 50.0) + "fast_lane_daily_requests = 264\n"
        config = write_config(tmp_path, engine_url(engine), extra + ALERTS)
        env = {HOOK_ENV: hook.webhook_url()}
        runner = CliRunner()
        daily = runner.invoke(cli, ["--config", str(config), "run"], env=env)
        assert daily.exit_code == 0, daily.output
        posts_after_daily = len(hook.delivered)

        page = with_new_listing(P40_PAGE.read_text(encoding="utf-8"))
        card_at = page.index(NEW_ITEM)
        broken = page[:card_at] + page[card_at:].replace(">Pre-Owned<", f">{condition}<", 1)
        ebay.add_page("tesla p40 24gb", broken)
        lane = runner.invoke(cli, ["--config", str(config), "fast-lane"], env=env)
        assert lane.exit_code == 0, lane.output
        alerted_now = [
            e["url"] for post in hook.delivered[posts_after_daily:] for e in post["embeds"]
        ]

    with Session(engine) as session:
        kind = session.scalar(select(ListingRow.kind).where(ListingRow.item_id == NEW_ITEM))
    assert kind == "for_parts"
    assert f"https://www.ebay.com/itm/{NEW_ITEM}" not in alerted_now


def test_the_fast_lane_says_when_it_is_off(engine, tmp_path):
    config = write_config(tmp_path, engine_url(engine))
    result = CliRunner().invoke(cli, ["--config", str(config), "fast-lane"])
    assert result.exit_code == 2
    assert "fast_lane_daily_requests" in result.output


def test_the_daily_request_budget_is_enforced_not_only_planned(engine, tmp_path):
    """Retries and extra pages can spend more than the plan counted on: what today's fast-lane
    runs recorded is what is left, and none left means no poll until midnight UTC."""
    from sqlalchemy.orm import Session

    from core.clock import utcnow
    from core.errors import BudgetError
    from db.runs import RunCounts, finish_run, start_run
    from rigscout.config.load import load_settings
    from rigscout.jobs.fastlane_job import SOURCE, run_fast_lane

    extra = "[collector]\nfast_lane_daily_requests = 12\n"
    settings = load_settings(write_config(tmp_path, engine_url(engine), extra), {})
    morning = datetime(2026, 11, 20, 8, tzinfo=UTC)

    def spent(requests: int, at: datetime) -> None:  # an earlier pass, as the runs record it
        with Session(engine) as session:
            run = start_run(session, source=SOURCE, now=at)
            finish_run(session, run, counts=RunCounts(requests=requests), errors=[], now=at)

    spent(10, morning - timedelta(hours=2))
    capped = run_fast_lane(settings, offline=DEMO, now=lambda: morning)
    spent(5, morning + timedelta(hours=1))
    with pytest.raises(BudgetError, match=r"daily budget of 12 requests is spent \(17 made"):
        run_fast_lane(settings, offline=DEMO, now=lambda: morning + timedelta(hours=2))
    tomorrow = run_fast_lane(settings, offline=DEMO, now=lambda: morning + timedelta(hours=17))
    spent(12, utcnow())  # today, for the command a user types
    result = CliRunner().invoke(cli, ["--config", str(tmp_path / "rigscout.toml"), "fast-lane"])

    assert capped is not None and capped.searches == 2  # the two requests left today
    # A new UTC day, a new budget: the nine searches the cap left unpolled yesterday go first.
    assert tomorrow is not None and tomorrow.searches == 9
    assert result.exit_code == 0  # a spent budget is the plan working, not a failure
    assert result.output.startswith("Nothing polled: the fast lane's daily budget of 12 requests")
