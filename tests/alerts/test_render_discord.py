"""Discord posts: inert listing text, mentions that ping nobody, and Discord's size limits."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest

from alerts.render_discord import (
    embed_size,
    escape_markdown,
    render_discord_batches,
    render_discord_payloads,
    units,
)
from core.models import BuyingFormat
from tests.support.deals import HOSTILE_TITLE, make_deal

ZWSP = "\u200b"


def _limits_hold(payload: dict[str, Any]) -> None:
    embeds = payload["embeds"]
    assert payload["allowed_mentions"] == {"parse": []}
    assert 1 <= len(embeds) <= 10
    assert units(payload["content"]) <= 2000
    assert sum(embed_size(e) for e in embeds) <= 6000
    for embed in embeds:
        assert units(embed["title"]) <= 256
        assert units(embed["description"]) <= 4096
        assert len(embed["fields"]) <= 25
        for field in embed["fields"]:
            assert units(field["name"]) <= 256
            assert units(field["value"]) <= 1024


def _urls(payloads: list[dict[str, Any]]) -> list[str]:
    return [embed["url"] for payload in payloads for embed in payload["embeds"]]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("**bold** __under__ ~~strike~~", r"\*\*bold\*\* \_\_under\_\_ \~\~strike\~\~"),
        ("`code` ||spoiler|| > quote", r"\`code\` \|\|spoiler\|\| \> quote"),
        ("[click](https://evil.example)", r"\[click\]\(https://evil.example\)"),
        ("# heading \\ slash", r"\# heading \\ slash"),
        ("@everyone @here", f"@{ZWSP}everyone @{ZWSP}here"),
        ("<@123> <@!456> <@&789>", f"<@{ZWSP}123\\> <@{ZWSP}!456\\> <@{ZWSP}&789\\>"),
    ],
)
def test_markdown_is_escaped_and_mentions_are_broken(text, expected):
    assert escape_markdown(text) == expected


def test_a_hostile_title_can_ping_nobody_and_formats_nothing():
    deal = make_deal(title=HOSTILE_TITLE, reason="@here **now** <@&123>")

    (payload,) = render_discord_payloads([deal], username="rigscout")
    embed = payload["embeds"][0]
    text = embed["title"] + embed["description"] + payload["content"]

    assert payload["allowed_mentions"] == {"parse": []}
    assert not re.search(r"@(everyone|here)|<@[!&]?\d", text)
    assert r"\*\*bold\*\*" in embed["title"]
    assert embed["title"] == (
        r"<script\>alert\(1\)</script\> @" + ZWSP + r"everyone \*\*bold\*\* <@" + ZWSP + r"&123\>"
    )


def test_an_embed_carries_link_price_discount_reason_and_thumbnail():
    (payload,) = render_discord_payloads([make_deal()], username="rigscout")
    embed = payload["embeds"][0]

    assert embed["url"] == "https://www.ebay.com/itm/1001"
    assert embed["thumbnail"] == {"url": "https://i.ebayimg.com/images/g/abc/s-l500.jpg"}
    assert embed["description"] == "31 % under the 30-day sold median of 12 sales"
    assert {f["name"]: f["value"] for f in embed["fields"]} == {
        "Landed unit price": "$180.00",
        "Discount": r"31 % under market \(12 sold\), strong evidence",
        "SKU": "Tesla V100 SXM2 16GB",
    }
    assert payload["username"] == "rigscout"


@pytest.mark.parametrize(
    ("changes", "price", "discount"),
    [
        (
            {
                "buying_format": BuyingFormat.AUCTION,
                "price_basis": "predicted",
                "landed_unit_price": Decimal("132.00"),
                "current_bid": Decimal("108.00"),
                "predicted_low": Decimal("125.00"),
                "predicted_high": Decimal("140.00"),
                "discount": 0.49,
                "evidence": "thin",
            },
            r"likely $125.00–$140.00 \(current bid $108.00\)",
            r"49 % under market \(12 sold\), thin evidence",
        ),
        (
            {"freight_estimated": True},
            "$180.00 incl. estimated freight",
            r"31 % under market \(12 sold\), strong evidence",
        ),
        (
            {"landed_unit_price": Decimal("171.00"), "previous_price": Decimal("190.00")},
            r"was $190.00, now $171.00 \(−10 %\)",
            r"31 % under market \(12 sold\), strong evidence",
        ),
        (
            {"baseline_source": "asking", "baseline_count": 6, "evidence": "asking"},
            "$180.00",
            r"31 % under market \(6 asking\), asking evidence",
        ),
    ],
)
def test_an_embed_shows_a_predicted_estimated_or_dropped_price_and_its_evidence(
    changes, price, discount
):
    (payload,) = render_discord_payloads([make_deal(**changes)], username="rigscout")
    fields = {f["name"]: f["value"] for f in payload["embeds"][0]["fields"]}

    assert fields["Landed unit price"] == price
    assert fields["Discount"] == discount


@pytest.mark.parametrize("url", ["javascript:alert(1)", "ftp://x/y", ""])
def test_links_that_are_not_plain_http_are_left_out(url):
    (payload,) = render_discord_payloads([make_deal(url=url, image_url=url)], username="r")

    assert "url" not in payload["embeds"][0]
    assert "thumbnail" not in payload["embeds"][0]


@pytest.mark.parametrize(
    ("title", "reason", "min_posts"),
    [
        ("Tesla V100 SXM2 16GB", "31 % under the market", 3),
        ("V100 " * 80, "long reason " * 500, 5),
        ("🚀*" * 200, "🚀_" * 3000, 5),
    ],
)
def test_25_deals_split_into_posts_within_every_limit_each_deal_once(title, reason, min_posts):
    deals = [make_deal(i, title=f"{i} {title}", reason=reason) for i in range(1, 26)]

    payloads = render_discord_payloads(deals, username="rigscout")

    assert len(payloads) >= min_posts
    for payload in payloads:
        _limits_hold(payload)
    assert _urls(payloads) == [deal.url for deal in deals]


def test_batches_are_the_deals_of_each_post():
    deals = [make_deal(i, reason="x" * 900) for i in range(1, 26)]

    batches = render_discord_batches(deals)
    payloads = render_discord_payloads(deals, username="rigscout")

    assert [len(b) for b in batches] == [len(p["embeds"]) for p in payloads]
    assert [d for batch in batches for d in batch] == deals


@pytest.mark.parametrize("title", ["*" * 1000, "a" * 255 + "\\" * 10, "🚀" * 300])
def test_a_long_title_is_cut_without_a_dangling_escape(title):
    (payload,) = render_discord_payloads([make_deal(title=title)], username="rigscout")
    cut = payload["embeds"][0]["title"]

    assert units(cut) <= 256
    assert cut.endswith("…")
    body = cut[:-1]
    assert (len(body) - len(body.rstrip("\\"))) % 2 == 0


def test_direction_controls_in_a_title_are_dropped_from_every_message():
    """A right-to-left override in a title would turn the rest of a message around."""
    from alerts.render_email import render_plain

    title = "NVIDIA Tesla P40 \u202estnuoc\u2066 ereh\u200f"
    deal = make_deal(title=title, location="\u202eShenzhen")
    (payload,) = render_discord_payloads([deal], username="rigscout")
    texts = [payload["embeds"][0]["title"], render_plain([deal])]
    for text in texts:
        assert not re.search("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]", text)
    assert "stnuoc ereh" in texts[0]
