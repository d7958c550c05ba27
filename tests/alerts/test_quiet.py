"""Quiet hours: a channel holds its alerts back at night and sends them after, never drops them."""

from __future__ import annotations

from datetime import UTC, datetime, time
from zoneinfo import ZoneInfo

import pytest

from alerts.apprise_notifier import AppriseNotifier
from alerts.dispatch import send_pending
from alerts.outbox import save_pending_alerts
from alerts.quiet import QuietHours, held_channels, parse_quiet_hours
from alerts.rules import match_rules
from alerts.settings import AppriseChannel
from tests.support.deals import add_listings, make_deal, make_rule
from tests.support.webhook_server import running_webhook_server

BERLIN = ZoneInfo("Europe/Berlin")
NIGHT = parse_quiet_hours("23:00-07:00")


@pytest.mark.parametrize(
    ("local", "held"),
    [("22:59", False), ("23:00", True), ("03:30", True), ("06:59", True), ("07:00", False)],
)
def test_a_window_across_midnight_holds_from_its_start_to_its_end(local, held):
    hour, minute = (int(x) for x in local.split(":"))
    assert NIGHT.holds(datetime(2026, 11, 20, hour, minute, tzinfo=BERLIN)) is held


def test_a_window_within_the_day_holds_only_inside_it():
    lunch = parse_quiet_hours("12:00-13:30")
    assert lunch == QuietHours(time(12), time(13, 30))
    assert lunch.holds(datetime(2026, 11, 20, 13, 0, tzinfo=BERLIN))
    assert not lunch.holds(datetime(2026, 11, 20, 13, 30, tzinfo=BERLIN))


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("11pm-7am", "expected a time range"),
        ("23:00-24:00", "hours run 00-23"),
        ("07:00-07:00", "start and end at the same minute"),
    ],
)
def test_a_malformed_window_says_what_is_wrong(text, why):
    with pytest.raises(ValueError, match=why):
        parse_quiet_hours(text)


def test_the_hours_are_the_users_not_utc():
    # 22:30 UTC is 23:30 in Berlin in November: quiet there, not in London.
    now = datetime(2026, 11, 20, 22, 30, tzinfo=UTC)
    quiet = {"phone": NIGHT, "mail": None}

    assert held_channels(quiet, now=now, zone=BERLIN) == {
        "phone": "quiet hours 23:00-07:00 (Europe/Berlin): held until 07:00"
    }
    assert held_channels(quiet, now=now, zone=ZoneInfo("Europe/London")) == {}


def test_held_alerts_stay_pending_and_go_out_after_the_quiet(session, now):
    add_listings(session, [1], now)
    save_pending_alerts(
        session, match_rules([make_deal(1)], [make_rule(channels=("phone",))]), now=now
    )
    session.commit()
    with running_webhook_server() as server:
        url = f"json://127.0.0.1:{server.url.rsplit(':', 1)[1]}/hook"
        phone = {"phone": AppriseNotifier(AppriseChannel("phone", (url,), ("X",)))}
        night = send_pending(session, phone, now=now, held={"phone": "quiet hours"})
        posted_at_night = len(server.posts)
        morning = send_pending(session, phone, now=now)

    assert night.held == {"phone": "quiet hours"} and night.sent == {}
    assert posted_at_night == 0
    assert morning.sent == {"phone": 1}
    assert len(server.delivered) == 1
