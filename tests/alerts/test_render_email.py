"""The email a user receives: plain text and an HTML table, with nothing from a listing live."""

from __future__ import annotations

import email
import email.policy
from decimal import Decimal
from typing import TYPE_CHECKING

import pytest

from alerts.format import format_discount, format_landed
from alerts.render_email import render_email_digest, render_subject
from core.models import BuyingFormat
from tests.support.deals import HOSTILE_TITLE, make_deal

if TYPE_CHECKING:
    from email.message import EmailMessage

    from core.models import Deal


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
    assert "$180.00" in parts["text/html"]
    assert "31 % under market (12 sold), strong evidence" in parts["text/html"]
    assert (
        "Tesla V100 SXM2 16GB · $180.00 landed per unit · "
        "31 % under market (12 sold), strong evidence"
    ) in parts["text/plain"]


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
        (
            1,
            "rigscout: Tesla V100 SXM2 16GB at $180.00 "
            "(31 % under market (12 sold), strong evidence)",
        ),
        (3, "rigscout: 3 new deals, from $150.00"),
    ],
)
def test_the_subject_names_the_single_deal_or_counts_several(count, expected):
    deals = [
        make_deal(i, landed_unit_price=150 + 10 * (i - 1) if count > 1 else 180)
        for i in range(1, count + 1)
    ]

    assert render_subject(deals) == expected


AUCTION = {
    "buying_format": BuyingFormat.AUCTION,
    "price_basis": "predicted",
    "landed_unit_price": "132.00",
    "current_bid": Decimal("108.00"),
    "predicted_low": Decimal("125.00"),
    "predicted_high": Decimal("140.00"),
}


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, "$180.00"),
        (AUCTION, "likely $125.00–$140.00 (current bid $108.00)"),
        ({**AUCTION, "predicted_high": Decimal("125.00")},
         "likely $125.00 (current bid $108.00)"),
        ({**AUCTION, "predicted_low": Decimal("1250"), "predicted_high": Decimal("1400")},
         "likely $1,250–$1,400 (current bid $108.00)"),
        ({"freight_estimated": True}, "$180.00 incl. estimated freight"),
        ({**AUCTION, "freight_estimated": True},
         "likely $125.00–$140.00 (current bid $108.00) incl. estimated freight"),
        ({"previous_price": Decimal("200.00")}, "was $200.00, now $180.00 (−10 %)"),
        ({"landed_unit_price": "1500", "previous_price": Decimal("1999.99")},
         "was $2,000, now $1,500 (−25 %)"),
        ({"previous_price": Decimal("200.00"), "freight_estimated": True},
         "was $200.00, now $180.00 incl. estimated freight (−10 %)"),
        # Not a drop: a previous price at or below today's says nothing.
        ({"previous_price": Decimal("180.00")}, "$180.00"),
        ({"previous_price": Decimal("150.00")}, "$180.00"),
        # A fixed-price listing shows its price even if a range was left on it.
        ({"predicted_low": Decimal("125.00"), "predicted_high": Decimal("140.00")}, "$180.00"),
    ],
)  # fmt: skip
def test_the_landed_price_reads_as_predicted_estimated_or_dropped(changes, expected):
    assert format_landed(make_deal(**changes)) == expected


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({}, "31 % under market (12 sold), strong evidence"),
        ({"discount": -0.08, "evidence": "thin", "baseline_count": 4},
         "8 % over market (4 sold), thin evidence"),
        ({"baseline_source": "asking", "baseline_count": 6, "evidence": "asking"},
         "31 % under market (6 asking), asking evidence"),
        ({"discount": None, "baseline": None, "evidence": "none"}, "no market price yet"),
        ({"reference": (("chassis", Decimal("780"), "market"),), "baseline_count": 5,
          "evidence": "thin"}, "31 % under like-for-like (5 sold), thin evidence"),
    ],
)  # fmt: skip
def test_the_discount_names_its_evidence(changes, expected):
    assert format_discount(make_deal(**changes)) == expected


def test_an_auction_mail_shows_its_likely_end_not_a_fixed_price():
    deal = make_deal(**AUCTION, freight_estimated=True, discount=0.49, evidence="thin")

    subject = render_subject([deal])
    parts = _parts(_roundtrip([deal], subject=subject))

    landed = "likely $125.00–$140.00 (current bid $108.00) incl. estimated freight"
    assert subject == (
        f"rigscout: Tesla V100 SXM2 16GB at {landed} (49 % under market (12 sold), thin evidence)"
    )
    assert f"Tesla V100 SXM2 16GB · {landed} landed per unit · 49 % under" in parts["text/plain"]
    assert f">{landed}</td>" in parts["text/html"]
    assert "$132.00" not in subject + parts["text/plain"] + parts["text/html"]


def test_a_price_drop_mail_says_what_it_was_and_what_it_is_now():
    deal = make_deal(landed_unit_price="171.00", previous_price=Decimal("190.00"))

    subject = render_subject([deal])
    parts = _parts(_roundtrip([deal], subject=subject))

    drop = "was $190.00, now $171.00 (−10 %)"
    assert subject.startswith(f"rigscout: Tesla V100 SXM2 16GB at {drop} (31 % under market")
    assert f"· {drop} landed per unit ·" in parts["text/plain"]
    assert f">{drop}</td>" in parts["text/html"]


@pytest.mark.parametrize(
    ("url", "link"),
    [
        ("https://me.example/rigscout/", '<a href="https://me.example/rigscout/">'),
        ("file:///srv/rigscout/index.html", "Today's report: file:///srv/rigscout/index.html"),
        (None, None),
    ],
)
def test_the_digest_links_the_morning_report_when_it_has_an_address(url, link):
    message = render_email_digest(
        [make_deal(1)],
        sender="rigscout@example.com",
        recipients=["me@example.com"],
        subject="rigscout: deals",
        report_url=url,
    )
    parts = _parts(email.message_from_bytes(message.as_bytes(), policy=email.policy.default))

    if url is None:
        assert "report" not in parts["text/plain"] and "report" not in parts["text/html"]
    else:
        assert f"Today's report (all deals and price history): {url}" in parts["text/plain"]
        assert link in parts["text/html"]
        assert url.startswith("https") or '<a href="file:' not in parts["text/html"]
