"""The alerts outbox: one row per listing per channel, moving pending -> sending -> sent.

``save_pending_alerts`` enqueues matched deals with a JSON snapshot of each deal, so that
sending needs nothing but the outbox. A listing already sent on a channel is enqueued
again only after its landed unit price fell by ``price_drop`` below the last sent price.
The outbox's queries and its claim/sent/release steps are in ``db/outbox.py``; the rules of
what is worth sending are here.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import TYPE_CHECKING

from core.deal_json import deal_from_json, deal_to_json
from core.errors import AlertError
from db.models import AlertRow
from db.outbox import PENDING, load_last_sent, load_open_alert

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence
    from datetime import datetime

    from sqlalchemy.orm import Session

    from alerts.rules import Match
    from alerts.settings import AlertRule
    from core.models import Deal

CENT = Decimal("0.01")


def rule_channels(rule: AlertRule) -> Sequence[str]:
    """The channels a rule names (the default ``channels_of``)."""
    return rule.channels


def save_pending_alerts(
    session: Session,
    matches: Iterable[Match],
    *,
    channels_of: Callable[[AlertRule], Sequence[str]] = rule_channels,
    price_drop: Decimal = Decimal("0.05"),
    now: datetime,
    run_id: int | None = None,
) -> int:
    """Enqueue each matched listing once per channel; return how many new rows were added.

    An open (pending or in-flight) row for the same listing and channel is refreshed with
    the new price instead of getting a twin. Flushes; the caller commits (or, for a dry
    run, rolls back).
    """
    wanted: dict[tuple[int, str], Match] = {}
    for match in matches:
        for channel in channels_of(match.rule):
            wanted.setdefault((match.deal.listing_id, channel), match)
    created = 0
    for (listing_id, channel), match in wanted.items():
        row = load_open_alert(session, listing_id, channel)
        if row is not None:
            _fill(row, match, run_id)
        elif _worth_sending(
            match.deal, last := load_last_sent(session, listing_id, channel), price_drop
        ):
            row = AlertRow(listing_id=listing_id, channel=channel, status=PENDING, attempts=0)
            row.created_at = now
            was = last.landed_unit_price if last and last.currency == match.deal.currency else None
            _fill(row, match, run_id, was=was)
            session.add(row)
            created += 1
    session.flush()
    return created


def _worth_sending(deal: Deal, last: AlertRow | None, price_drop: Decimal) -> bool:
    if last is None or last.currency != deal.currency:
        return True
    threshold = (last.landed_unit_price * (1 - price_drop)).quantize(CENT, ROUND_HALF_UP)
    return _cents(deal.landed_unit_price) <= threshold


def _fill(row: AlertRow, match: Match, run_id: int | None, *, was: Decimal | None = None) -> None:
    """Point the row at the deal; a price drop keeps the price last sent (``was``)."""
    if was is None and row.payload:
        was_text = row.payload.get("previous_price")
        was = Decimal(str(was_text)) if was_text is not None else None
    row.rule = match.rule.name[:100]
    row.landed_unit_price = _cents(match.deal.landed_unit_price)
    row.currency = match.deal.currency
    row.run_id = run_id
    row.payload = deal_to_json(replace(match.deal, previous_price=was))


def _cents(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, ROUND_HALF_UP)


def parse_snapshot(payload: dict[str, object], *, alert_id: int | None = None) -> Deal:
    """The ``Deal`` stored as ``deal_to_json``; ``AlertError`` when it cannot be read."""
    try:
        return deal_from_json(payload)
    except (KeyError, TypeError, ValueError, InvalidOperation) as exc:
        raise AlertError(f"alert {alert_id}: unreadable payload ({exc!r})") from exc
