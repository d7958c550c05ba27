"""Render deals as an email: a plain-text part and an HTML table, ready for SMTP.

Pure. Every string that comes from a listing is HTML-escaped, and nothing from a listing
reaches a header unflattened (a title with CR/LF cannot inject headers).
"""

from __future__ import annotations

import html
from email.message import EmailMessage
from email.utils import format_datetime
from typing import TYPE_CHECKING

from alerts.format import (
    TEST,
    TEST_HEADLINE,
    format_discount,
    format_landed,
    format_unit,
    lead_line,
    one_line,
    safe_url,
)
from core import fmt

if TYPE_CHECKING:
    from collections.abc import Sequence
    from datetime import datetime

    from core.models import Deal

SUBJECT_LIMIT = 150
_CELL = 'style="padding:6px 10px;border-bottom:1px solid #ddd;vertical-align:top"'


def render_email_digest(
    deals: Sequence[Deal],
    *,
    sender: str,
    recipients: Sequence[str],
    subject: str,
    sent_at: datetime | None = None,
    message_id: str | None = None,
    report_url: str | None = None,
) -> EmailMessage:
    """One multipart/alternative message listing ``deals`` (plain text first, then HTML).

    ``sent_at`` and ``message_id`` become the ``Date`` and ``Message-ID`` headers that mail
    clients and spam filters expect (the notifier passes the clock's time and a fresh id);
    ``report_url`` (``[report] url``) adds a link to the morning report.
    """
    message = EmailMessage()
    message["Subject"] = one_line(subject, SUBJECT_LIMIT)
    message["From"] = one_line(sender)
    message["To"] = ", ".join(one_line(r) for r in recipients)
    if sent_at is not None:
        message["Date"] = format_datetime(sent_at)
    if message_id is not None:
        message["Message-ID"] = one_line(message_id)
    message.set_content(render_plain(deals, report_url=report_url))
    message.add_alternative(render_html(deals, report_url=report_url), subtype="html")
    return message


def render_subject(deals: Sequence[Deal]) -> str:
    """``rigscout: Tesla V100 SXM2 16GB at 180.00 USD`` for one deal, a count for several."""
    if len(deals) == 1 and deals[0].price_basis == TEST:
        return TEST_HEADLINE
    if len(deals) == 1:
        deal = deals[0]
        return one_line(
            f"rigscout: {deal.sku_name} at {format_landed(deal)} ({format_discount(deal)})"
        )
    best = min(deals, key=lambda d: d.landed_unit_price, default=None)
    lead = f", from {fmt.money(best.landed_unit_price, best.currency)}" if best else ""
    return one_line(f"rigscout: {len(deals)} new deals{lead}")


def render_plain(deals: Sequence[Deal], *, report_url: str | None = None) -> str:
    """The text/plain part: one short block per deal, then the report's address."""
    blocks = [f"{lead_line(deals)}.", ""]
    for deal in deals:
        blocks += [
            f"* {one_line(deal.title)}",
            f"  {one_line(deal.sku_name)} · {format_landed(deal)} {format_unit(deal)}"
            f" · {format_discount(deal)}",
            f"  {one_line(deal.reason)}",
            f"  {safe_url(deal.url) or '(no link)'}",
            "",
        ]
    if report_url:
        blocks.append(f"Today's report (all deals and price history): {one_line(report_url)}")
    return "\n".join(blocks)


def render_html(deals: Sequence[Deal], *, report_url: str | None = None) -> str:
    """The text/html part: a table of deals with price, discount, reason and link."""
    head = "".join(
        f"<th {_CELL} align=left>{name}</th>"
        for name in ("Deal", "Landed unit price", "Discount", "Why")
    )
    rows = "\n".join(_html_row(deal) for deal in deals)
    return (
        '<!DOCTYPE html>\n<html><body style="font-family:sans-serif">\n'
        f"<p>{html.escape(lead_line(deals))}.</p>\n"
        f'<table style="border-collapse:collapse">\n<tr>{head}</tr>\n{rows}\n</table>\n'
        f"{_report_link(report_url)}</body></html>\n"
    )


def _html_row(deal: Deal) -> str:
    e = html.escape
    title = e(one_line(deal.title))
    url = safe_url(deal.url)
    link = f'<a href="{e(url)}">{title}</a>' if url else title
    image = safe_url(deal.image_url)
    thumb = (
        f'<img src="{e(image)}" alt="" width="64" style="float:left;margin-right:8px">'
        if image
        else ""
    )
    cells = (
        f"{thumb}{link}<br><small>{e(one_line(deal.sku_name))}</small>",
        e(format_landed(deal)),
        e(format_discount(deal)),
        e(one_line(deal.reason)),
    )
    return "<tr>" + "".join(f"<td {_CELL}>{cell}</td>" for cell in cells) + "</tr>"


def _report_link(url: str | None) -> str:
    """A paragraph linking the morning report (an http(s) link; other addresses as text)."""
    if not url:
        return ""
    link = safe_url(url)
    if link is None:
        return f"<p>Today's report: {html.escape(one_line(url))}</p>\n"
    return (
        f'<p><a href="{html.escape(link)}">Today\'s report: all deals and price history</a></p>\n'
    )
