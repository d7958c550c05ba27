"""Send what the outbox holds, channel by channel, and report what went out and what failed.

Per channel: claim its open rows (commit), send them in the notifier's batches, record each
batch as sent (commit) right after it went out. A failing channel puts its unsent rows back
to pending and the others carry on. A run killed mid-send leaves rows "sending"; the next
run sends those again: at most the one message in flight can repeat, never the history.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import TYPE_CHECKING, Protocol

from alerts.format import TEST
from alerts.outbox import parse_snapshot
from core.errors import AlertError
from core.models import BuyingFormat, Category, Deal
from core.secrets import redact
from db.outbox import (
    SENDING,
    load_claim,
    load_open_alerts,
    load_open_channels,
    save_released,
    save_sending,
    save_sent,
)

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import datetime

    from sqlalchemy.orm import Session

    from db.models import AlertRow

log = logging.getLogger(__name__)
REPEATED = "Repeated after an interruption: this message may have reached you already"


class Notifier(Protocol):
    """A channel that can deliver deals. ``send`` raises ``AlertError`` when it fails."""

    name: str

    def send(self, deals: Sequence[Deal], *, note: str | None = None) -> None:
        """Deliver ``deals`` as one or more messages; ``note`` heads each of them."""
        ...

    def batches(self, deals: Sequence[Deal]) -> list[tuple[Deal, ...]]:
        """Split ``deals``, in order, into the groups that go out as one message each."""
        ...

    def preview(self, deals: Sequence[Deal]) -> list[str]:
        """The messages ``send`` would deliver, as text, without sending anything."""
        ...


@dataclass(frozen=True, slots=True)
class DispatchReport:
    """What one ``send_pending`` did. ``failed`` maps a channel to its error message."""

    sent: dict[str, int] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    resent_in_flight: dict[str, int] = field(default_factory=dict)
    # channels with alerts waiting but no notifier (removed from the config): how many wait
    unconfigured: Mapping[str, int] = field(default_factory=dict)
    dry_run: bool = False
    held: dict[str, str] = field(default_factory=dict)  # channel -> why (quiet hours)
    would_send: dict[str, tuple[Deal, ...]] = field(default_factory=dict)
    previews: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.failed

    @property
    def total_sent(self) -> int:
        return sum(self.sent.values())


def send_pending(
    session: Session,
    notifiers: Mapping[str, Notifier],
    *,
    now: datetime,
    dry_run: bool = False,
    held: Mapping[str, str] | None = None,
) -> DispatchReport:
    """Deliver every open alert of each channel in ``notifiers``.

    Channels with open alerts but no notifier keep them and are listed as ``unconfigured``.
    ``held`` names channels in their quiet hours (with the reason): their alerts stay pending
    for a later run, untouched. ``dry_run`` renders what would be sent and changes nothing.
    """
    held = dict(held or {})
    unconfigured = {
        name: count
        for name, count in sorted(load_open_channels(session).items())
        if name not in notifiers
    }
    waiting = {name: notifier for name, notifier in notifiers.items() if name not in held}
    for name, why in held.items():
        log.info("alerts: %s: %s", name, why)
    if dry_run:
        return replace(_preview(session, waiting, unconfigured), held=held)
    sent: dict[str, int] = {}
    failed: dict[str, str] = {}
    in_flight: dict[str, int] = {}
    notifiers = waiting
    for name in sorted(notifiers):
        claim = load_claim(session, name)
        if not claim.rows:
            continue
        in_flight[name] = claim.in_flight
        if claim.in_flight:
            log.warning(
                "alerts: %s: resending the message (%d alert(s)) a killed run left in flight",
                name,
                claim.in_flight,
            )
        sent[name], error = _deliver(session, notifiers[name], claim.rows, now)
        if error is not None:
            failed[name] = error
    return DispatchReport(sent, failed, in_flight, unconfigured, held=held)


def _deliver(
    session: Session, notifier: Notifier, rows: Sequence[AlertRow], now: datetime
) -> tuple[int, str | None]:
    """Send claimed ``rows`` message by message; on failure release the unsent ones.

    Each message's rows are marked "sending" just before it goes out and "sent" just after,
    so a crash leaves at most that one message in doubt. Its rows go out again first, in a
    message headed ``REPEATED`` (it may have reached the reader already); the rest as usual.
    """
    in_flight = [row for row in rows if row.status == SENDING]
    waiting = [row for row in rows if row.status != SENDING]
    delivered: set[int] = set()
    try:
        for group, note in ((in_flight, REPEATED), (waiting, None)):
            deals = [parse_snapshot(row.payload, alert_id=row.id) for row in group]
            done = 0
            for batch in notifier.batches(deals):
                message = group[done : done + len(batch)]
                save_sending(session, message)
                notifier.send(batch, note=note)
                save_sent(session, message, now=now)
                delivered.update(row.id for row in message)
                done += len(batch)
    except AlertError as exc:
        # A server's reply may repeat the secret it refused; the report names the channel.
        error = redact(exc.reason)
        left = [row for row in rows if row.id not in delivered]
        save_released(session, left, error)
        log.warning("alerts: %s; %d alert(s) kept pending", error, len(left))
        return len(delivered), error
    log.info("alerts: %d sent on %s", len(delivered), notifier.name)
    return len(delivered), None


def _preview(
    session: Session, notifiers: Mapping[str, Notifier], unconfigured: Mapping[str, int]
) -> DispatchReport:
    would_send: dict[str, tuple[Deal, ...]] = {}
    previews: dict[str, tuple[str, ...]] = {}
    failed: dict[str, str] = {}
    for name in sorted(notifiers):
        rows = load_open_alerts(session, name)
        try:
            deals = tuple(parse_snapshot(row.payload, alert_id=row.id) for row in rows)
        except AlertError as exc:
            failed[name] = redact(exc.reason)
            continue
        if deals:
            would_send[name] = deals
            previews[name] = tuple(notifiers[name].preview(deals))
    return DispatchReport(
        failed=failed,
        unconfigured=unconfigured,
        dry_run=True,
        would_send=would_send,
        previews=previews,
    )


TEST_DEAL = Deal(
    listing_id=0,
    item_id="0",
    marketplace="EBAY_US",
    title="rigscout test message: this channel works",
    url="https://www.ebay.com/",
    sku="test",
    sku_name="Test message",
    category=Category.GPU,
    quantity=1,
    buying_format=BuyingFormat.BUY_IT_NOW,
    landed_unit_price=Decimal("0.00"),
    currency="USD",
    shipping_known=True,
    score=0.0,
    reason="Sent by `rigscout alerts test`; deals that match your rules will look like this.",
    price_basis=TEST,
)


def send_test_message(notifier: Notifier) -> None:
    """Send one clearly labelled sample deal through ``notifier`` (raises ``AlertError``)."""
    notifier.send([TEST_DEAL])
