"""The alerts outbox: one row per listing per channel, moving pending -> sending -> sent.

``save_pending_alerts`` enqueues matched deals with a JSON snapshot of each deal, so that
sending needs nothing but the outbox. A listing already sent on a channel is enqueued
again only after its landed unit price fell by ``price_drop`` below the last sent price.
The outbox's queries and its claim/sent/release steps are in ``db/outbox.py``; the rules of
what is worth sending are here.
"""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import datetime
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import TYPE_CHECKING

from core.errors import AlertError
from core.models import BuyingFormat, Category, Deal, Flag, ServerConfig
from db.models import AlertRow
from db.outbox import PENDING, load_last_sent, load_open_alert

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from sqlalchemy.orm import Session

    from alerts.rules import Match
    from alerts.settings import AlertRule

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
    row.payload = render_snapshot(replace(match.deal, previous_price=was))


def _cents(amount: Decimal) -> Decimal:
    return amount.quantize(CENT, ROUND_HALF_UP)


def render_snapshot(deal: Deal) -> dict[str, object]:
    """The deal as JSON-safe values (Decimals and datetimes as strings)."""
    return {
        "listing_id": deal.listing_id,
        "item_id": deal.item_id,
        "marketplace": deal.marketplace,
        "title": deal.title,
        "url": deal.url,
        "sku": deal.sku,
        "sku_name": deal.sku_name,
        "category": deal.category.value,
        "quantity": deal.quantity,
        "buying_format": deal.buying_format.value,
        "landed_unit_price": str(deal.landed_unit_price),
        "currency": deal.currency,
        "shipping_known": deal.shipping_known,
        "score": _finite(deal.score),
        "reason": deal.reason,
        "discount": _finite(deal.discount),
        "baseline": None if deal.baseline is None else str(deal.baseline),
        "baseline_count": deal.baseline_count,
        "baseline_source": deal.baseline_source,
        "end_time": None if deal.end_time is None else deal.end_time.isoformat(),
        "image_url": deal.image_url,
        "metrics": {k: v for k, v in deal.metrics.items() if math.isfinite(v)},
        "price_basis": deal.price_basis,
        "current_bid": _text(deal.current_bid),
        "predicted_low": _text(deal.predicted_low),
        "predicted_high": _text(deal.predicted_high),
        "evidence": deal.evidence,
        "flags": [{"code": f.code, "label": f.label, "severity": f.severity} for f in deal.flags],
        "freight_estimated": deal.freight_estimated,
        "needs_host": deal.needs_host,
        "previous_price": _text(deal.previous_price),
        "seller": deal.seller,
        "seller_feedback": deal.seller_feedback,
        "location": deal.location,
        "config": deal.config.as_json() if deal.config else None,
        "config_text": deal.config_text,
        "gpus_included": deal.gpus_included,
        "reference": [
            {"label": label, "amount": str(amount), "source": source}
            for label, amount, source in deal.reference
        ],
    }


def _text(amount: Decimal | None) -> str | None:
    return None if amount is None else str(amount)


def _amount(value: object) -> Decimal | None:
    return None if value is None else Decimal(str(value))


def _finite(value: float | None) -> float | None:
    # PostgreSQL's JSON type rejects NaN and Infinity.
    return value if value is not None and math.isfinite(value) else None


def parse_snapshot(payload: dict[str, object], *, alert_id: int | None = None) -> Deal:
    """The ``Deal`` stored by ``render_snapshot``; ``AlertError`` when it cannot be read."""
    try:
        return _deal_from(dict(payload))
    except (KeyError, TypeError, ValueError, InvalidOperation) as exc:
        raise AlertError(f"alert {alert_id}: unreadable payload ({exc!r})") from exc


def _deal_from(p: dict[str, object]) -> Deal:
    baseline, end_time, discount = p.get("baseline"), p.get("end_time"), p.get("discount")
    score = p.get("score")
    return Deal(
        listing_id=int(str(p["listing_id"])),
        item_id=str(p["item_id"]),
        marketplace=str(p["marketplace"]),
        title=str(p["title"]),
        url=str(p["url"]),
        sku=str(p["sku"]),
        sku_name=str(p["sku_name"]),
        category=Category(str(p["category"])),
        quantity=int(str(p["quantity"])),
        buying_format=BuyingFormat(str(p["buying_format"])),
        landed_unit_price=Decimal(str(p["landed_unit_price"])),
        currency=str(p["currency"]),
        shipping_known=bool(p["shipping_known"]),
        score=float(str(score)) if score is not None else math.nan,
        reason=str(p["reason"]),
        discount=float(str(discount)) if discount is not None else None,
        baseline=Decimal(str(baseline)) if baseline is not None else None,
        baseline_count=int(str(p.get("baseline_count", 0))),
        baseline_source=str(p["baseline_source"]) if p.get("baseline_source") else None,
        end_time=datetime.fromisoformat(str(end_time)) if end_time else None,
        image_url=str(p["image_url"]) if p.get("image_url") else None,
        metrics=_metrics(p.get("metrics")),
        price_basis=str(p.get("price_basis", "fixed")),
        current_bid=_amount(p.get("current_bid")),
        predicted_low=_amount(p.get("predicted_low")),
        predicted_high=_amount(p.get("predicted_high")),
        evidence=str(p.get("evidence", "none")),
        flags=_flags(p.get("flags")),
        freight_estimated=bool(p.get("freight_estimated", False)),
        needs_host=str(p["needs_host"]) if p.get("needs_host") else None,
        previous_price=_amount(p.get("previous_price")),
        seller=str(p["seller"]) if p.get("seller") else None,
        seller_feedback=_count(p.get("seller_feedback")),
        location=str(p["location"]) if p.get("location") else None,
        config=ServerConfig.from_json(_dict(p.get("config"))),
        config_text=str(p["config_text"]) if p.get("config_text") else None,
        gpus_included=_count(p.get("gpus_included")) or 0,
        reference=_reference(p.get("reference")),
    )


def _dict(value: object) -> dict[str, object] | None:
    return value if isinstance(value, dict) else None


def _reference(value: object) -> tuple[tuple[str, Decimal, str], ...]:
    if not isinstance(value, list):
        return ()
    return tuple(
        (str(line["label"]), Decimal(str(line["amount"])), str(line["source"]))
        for line in value
        if isinstance(line, dict)
    )


def _count(value: object) -> int | None:
    return None if value is None else int(str(value))


def _flags(value: object) -> tuple[Flag, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(
        Flag(str(f["code"]), str(f["label"]), str(f["severity"]))
        for f in value
        if isinstance(f, dict)
    )


def _metrics(value: object) -> dict[str, float]:
    if not isinstance(value, dict):
        return {}
    return {str(k): float(v) for k, v in value.items() if isinstance(v, int | float)}
