"""The apprise channel, end to end: apprise itself posts to a real endpoint on 127.0.0.1.

apprise's generic ``json://`` scheme and its ``ntfy://`` scheme are pointed at a loopback
server that records each POST and can answer 429, 500 or 403; what arrived there is the
evidence. Through the outbox: once per deal per channel, kept pending while the service is
down, and sent once when it is back.
"""

from __future__ import annotations

import contextlib
from datetime import timedelta

import pytest
from sqlalchemy import select

from alerts.apprise_notifier import AppriseNotifier
from alerts.channels import channel_from_section, missing_secrets, secret_values
from alerts.channels.apprise import AppriseChannelSection
from alerts.dispatch import send_pending, send_test_message
from alerts.outbox import save_pending_alerts
from alerts.rules import match_rules
from alerts.settings import AppriseChannel
from core.errors import AlertError
from core.models import Flag
from core.secrets import redact
from db.models import AlertRow
from tests.support.deals import HOSTILE_TITLE, add_listings, make_deal, make_rule
from tests.support.smtp_server import closed_port
from tests.support.webhook_server import Reply, running_webhook_server

TOKEN = "tk_9f8e7d6c5b4a3210"


def channel(url: str, *, mode: str = "instant", name: str = "phone") -> AppriseChannel:
    return AppriseChannel(name, (url,), ("RIGSCOUT_NTFY_URL",), mode=mode, timeout=5.0)


def json_url(server, token: str = TOKEN) -> str:
    return f"json://127.0.0.1:{server.url.rsplit(':', 1)[1]}/hook?token={token}"


def notifier(url: str, **kwargs) -> AppriseNotifier:
    return AppriseNotifier(channel(url, **kwargs), sleep=lambda _: None)


def test_each_deal_arrives_as_a_short_message_with_price_reason_flags_and_link():
    deal = make_deal(1, flags=(Flag("ships_from_abroad", "ships from Hong Kong", "warn"),))
    with running_webhook_server() as server:
        notifier(json_url(server)).send([deal, make_deal(2, landed_unit_price="150")])

    first, second = server.delivered
    assert first["title"] == "rigscout: Tesla V100 SXM2 16GB at $180.00"
    assert first["message"].splitlines() == [
        "NVIDIA Tesla V100 SXM2 16GB HBM2 GPU",
        "$180.00 landed per unit · 31 % under market (12 sold), strong evidence",
        "31 % under the 30-day sold median of 12 sales",
        "Check: ships from abroad",
        "https://www.ebay.com/itm/1001",
    ]
    assert second["title"] == "rigscout: Tesla V100 SXM2 16GB at $150.00"


def test_ntfy_urls_work_the_same_way():
    with running_webhook_server(Reply(200, {})) as server:
        port = server.url.rsplit(":", 1)[1]
        notifier(f"ntfy://127.0.0.1:{port}/gpu-deals-{TOKEN}").send([make_deal(1)])

    [body] = server.delivered
    assert body["topic"] == f"gpu-deals-{TOKEN}"
    assert "$180.00 landed per unit" in body["message"]


def test_a_hostile_title_can_neither_mention_nor_format():
    deal = make_deal(1, title=HOSTILE_TITLE + " [click](https://evil.example)")
    with running_webhook_server() as server:
        notifier(json_url(server)).send([deal])

    text = server.delivered[0]["message"]
    assert "@everyone" not in text and "<script>" not in text
    assert "**bold**" not in text and "](" not in text
    # Still readable: only zero-width spaces were added.
    assert text.splitlines()[0].replace("\u200b", "") == deal.title


def test_a_digest_channel_sends_one_message_per_run():
    deals = [make_deal(i, landed_unit_price=str(200 - i)) for i in range(1, 4)]
    with running_webhook_server() as server:
        notify = notifier(json_url(server), mode="digest")
        assert [len(b) for b in notify.batches(deals)] == [3]
        notify.send(deals)

    [body] = server.delivered
    assert body["title"] == "rigscout: 3 deal(s), from $197.00"
    assert [line for line in body["message"].splitlines() if "/itm/" in line] == [
        d.url for d in deals
    ]


def test_a_rate_limit_or_server_error_is_retried_then_delivered():
    with running_webhook_server(Reply(429), Reply(500)) as server:
        notifier(json_url(server)).send([make_deal(1)])

    assert [p.status for p in server.posts] == [429, 500, 204]
    assert len(server.delivered) == 1


def test_a_service_that_keeps_failing_gives_up_after_bounded_retries():
    with (
        running_webhook_server(*[Reply(500)] * 10) as server,
        pytest.raises(AlertError, match="failed after 4 attempts") as caught,
    ):
        notifier(json_url(server)).send([make_deal(1)])

    assert len(server.posts) == 4
    assert caught.value.channel == "phone"


def test_a_refusal_fails_at_once():
    with running_webhook_server(Reply(403)) as server, pytest.raises(AlertError, match="refused"):
        notifier(json_url(server)).send([make_deal(1)])

    assert len(server.posts) == 1


def test_an_unknown_scheme_is_a_clear_error():
    with pytest.raises(AlertError, match=r"RIGSCOUT_NTFY_URL is not one apprise can use"):
        notifier("nosuchservice://abc").send([make_deal(1)])


def test_tokens_in_the_urls_never_appear_in_errors_or_reprs():
    url = f"json://127.0.0.1:{closed_port()}/hook/{TOKEN}?token={TOKEN}"
    section = AppriseChannelSection(type="apprise", urls_env="RIGSCOUT_NTFY_URL")
    settings = channel_from_section("phone", section, {"RIGSCOUT_NTFY_URL": url})
    secrets = secret_values([settings])
    notify = AppriseNotifier(settings, sleep=lambda _: None)

    with pytest.raises(AlertError) as caught:
        notify.send([make_deal(1)])

    assert TOKEN in secrets
    for text in (str(caught.value), repr(notify), repr(settings), *notify.preview([make_deal(1)])):
        assert TOKEN not in redact(text, secrets)


def test_channel_settings_read_several_urls_from_the_environment():
    section = AppriseChannelSection(
        type="apprise", urls_env=["RIGSCOUT_NTFY_URL", "RIGSCOUT_TG_URL"], mode="digest"
    )
    env = {"RIGSCOUT_NTFY_URL": "ntfy://a/t1, ntfy://b/t2", "RIGSCOUT_TG_URL": "tgram://x/y"}

    settings = channel_from_section("phone", section, env)
    unset = channel_from_section("phone", section, {})

    assert settings.urls == ("ntfy://a/t1", "ntfy://b/t2", "tgram://x/y")
    assert settings.mode == "digest"
    assert missing_secrets({"phone": unset}) == [
        "alert channel 'phone': environment variable RIGSCOUT_NTFY_URL or RIGSCOUT_TG_URL is not set"
    ]


def test_the_test_message_arrives():
    with running_webhook_server() as server:
        send_test_message(notifier(json_url(server)))

    [body] = server.delivered
    assert body["title"] == "rigscout: test message, this channel works"
    assert "$0.00" not in body["message"] and "no market price" not in body["message"]


def test_through_the_outbox_a_down_service_keeps_its_alerts_until_it_is_back(session, now):
    add_listings(session, [1, 2], now)
    deals = [make_deal(1), make_deal(2, landed_unit_price="150")]
    rule = make_rule(channels=("phone",))
    down = {"phone": notifier(f"json://127.0.0.1:{closed_port()}/hook")}

    save_pending_alerts(session, match_rules(deals, [rule]), now=now)
    session.commit()
    failed = send_pending(session, down, now=now)
    with running_webhook_server() as server:
        back = {"phone": notifier(json_url(server))}
        later = now + timedelta(hours=1)
        save_pending_alerts(session, match_rules(deals, [rule]), now=later)
        session.commit()
        sent = send_pending(session, back, now=later)
        again = send_pending(session, back, now=later)

    assert "phone" in failed.failed and failed.sent == {"phone": 0}
    assert sent.sent == {"phone": 2} and again.sent == {}
    assert [b["title"] for b in server.delivered] == [
        "rigscout: Tesla V100 SXM2 16GB at $180.00",
        "rigscout: Tesla V100 SXM2 16GB at $150.00",
    ]
    statuses = session.scalars(select(AlertRow.status).order_by(AlertRow.listing_id)).all()
    assert statuses == ["sent", "sent"]


def test_a_telegram_url_is_accepted_and_its_bot_token_is_masked():
    bot = "123456789:AAF-secret-bot-token"
    url = f"tgram://{bot}/987654321"
    section = AppriseChannelSection(type="apprise", urls_env="RIGSCOUT_TELEGRAM_URL")
    settings = channel_from_section("phone", section, {"RIGSCOUT_TELEGRAM_URL": url})
    notify = AppriseNotifier(settings, sleep=lambda _: None)

    [preview] = notify.preview([make_deal(1)])  # apprise parsed the URL: no error

    assert bot in secret_values([settings])
    assert preview.startswith("apprise message to tgram://")
    assert "secret-bot-token" not in redact(preview, secret_values([settings]))


def test_a_short_ntfy_topic_and_a_url_login_s_basic_header_are_masked():
    """An ntfy topic is the secret however short; a login in a URL travels as a Basic header
    a server may echo at -vv."""
    import base64

    urls = "ntfys://ntfy.sh/k7q2,json://bob:hunter22@hooks.test/in"
    section = AppriseChannelSection(type="apprise", urls_env="URLS")
    settings = channel_from_section("phone", section, {"URLS": urls})
    secrets = secret_values([settings])
    basic = base64.b64encode(b"bob:hunter22").decode()
    echoed = f"topic k7q2 is reserved; Authorization: Basic {basic}"
    assert redact(echoed, secrets) == "topic *** is reserved; Authorization: Basic ***"


@pytest.mark.slow
def test_a_service_that_never_finishes_its_answer_cannot_keep_the_process_alive(tmp_path):
    """apprise gives up on a service after the channel's timeout but leaves its worker thread
    blocked; a server that answers a byte every half second would then keep `rigscout` (a cron
    job) running for ever after it reported the channel failed."""
    import os
    import socket
    import subprocess
    import sys
    import threading
    import time

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    done = threading.Event()

    def drip(conn: socket.socket) -> None:
        with contextlib.suppress(OSError), conn:
            conn.recv(65536)
            for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"a" * 1000:
                if done.is_set():
                    return
                conn.send(bytes([byte]))
                time.sleep(0.5)

    def serve() -> None:
        with contextlib.suppress(OSError):
            while not done.is_set():
                conn, _ = listener.accept()
                threading.Thread(target=drip, args=(conn,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    config = tmp_path / "rigscout.toml"
    config.write_text(
        '[alerts.channels.phone]\ntype = "apprise"\nurls_env = "SLOW_URL"\ntimeout = 2\n',
        encoding="utf-8",
    )
    env = {**os.environ, "SLOW_URL": f"json://127.0.0.1:{port}/hook"}
    started = time.monotonic()
    try:
        result = subprocess.run(
            [sys.executable, "-m", "rigscout", "--config", str(config), "alerts", "test"],
            env=env, capture_output=True, text=True, timeout=90, check=False,
        )  # fmt: skip
    finally:
        done.set()
        listener.close()
    assert result.returncode == 1, result.stderr
    assert "phone: FAILED" in result.stderr and "did not finish within" in result.stderr
    assert time.monotonic() - started < 60  # four tries of 2 s and their waits, then out
