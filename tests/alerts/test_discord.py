"""Discord alerts against a real local webhook endpoint: what it receives, 429s and 5xx."""

from __future__ import annotations

import re

import httpx
import pytest

from alerts.discord import DiscordNotifier
from alerts.dispatch import send_test_message
from alerts.settings import DiscordChannel
from core.errors import AlertError
from tests.support.deals import HOSTILE_TITLE, make_deal
from tests.support.smtp_server import closed_port
from tests.support.webhook_server import Reply, running_webhook_server

TOKEN = "s3cret-token"


@pytest.fixture
def client():
    with httpx.Client() as c:
        yield c


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def _notifier(url: str, client: httpx.Client, sleeps: Sleeps | None = None) -> DiscordNotifier:
    channel = DiscordChannel(name="discord", webhook_url=url, username="rigscout", timeout=5.0)
    return DiscordNotifier(channel, client, sleep=sleeps if sleeps is not None else Sleeps())


def test_deals_arrive_as_embeds_split_into_posts_that_ping_nobody(client):
    deals = [make_deal(i, title=f"{HOSTILE_TITLE} #{i}") for i in range(1, 26)]

    with running_webhook_server() as server:
        _notifier(server.webhook_url(TOKEN), client).send(deals)

    assert [p.path for p in server.posts] == [f"/api/webhooks/1234/{TOKEN}"] * 3
    bodies = server.delivered
    assert [len(b["embeds"]) for b in bodies] == [10, 10, 5]
    assert all(b["allowed_mentions"] == {"parse": []} for b in bodies)
    assert [e["url"] for b in bodies for e in b["embeds"]] == [d.url for d in deals]
    assert not any("@everyone" in e["title"] for b in bodies for e in b["embeds"])


@pytest.mark.parametrize(
    ("first_reply", "expected_wait"),
    [
        (Reply(429, {"message": "You are being rate limited.", "retry_after": 0.25}), 0.25),
        (Reply(429, None, {"Retry-After": "2"}), 2.0),
        (Reply(429, {"retry_after": "soon"}, {"Retry-After": "1.5"}), 1.5),
        (Reply(500), 1.0),
        (Reply(503), 1.0),
    ],
)
def test_a_rate_limit_or_server_error_is_waited_out_then_delivered(
    client, first_reply, expected_wait
):
    sleeps = Sleeps()

    with running_webhook_server(first_reply, Reply(204)) as server:
        _notifier(server.webhook_url(), client, sleeps).send([make_deal()])

    assert [p.status for p in server.posts] == [first_reply.status, 204]
    assert server.delivered[0] == server.posts[0].json
    assert sleeps == [expected_wait]


def test_a_server_that_keeps_failing_gives_up_after_bounded_retries(client):
    sleeps = Sleeps()

    with running_webhook_server(*[Reply(500)] * 10) as server:
        url = server.webhook_url(TOKEN)
        with pytest.raises(AlertError, match="discord: webhook failed after 4 attempts: HTTP 500"):
            _notifier(url, client, sleeps).send([make_deal()])

    assert len(server.posts) == 4
    assert sleeps == [1.0, 2.0, 4.0]


def test_a_rate_limit_longer_than_a_minute_fails_the_channel_at_once(client):
    with (
        running_webhook_server(Reply(429, {"retry_after": 3600})) as server,
        pytest.raises(AlertError, match="rate-limited for 3600 s"),
    ):
        _notifier(server.webhook_url(), client).send([make_deal()])

    assert len(server.posts) == 1


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (Reply(404, {"message": "Unknown Webhook", "code": 10015}), "HTTP 404 (Unknown Webhook)"),
        (Reply(401, {"message": "Invalid Webhook Token"}), "HTTP 401 (Invalid Webhook Token)"),
        (Reply(400, None), "HTTP 400"),
    ],
)
def test_a_refusal_fails_at_once_without_retrying(client, reply, expected):
    sleeps = Sleeps()

    with (
        running_webhook_server(reply) as server,
        pytest.raises(AlertError, match=re.escape(f"webhook refused the post: {expected}")),
    ):
        _notifier(server.webhook_url(), client, sleeps).send([make_deal()])

    assert len(server.posts) == 1
    assert sleeps == []


def test_the_webhook_url_never_appears_in_errors_or_reprs(client):
    with running_webhook_server() as server:
        url = server.webhook_url(TOKEN)
        server.script.append(Reply(400, {"message": f"bad webhook {url} (token {TOKEN})"}))
        notifier = _notifier(url, client)
        with pytest.raises(AlertError) as refused:
            notifier.send([make_deal()])
    down = _notifier(f"http://127.0.0.1:{closed_port()}/api/webhooks/1/{TOKEN}", client)
    with pytest.raises(AlertError, match=r"network error \(ConnectError\)") as unreachable:
        down.send([make_deal()])

    assert "bad webhook http://127.0.0.1:" in str(refused.value)
    for text in (str(refused.value), str(unreachable.value), repr(notifier), repr(down)):
        assert TOKEN not in text


@pytest.mark.parametrize(
    "url", [f"discord.com/api/webhooks/1/{TOKEN}", f"ftp://discord.com/api/webhooks/1/{TOKEN}"]
)
def test_a_malformed_webhook_url_fails_at_once_and_stays_secret(client, url):
    sleeps = Sleeps()

    with pytest.raises(AlertError, match=r"webhook URL is not usable") as caught:
        _notifier(url, client, sleeps).send([make_deal()])

    assert sleeps == []
    assert TOKEN not in str(caught.value)


def test_the_test_message_arrives(client):
    with running_webhook_server() as server:
        send_test_message(_notifier(server.webhook_url(), client))

    (body,) = server.delivered
    assert body["allowed_mentions"] == {"parse": []}
    assert body["embeds"][0]["title"] == "rigscout test message: this channel works"
    assert body["content"].startswith("A test message from rigscout")


def test_a_webhook_that_redirects_elsewhere_gets_nothing_sent_there(client):
    """A post answered with a redirect to another host is a refusal: the deals are never
    re-posted to that host, and the channel does not report them sent."""
    with running_webhook_server() as elsewhere:
        away = Reply(307, headers={"Location": elsewhere.webhook_url("stolen")})
        with (
            running_webhook_server(away) as server,
            pytest.raises(AlertError, match="HTTP 307"),
        ):
            _notifier(server.webhook_url(), client).send([make_deal()])
    assert len(server.posts) == 1
    assert elsewhere.posts == []
