"""Email alerts against a real SMTP server on 127.0.0.1: what arrives, and how failures read."""

from __future__ import annotations

import ssl
import time
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import pytest

from alerts.dispatch import send_test_message
from alerts.email import EmailNotifier
from alerts.settings import SmtpChannel
from core.errors import AlertError
from core.models import BuyingFormat
from tests.support.deals import HOSTILE_TITLE, make_deal
from tests.support.smtp_server import (
    closed_port,
    running_smtp_server,
    self_signed_certificate,
    server_tls_context,
    trickling_smtp_server,
)

if TYPE_CHECKING:
    from email.message import EmailMessage

PASSWORD = "hunter2-very-secret"


def _channel(port: int, **changes: Any) -> SmtpChannel:
    options: dict[str, Any] = {
        "name": "mail",
        "host": "127.0.0.1",
        "port": port,
        "sender": "rigscout@example.com",
        "recipients": ("me@example.com", "you@example.com"),
        "security": "none",
        "timeout": 5.0,
    }
    return SmtpChannel(**(options | changes))


@pytest.fixture(scope="module")
def certificate(tmp_path_factory):
    return self_signed_certificate(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def client_context(certificate):
    return ssl.create_default_context(cafile=str(certificate[0]))


def _bodies(message: EmailMessage) -> dict[str, str]:
    return {part.get_content_type(): part.get_content() for part in message.iter_parts()}


def test_a_digest_arrives_as_one_mail_with_plain_and_html_parts():
    deals = [make_deal(i, title=f"Tesla V100 SXM2 lot {i}") for i in range(1, 4)]
    deals.append(make_deal(4, title=HOSTILE_TITLE))

    with running_smtp_server() as server:
        EmailNotifier(_channel(server.port)).send(deals)

    (received,) = server.received
    bodies = _bodies(received.message)
    assert received.mail_from == "rigscout@example.com"
    assert received.rcpt_tos == ["me@example.com", "you@example.com"]
    assert received.message["Subject"] == "rigscout: 4 new deals, from $180.00"
    assert set(bodies) == {"text/plain", "text/html"}
    assert all(deal.url in bodies["text/html"] for deal in deals)
    assert "<script>" not in bodies["text/html"]
    assert "&lt;script&gt;" in bodies["text/html"]


def test_instant_mode_sends_one_mail_per_deal():
    deals = [make_deal(i, sku_name=f"GPU {i}") for i in range(1, 4)]

    with running_smtp_server() as server:
        EmailNotifier(_channel(server.port, mode="instant")).send(deals)

    # A subject this long is folded onto its own continuation line on the wire; mail readers
    # drop the folding whitespace, Python's parser keeps one leading space.
    subjects = [str(r.message["Subject"]).lstrip() for r in server.received]
    assert subjects == [
        f"rigscout: GPU {i} at $180.00 (31 % under market (12 sold), strong evidence)"
        for i in (1, 2, 3)
    ]


def test_an_auction_with_estimated_freight_arrives_as_its_likely_end():
    deal = make_deal(
        buying_format=BuyingFormat.AUCTION,
        price_basis="predicted",
        landed_unit_price=Decimal("132.00"),
        current_bid=Decimal("108.00"),
        predicted_low=Decimal("125.00"),
        predicted_high=Decimal("140.00"),
        freight_estimated=True,
        discount=0.49,
        evidence="thin",
    )

    with running_smtp_server() as server:
        EmailNotifier(_channel(server.port, mode="instant")).send([deal])

    (received,) = server.received
    landed = "likely $125.00–$140.00 (current bid $108.00) incl. estimated freight"
    subject = str(received.message["Subject"]).lstrip()
    # The subject is cut to 150 characters, so the evidence tier at its end may not fit.
    assert subject.startswith(f"rigscout: Tesla V100 SXM2 16GB at {landed} (49 % under market")
    assert len(subject) <= 150
    assert "$132.00" not in subject
    bodies = _bodies(received.message)
    assert (
        f"{landed} landed per unit · 49 % under market (12 sold), thin evidence"
        in bodies["text/plain"]
    )
    assert landed in bodies["text/html"]


def test_a_title_with_line_breaks_adds_no_header_on_the_wire():
    deal = make_deal(
        title="V100\r\nBcc: victim@example.com", sku_name="V100\r\nBcc: victim@example.com"
    )

    with running_smtp_server() as server:
        EmailNotifier(_channel(server.port, mode="instant")).send([deal])

    (received,) = server.received
    assert received.message["Bcc"] is None
    header_lines = received.raw.split(b"\r\n\r\n", 1)[0].split(b"\r\n")
    assert not [line for line in header_lines if line.lower().startswith(b"bcc")]
    assert received.rcpt_tos == ["me@example.com", "you@example.com"]


def test_it_logs_in_when_a_username_is_set():
    with running_smtp_server(credentials=("alice", PASSWORD)) as server:
        EmailNotifier(_channel(server.port, username="alice", password=PASSWORD)).send(
            [make_deal()]
        )

    assert server.logins == ["alice"]
    assert len(server.received) == 1


def test_starttls_upgrades_before_login(certificate, client_context):
    tls = server_tls_context(*certificate)
    with running_smtp_server(credentials=("alice", PASSWORD), starttls=tls) as server:
        channel = _channel(server.port, security="starttls", username="alice", password=PASSWORD)
        EmailNotifier(channel, ssl_context=client_context).send([make_deal()])

    assert server.logins == ["alice"]
    assert len(server.received) == 1


def test_ssl_speaks_tls_from_the_first_byte(certificate, client_context):
    with running_smtp_server(implicit_tls=server_tls_context(*certificate)) as server:
        notifier = EmailNotifier(_channel(server.port, security="ssl"), ssl_context=client_context)
        notifier.send([make_deal()])

    assert len(server.received) == 1


def test_a_certificate_we_do_not_trust_fails_the_channel(certificate):
    with running_smtp_server(starttls=server_tls_context(*certificate)) as server:
        notifier = EmailNotifier(_channel(server.port, security="starttls"))
        with pytest.raises(AlertError, match="CERTIFICATE_VERIFY_FAILED"):
            notifier.send([make_deal()])

    assert server.received == []


@pytest.mark.parametrize(
    ("server_options", "login", "expected"),
    [
        ({"refuse": True}, {}, r"mail: SMTP 127\.0\.0\.1:\d+ failed: 554 5\.7\.1 Message refused"),
        (
            {"credentials": ("alice", "other")},
            {"username": "alice", "password": PASSWORD},
            r"mail: SMTP 127\.0\.0\.1:\d+ failed: 535 5\.7\.8",
        ),
    ],
)
def test_a_refusing_server_raises_an_alert_error_without_the_password(
    server_options, login, expected
):
    with running_smtp_server(**server_options) as server:
        notifier = EmailNotifier(_channel(server.port, **login))
        with pytest.raises(AlertError, match=expected) as caught:
            notifier.send([make_deal()])

    assert caught.value.channel == "mail"
    assert PASSWORD not in str(caught.value)
    assert server.received == []


def test_a_server_that_is_down_raises_an_alert_error():
    notifier = EmailNotifier(_channel(closed_port(), username="alice", password=PASSWORD))

    with pytest.raises(AlertError, match="ConnectionRefusedError") as caught:
        notifier.send([make_deal()])

    assert PASSWORD not in str(caught.value)
    assert PASSWORD not in repr(notifier)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"security": "tls"}, "mail: security must be one of starttls, ssl, none, not 'tls'"),
        ({"mode": "daily"}, "mail: mode must be instant or digest, not 'daily'"),
    ],
)
def test_an_unknown_security_or_mode_is_a_clear_error(changes, expected):
    with pytest.raises(AlertError, match=expected):
        EmailNotifier(_channel(25, **changes))


def test_the_test_message_arrives():
    with running_smtp_server() as server:
        send_test_message(EmailNotifier(_channel(server.port)))

    (received,) = server.received
    # A sample, not a deal: no "$0.00", no "no market price yet".
    assert received.message["Subject"] == "rigscout: test message, this channel works"
    text = _bodies(received.message)["text/plain"]
    assert "rigscout alerts test" in text
    assert "0.00" not in text and "no market" not in text
    assert text.startswith("A test message from rigscout: this channel works")
    assert "matched your alert rules" not in text


def test_non_ascii_titles_arrive_intact():
    title = "Tesla V100 — 16 GB « SXM2 » 🚀 Grafikkarte"

    with running_smtp_server() as server:
        EmailNotifier(_channel(server.port, mode="instant")).send(
            [make_deal(title=title, sku_name="V100 « SXM2 »")]
        )

    (received,) = server.received
    assert received.message["Subject"].startswith("rigscout: V100 « SXM2 » at $180.00")
    assert title in _bodies(received.message)["text/plain"]


def test_a_busy_server_is_retried_and_messages_already_accepted_are_not_sent_twice():
    """Immediate mode, three mails; the server answers the second one "451 try again later"."""
    deals = [make_deal(i, title=f"Tesla P40 #{i}") for i in range(1, 4)]
    waits: list[float] = []
    with running_smtp_server(busy={2}) as server:
        notifier = EmailNotifier(_channel(server.port, mode="instant"), sleep=waits.append)
        notifier.send(deals)
        bodies = [r.raw for r in server.received]
    assert len(bodies) == 3 == len(set(bodies))
    assert waits == [2.0]  # the smtp policy's first backoff


def test_a_server_busy_every_time_fails_after_the_policy_s_attempts():
    waits: list[float] = []
    with running_smtp_server(busy=range(1, 10)) as server:
        notifier = EmailNotifier(_channel(server.port), sleep=waits.append)
        with pytest.raises(AlertError, match="failed after 3 attempts: 451") as caught:
            notifier.send([make_deal()])
    assert caught.value.channel == "mail"
    assert waits == [2.0, 4.0]


def test_a_server_greeting_a_byte_at_a_time_is_cut_at_the_timeout_and_retried():
    """Each byte comes well within the timeout, so only a whole-step deadline can end it."""
    waits: list[float] = []
    with trickling_smtp_server(seconds_per_byte=0.2) as server:
        notifier = EmailNotifier(_channel(server.port, timeout=1.0), sleep=waits.append)
        started = time.monotonic()
        with pytest.raises(AlertError, match=r"failed after 3 attempts: .*within the 1 s timeout"):
            notifier.send([make_deal()])
        elapsed = time.monotonic() - started
    assert server.connections == 3
    assert 3.0 <= elapsed < 5.0  # three tries of 1 s, not three greetings of 10 s
    assert waits == [2.0, 4.0]
