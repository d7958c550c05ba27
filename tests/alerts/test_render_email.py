"""The email a user receives: plain text and an HTML table, with nothing from a listing live."""

from __future__ import annotations

import email
import email.policy
from typing import TYPE_CHECKING

import pytest

from alerts.render_email import render_email_digest, render_subject
from tests.alerts.factories import HOSTILE_TITLE, make_deal

if TYPE_CHECKING:
    from email.message import EmailMessage

    from rigscout.models import Deal


def _roundtrip(deals: list[Deal], subject: str = "rigscout: deals") -> EmailMessage:
    message = render_email_digest(
        deals, sender="rigscout@example.com", recipients=["me@example.com"], subject=subject
    )
    return email.message_from_bytes(message.as_bytes(), policy=email.policy.default)


def _parts(parsed: EmailMessage) -> dict[str, str]:
    return {part.get_content_type(): part.get_content() for part in parsed.iter_parts()}


def test_a_digest_has_a_plain_text_part_and_an_html_table_with_one_row_per_deal():
    deals = [make_deal(i, title=f"Tesla V100 SXM2 #{i}") for i in range(1, 4)]

    parsed = _roundtrip(deals)
    parts = _parts(parsed)

    assert parsed.get_content_type() == "multipart/alternative"
    assert set(parts) == {"text/plain", "text/html"}
    for deal in deals:
        assert deal.title in parts["text/plain"]
        assert deal.url in parts["text/plain"]
        assert f'<a href="{deal.url}">{deal.title}</a>' in parts["text/html"]
    assert parts["text/html"].count("<tr>") == len(deals) + 1
    assert "180.00 USD" in parts["text/html"]
    assert "31 % under market (12 sold)" in parts["text/html"]


def test_a_hostile_title_reason_and_sku_name_are_escaped_in_the_html():
    deal = make_deal(title=HOSTILE_TITLE, reason="<b>cheap</b> & good", sku_name="V100 <i>x</i>")

    html = _parts(_roundtrip([deal]))["text/html"]

    assert "<script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;b&gt;cheap&lt;/b&gt; &amp; good" in html
    assert "V100 &lt;i&gt;x&lt;/i&gt;" in html


@pytest.mark.parametrize(
    ("url", "image_url"),
    [
        ("javascript:alert(1)", "data:image/png;base64,AAAA"),
        ('https://www.ebay.com/itm/1"onmouseover="alert(1)', 'https://i.ebayimg.com/a"onerror="x'),
    ],
)
def test_links_that_are_not_plain_http_are_not_rendered(url, image_url):
    html = _parts(_roundtrip([make_deal(url=url, image_url=image_url)]))["text/html"]

    assert "href=" not in html
    assert "<img" not in html
    assert "onmouseover" not in html
    assert "onerror" not in html


@pytest.mark.parametrize(
    "title",
    [
        "V100 SXM2\r\nBcc: victim@example.com",
        "V100 SXM2\nContent-Type: text/html",
        "V100\u2028Bcc: victim@example.com",
    ],
)
def test_a_title_with_line_breaks_cannot_inject_headers(title):
    deal = make_deal(title=title, sku_name=title)

    parsed = _roundtrip([deal], subject=render_subject([deal]))

    assert parsed["Bcc"] is None
    assert len(parsed.get_all("Content-Type") or []) == 1
    assert "\n" not in str(parsed["Subject"])
    assert str(parsed["Subject"]).startswith("rigscout: V100")


@pytest.mark.parametrize(
    ("count", "expected"),
    [
        (1, "rigscout: Tesla V100 SXM2 16GB at 180.00 USD (31 % under market (12 sold))"),
        (3, "rigscout: 3 new deals, from 150.00 USD"),
    ],
)
def test_the_subject_names_the_single_deal_or_counts_several(count, expected):
    deals = [
        make_deal(i, landed_unit_price=150 + 10 * (i - 1) if count > 1 else 180)
        for i in range(1, count + 1)
    ]

    assert render_subject(deals) == expected
