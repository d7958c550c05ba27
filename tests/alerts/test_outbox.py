"""The outbox decides what is worth sending: once per listing per channel, again after a drop."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING

import pytest
from sqlalchemy import select

from alerts.outbox import parse_snapshot, save_pending_alerts
from alerts.rules import Match
from db.models import AlertRow
from db.outbox import load_claim, save_sending, save_sent
from tests.support.deals import add_listings, make_deal, make_rule

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from alerts.settings import AlertRule


def _outbox(session: Session) -> list[tuple[int, str, str, Decimal]]:
    session.expire_all()
    rows = session.scalars(
        select(AlertRow).order_by(AlertRow.listing_id, AlertRow.channel, AlertRow.id)
    )
    return [(r.listing_id, r.channel, r.status, r.landed_unit_price) for r in rows]


def _sent_at(
    session: Session, price: str, now: datetime, *, channels: tuple[str, ...] = ("mail",)
) -> AlertRule:
    """Listing 1 was alerted at ``price`` on ``channels`` in an earlier run."""
    add_listings(session, [1], now)
    rule = make_rule(channels=channels)
    save_pending_alerts(session, [Match(make_deal(landed_unit_price=price), rule)], now=now)
    session.commit()
    for channel in channels:
        save_sent(session, load_claim(session, channel).rows, now=now)
    return rule


def test_each_matched_listing_is_enqueued_once_per_channel_of_its_rules(session, now):
    add_listings(session, [1, 2], now)
    deals = [make_deal(1), make_deal(2, landed_unit_price="150")]
    both, mail_only = (
        make_rule(channels=("mail", "discord")),
        make_rule(name="m", channels=("mail",)),
    )
    matches = [Match(d, r) for d in deals for r in (both, mail_only)]

    created = save_pending_alerts(session, matches, now=now, run_id=None)
    session.commit()

    assert created == 4
    assert _outbox(session) == [
        (1, "discord", "pending", Decimal("180.00")),
        (1, "mail", "pending", Decimal("180.00")),
        (2, "discord", "pending", Decimal("150.00")),
        (2, "mail", "pending", Decimal("150.00")),
    ]


def test_a_listing_still_pending_gets_its_price_refreshed_not_a_twin(session, now):
    add_listings(session, [1], now)
    rule = make_rule(channels=("mail",))
    save_pending_alerts(session, [Match(make_deal(landed_unit_price="180"), rule)], now=now)
    session.commit()

    created = save_pending_alerts(
        session, [Match(make_deal(landed_unit_price="172.5", title="new title"), rule)], now=now
    )
    session.commit()

    assert created == 0
    assert _outbox(session) == [(1, "mail", "pending", Decimal("172.50"))]
    (row,) = session.scalars(select(AlertRow))
    assert row.payload["title"] == "new title"


@pytest.mark.parametrize(
    ("price_drop", "new_price", "alerted_again"),
    [
        ("0.05", "200.00", False),
        ("0.05", "210.00", False),
        ("0.05", "190.01", False),
        ("0.05", "190.00", True),
        ("0.05", "120.00", True),
        ("0.10", "185.00", False),
        ("0.10", "180.00", True),
    ],
)
def test_a_sent_listing_is_enqueued_again_only_after_the_price_drops_enough(
    session, now, price_drop, new_price, alerted_again
):
    rule = _sent_at(session, "200.00", now, channels=("mail", "discord"))
    match = Match(make_deal(landed_unit_price=new_price), rule)

    created = save_pending_alerts(session, [match], price_drop=Decimal(price_drop), now=now)
    session.commit()

    assert created == (2 if alerted_again else 0)
    pending = [row for row in _outbox(session) if row[2] == "pending"]
    assert len(pending) == created


def test_a_listing_in_flight_is_refreshed_rather_than_queued_twice(session, now):
    add_listings(session, [1], now)
    rule = make_rule(channels=("mail",))
    save_pending_alerts(session, [Match(make_deal(), rule)], now=now)
    session.commit()
    save_sending(session, load_claim(session, "mail").rows)

    created = save_pending_alerts(
        session, [Match(make_deal(landed_unit_price="100"), rule)], now=now
    )
    session.commit()

    assert created == 0
    assert _outbox(session) == [(1, "mail", "sending", Decimal("100.00"))]


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {
            "discount": None,
            "baseline": None,
            "baseline_source": None,
            "image_url": None,
            "end_time": datetime(2026, 11, 21, 18, 30, tzinfo=UTC),
            "metrics": {"tflops_fp16_per_dollar": 0.72},
            "title": "Tesla V100 — 16 GB « SXM2 » 🚀",
            "landed_unit_price": "1234.5678",
        },
    ],
)
def test_the_stored_snapshot_gives_back_the_deal(session, now, changes):
    add_listings(session, [1], now)
    deal = make_deal(**changes)
    save_pending_alerts(session, [Match(deal, make_rule(channels=("mail",)))], now=now)
    session.commit()
    session.expire_all()

    (row,) = session.scalars(select(AlertRow))

    assert parse_snapshot(row.payload) == deal


def test_a_score_that_is_not_a_number_is_stored_and_read_back_as_nan(session, now):
    add_listings(session, [1], now)
    save_pending_alerts(session, [Match(make_deal(score=math.nan), make_rule())], now=now)
    session.commit()
    session.expire_all()

    rows = session.scalars(select(AlertRow)).all()

    assert rows
    assert all(math.isnan(parse_snapshot(row.payload).score) for row in rows)
