"""Sending the outbox to real local SMTP and webhook servers: exactly once in practice.

What arrived at the servers is the evidence: mails the SMTP server accepted and bodies the
webhook endpoint answered 2xx.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from alerts.channels import build_notifiers
from alerts.discord import DiscordNotifier
from alerts.dispatch import DispatchReport, Notifier, send_pending
from alerts.email import EmailNotifier
from alerts.outbox import save_pending_alerts
from alerts.rules import match_rules
from alerts.settings import AlertRule, DiscordChannel, SmtpChannel
from db.models import AlertRow
from tests.support.deals import add_listings, make_deal, make_rule
from tests.support.smtp_server import Received, SmtpServer, closed_port, running_smtp_server
from tests.support.webhook_server import Reply, WebhookServer, running_webhook_server

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from core.models import Deal

RULE = make_rule(channels=("mail", "discord"))


@dataclass
class Rig:
    """Both channels, each backed by a real local server."""

    smtp: SmtpServer
    webhook: WebhookServer
    client: httpx.Client

    def mail(self, port: int | None = None, mode: str = "digest") -> EmailNotifier:
        return EmailNotifier(self.mail_channel(port, mode))

    def mail_channel(self, port: int | None = None, mode: str = "digest") -> SmtpChannel:
        return SmtpChannel(
            name="mail",
            host="127.0.0.1",
            port=port or self.smtp.port,
            sender="rigscout@example.com",
            recipients=("me@example.com",),
            security="none",
            mode=mode,
            timeout=5.0,
        )

    def discord(self) -> DiscordNotifier:
        channel = DiscordChannel(name="discord", webhook_url=self.webhook.webhook_url())
        return DiscordNotifier(channel, self.client, sleep=lambda _: None)

    def both(self) -> dict[str, Notifier]:
        return {"mail": self.mail(), "discord": self.discord()}

    def mailed_urls(self) -> list[list[str]]:
        """The listing links of each mail that arrived, from its plain-text part."""
        return [
            [line.strip() for line in _plain(r).splitlines() if "/itm/" in line]
            for r in self.smtp.received
        ]

    def posted_urls(self) -> list[list[str]]:
        return [[e["url"] for e in body["embeds"]] for body in self.webhook.delivered]


def _plain(received: Received) -> str:
    body = received.message.get_body(("plain",))
    assert body is not None
    return str(body.get_content())


@pytest.fixture
def rig():
    with ExitStack() as stack:
        smtp = stack.enter_context(running_smtp_server())
        webhook = stack.enter_context(running_webhook_server())
        client = stack.enter_context(httpx.Client())
        yield Rig(smtp, webhook, client)


def _run(
    session: Session,
    deals: list[Deal],
    notifiers: Mapping[str, Notifier],
    now: datetime,
    rule: AlertRule = RULE,
) -> DispatchReport:
    """One daily run's alert step: match, enqueue, commit, send."""
    save_pending_alerts(session, match_rules(deals, [rule]), now=now)
    session.commit()
    return send_pending(session, notifiers, now=now)


def _statuses(session: Session) -> list[tuple[str, int, str, int]]:
    session.expire_all()
    rows = session.scalars(select(AlertRow).order_by(AlertRow.channel, AlertRow.listing_id))
    return [(r.channel, r.listing_id, r.status, r.attempts) for r in rows]


def _url(i: int) -> str:
    return make_deal(i).url


def test_each_deal_is_alerted_once_per_channel_across_two_runs(session, now, rig):
    add_listings(session, [1, 2], now)
    deals = [make_deal(1), make_deal(2, landed_unit_price="150")]

    first = _run(session, deals, rig.both(), now)
    second = _run(session, deals, rig.both(), now + timedelta(days=1))

    assert first.sent == {"discord": 2, "mail": 2}
    assert first.ok
    assert second.sent == {}
    assert rig.mailed_urls() == [[_url(1), _url(2)]]
    assert rig.posted_urls() == [[_url(1), _url(2)]]
    assert _statuses(session) == [
        ("discord", 1, "sent", 1),
        ("discord", 2, "sent", 1),
        ("mail", 1, "sent", 1),
        ("mail", 2, "sent", 1),
    ]


def test_a_listing_is_alerted_again_only_after_its_price_drops_5_percent(session, now, rig):
    add_listings(session, [1], now)
    prices = ["200.00", "195.00", "190.00", "189.00"]

    for day, price in enumerate(prices):
        _run(
            session, [make_deal(1, landed_unit_price=price)], rig.both(), now + timedelta(days=day)
        )

    mailed_prices = [_mailed_price(r) for r in rig.smtp.received]
    posted_prices = [body["embeds"][0]["fields"][0]["value"] for body in rig.webhook.delivered]
    # The re-alert says what the buyer was told last time and how far the price fell since.
    assert mailed_prices == ["$200.00", "was $200.00, now $190.00 (−5 %)"]
    assert posted_prices == ["$200.00", r"was $200.00, now $190.00 \(−5 %\)"]
    first, second = (_plain(r) for r in rig.smtp.received)
    assert "· $200.00 landed per unit ·" in first
    assert "was" not in first
    assert "· was $200.00, now $190.00 (−5 %) landed per unit ·" in second


def test_a_second_price_drop_is_measured_from_the_last_alert_sent(session, now, rig):
    add_listings(session, [1], now)
    prices = ["200.00", "180.00", "171.00", "150.00"]

    for day, price in enumerate(prices):
        _run(
            session, [make_deal(1, landed_unit_price=price)], rig.both(), now + timedelta(days=day)
        )

    assert [_mailed_price(r) for r in rig.smtp.received] == [
        "$200.00",
        "was $200.00, now $180.00 (−10 %)",
        "was $180.00, now $171.00 (−5 %)",
        "was $171.00, now $150.00 (−12 %)",
    ]
    assert [body["embeds"][0]["fields"][0]["value"] for body in rig.webhook.delivered][1:] == [
        r"was $200.00, now $180.00 \(−10 %\)",
        r"was $180.00, now $171.00 \(−5 %\)",
        r"was $171.00, now $150.00 \(−12 %\)",
    ]


def test_a_pending_price_drop_refreshed_before_sending_keeps_the_price_last_sent(session, now, rig):
    add_listings(session, [1], now)
    _run(session, [make_deal(1, landed_unit_price="200.00")], rig.both(), now)
    for price in ["180.00", "170.00"]:  # two runs enqueue before the channel sends
        save_pending_alerts(
            session, match_rules([make_deal(1, landed_unit_price=price)], [RULE]), now=now
        )
        session.commit()

    send_pending(session, rig.both(), now=now + timedelta(days=1))

    assert [_mailed_price(r) for r in rig.smtp.received] == [
        "$200.00",
        "was $200.00, now $170.00 (−15 %)",
    ]
    assert rig.webhook.delivered[1]["embeds"][0]["fields"][0]["value"] == (
        r"was $200.00, now $170.00 \(−15 %\)"
    )


def _mailed_price(received: Received) -> str:
    """The landed price as the mail's subject states it (single-deal subjects only).

    Whitespace is collapsed: Python's header folding can leave a double space where it
    folded before an encoded word (the "−" of a price drop).
    """
    subject = " ".join(str(received.message["Subject"]).split())
    return subject.split(" at ", 1)[1].rsplit(" (31 % under market", 1)[0]


@pytest.mark.parametrize("down", ["mail", "discord"])
def test_a_down_channel_keeps_its_alerts_for_the_next_run_and_the_other_is_unaffected(
    session, now, rig, down
):
    add_listings(session, [1, 2], now)
    deals = [make_deal(1), make_deal(2)]
    notifiers = rig.both()
    if down == "mail":
        notifiers["mail"] = rig.mail(port=closed_port())
    else:
        rig.webhook.script.extend([Reply(500)] * 4)
    up = "discord" if down == "mail" else "mail"

    failing = _run(session, deals, notifiers, now)

    assert failing.sent == {up: 2, down: 0}
    assert list(failing.failed) == [down]
    assert not failing.ok
    assert [s for s in _statuses(session) if s[0] == down] == [
        (down, 1, "pending", 1),
        (down, 2, "pending", 1),
    ]
    assert _last_errors(session, down) == {failing.failed[down]}

    recovered = _run(session, deals, rig.both(), now + timedelta(hours=1))

    assert recovered.sent == {down: 2}
    assert recovered.ok
    assert rig.mailed_urls() == [[_url(1), _url(2)]]
    assert rig.posted_urls() == [[_url(1), _url(2)]]
    assert {s[2] for s in _statuses(session)} == {"sent"}


def _last_errors(session: Session, channel: str) -> set[str | None]:
    rows = session.scalars(select(AlertRow).where(AlertRow.channel == channel))
    return {row.last_error for row in rows}


class KilledAfterSending:
    """A notifier whose process dies right after its ``kill_on``-th message went out."""

    def __init__(self, inner: Notifier, kill_on: int) -> None:
        self.name, self.inner, self.kill_on, self.calls = inner.name, inner, kill_on, 0

    def batches(self, deals: Sequence[Deal]) -> list[tuple[Deal, ...]]:
        return self.inner.batches(deals)

    def preview(self, deals: Sequence[Deal]) -> list[str]:
        return self.inner.preview(deals)

    def send(self, deals: Sequence[Deal], *, note: str | None = None) -> None:
        self.calls += 1
        self.inner.send(deals, note=note)
        if self.calls == self.kill_on:
            raise KeyboardInterrupt


def test_a_run_killed_in_flight_repeats_at_most_the_message_in_flight(engine, now, rig):
    mail_only = make_rule(channels=("mail",))
    with Session(engine) as session:
        add_listings(session, [1, 2, 3, 4, 5], now)
        first = [make_deal(1), make_deal(2)]
        _run(session, first, {"mail": rig.mail(mode="instant")}, now, mail_only)
        killed = KilledAfterSending(rig.mail(mode="instant"), kill_on=2)
        with pytest.raises(KeyboardInterrupt):
            _run(session, [make_deal(i) for i in (3, 4, 5)], {"mail": killed}, now, mail_only)

    with Session(engine) as next_run:
        report = send_pending(next_run, {"mail": rig.mail(mode="instant")}, now=now)
        assert _statuses(next_run) == [
            ("mail", 1, "sent", 1),
            ("mail", 2, "sent", 1),
            ("mail", 3, "sent", 1),
            ("mail", 4, "sent", 2),  # the one message in flight when the run died
            ("mail", 5, "sent", 1),  # never left: sent once, as usual
        ]

    assert report.resent_in_flight == {"mail": 1}
    assert report.sent == {"mail": 2}
    delivered = [urls[0] for urls in rig.mailed_urls()]
    assert delivered == [_url(1), _url(2), _url(3), _url(4), _url(4), _url(5)]
    subjects = [str(r.message["Subject"]) for r in rig.smtp.received]
    assert subjects[4].startswith("[Repeated after an interruption")  # the repeat says so
    assert not any(subject.startswith("[") for subject in subjects[:4] + subjects[5:])


def test_a_run_killed_during_a_post_of_ten_repeats_that_post_marked_and_nothing_else(
    engine, now, rig
):
    """Discord posts up to ten deals at once: a kill while the first post is out leaves those
    ten in doubt. The next run posts them again headed "Repeated after an interruption" and
    the deals of the posts that never left as a normal post."""
    ids = list(range(1, 16))
    chat_only = make_rule(channels=("discord",))
    with Session(engine) as session:
        add_listings(session, ids, now)
        killed = KilledAfterSending(rig.discord(), kill_on=1)
        with pytest.raises(KeyboardInterrupt):
            _run(session, [make_deal(i) for i in ids], {"discord": killed}, now, chat_only)
    first = rig.webhook.delivered[0]
    in_doubt = len(first["embeds"])
    assert 1 < in_doubt < len(ids)

    with Session(engine) as next_run:
        report = send_pending(next_run, {"discord": rig.discord()}, now=now)
        attempts = [attempt for _, _, _, attempt in _statuses(next_run)]

    repeat, *rest = rig.webhook.delivered[1:]
    assert repeat["content"].startswith("⚠ Repeated after an interruption")
    assert len(repeat["embeds"]) == in_doubt
    assert not any("Repeated" in post["content"] for post in rest)
    assert sum(len(post["embeds"]) for post in rest) == len(ids) - in_doubt
    assert report.resent_in_flight == {"discord": in_doubt}
    assert attempts == [2] * in_doubt + [1] * (len(ids) - in_doubt)


def test_a_dry_run_shows_what_would_be_sent_and_changes_nothing(session, now, rig):
    add_listings(session, [1, 2, 3], now)
    _run(session, [make_deal(1)], rig.both(), now)
    save_pending_alerts(session, match_rules([make_deal(2), make_deal(3)], [RULE]), now=now)
    session.commit()
    before = _statuses(session)

    report = send_pending(session, rig.both(), now=now + timedelta(days=1), dry_run=True)
    session.rollback()

    assert report.dry_run
    assert {name: [d.listing_id for d in deals] for name, deals in report.would_send.items()} == {
        "discord": [2, 3],
        "mail": [2, 3],
    }
    assert len(report.previews["mail"]) == 1
    assert _url(2) in report.previews["mail"][0]
    assert _url(3) in report.previews["discord"][0]
    assert report.sent == {}
    assert _statuses(session) == before
    assert len(rig.smtp.received) == 1
    assert len(rig.webhook.posts) == 1


def test_a_dry_run_of_fresh_deals_leaves_the_outbox_empty(session, now, rig):
    add_listings(session, [1], now)
    save_pending_alerts(session, match_rules([make_deal(1)], [RULE]), now=now)

    report = send_pending(session, rig.both(), now=now, dry_run=True)
    session.rollback()

    assert sorted(report.would_send) == ["discord", "mail"]
    assert _statuses(session) == []
    assert rig.smtp.received == []
    assert rig.webhook.posts == []


def test_alerts_of_a_channel_no_longer_configured_stay_pending_and_are_reported(session, now, rig):
    add_listings(session, [1], now)
    save_pending_alerts(session, match_rules([make_deal(1)], [RULE]), now=now)
    session.commit()

    report = send_pending(session, {"mail": rig.mail()}, now=now)

    assert dict(report.unconfigured) == {"discord": 1}
    assert report.sent == {"mail": 1}
    assert _statuses(session) == [("discord", 1, "pending", 0), ("mail", 1, "sent", 1)]


def test_one_notifier_is_built_per_configured_channel(rig):
    channels = {
        "mail": rig.mail_channel(),
        "discord": DiscordChannel(name="discord", webhook_url=rig.webhook.webhook_url()),
    }

    notifiers = build_notifiers(channels, client=rig.client)

    assert {name: type(n) for name, n in notifiers.items()} == {
        "mail": EmailNotifier,
        "discord": DiscordNotifier,
    }
    assert all(n.name == name for name, n in notifiers.items())
