"""Saved-plan alerts share the outbox: once per plan and channel, again only when cheaper."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import select

from alerts.outbox import parse_snapshot, save_pending_alerts
from alerts.plan_outbox import save_pending_plan_alert
from alerts.rules import Match
from core.models import ServerConfig
from db.models import AlertRow
from db.outbox import load_claim, save_sent
from ranking.catalog import load_catalog
from ranking.plan.records import Offer, Target
from ranking.plan.rules import load_plan_rules
from ranking.plan.search import plan_rigs
from tests.support.deals import add_listings, make_deal, make_rule

SKUS = {s.sku: s for s in load_catalog()}


READY = ServerConfig(heatsinks="yes", cpus=2, ram_gb=192, power_shelf=True)


def _plan(host_price: str, module_price: str = "100", config: ServerConfig = READY):
    offers = [
        Offer(
            1,
            "1001",
            "https://www.ebay.com/itm/1001",
            "T181-G20",
            "gigabyte-t181-g20",
            1,
            Decimal(host_price),
            config=config,  # READY: it runs as sold, the plan's total is host + GPUs
        )
    ]
    offers += [
        Offer(
            n,
            f"{1000 + n}",
            f"https://www.ebay.com/itm/{1000 + n}",
            "V100",
            "nvidia-tesla-v100-sxm2-16gb",
            1,
            Decimal(module_price),
        )
        for n in (2, 3, 4, 5)
    ]
    (plan,) = plan_rigs(offers, SKUS, load_plan_rules(), Target(vram_gb=64))
    return plan


def _rows(session) -> list[tuple[str, str | None, str, Decimal]]:
    session.expire_all()
    rows = session.scalars(select(AlertRow).order_by(AlertRow.id))
    return [(r.kind, r.rule, r.status, r.landed_unit_price) for r in rows]


def _send(session, channel: str, now) -> None:
    save_sent(session, load_claim(session, channel).rows, now=now)


def test_a_plan_is_alerted_once_and_again_only_when_a_cheaper_rig_appears(session, now):
    add_listings(session, [1, 2, 3, 4, 5], now)
    assert save_pending_plan_alert(session, "node", ["mail"], _plan("900"), now=now) == 1
    assert save_pending_plan_alert(session, "node", ["mail"], _plan("880"), now=now) == 0
    session.commit()
    assert _rows(session) == [("plan", "node", "pending", Decimal("1280.00"))]  # refreshed
    _send(session, "mail", now)

    assert save_pending_plan_alert(session, "node", ["mail"], _plan("880"), now=now) == 0
    assert save_pending_plan_alert(session, "node", ["mail"], _plan("950"), now=now) == 0
    assert save_pending_plan_alert(session, "node", ["mail"], _plan("870"), now=now) == 1
    session.commit()
    assert _rows(session)[-1] == ("plan", "node", "pending", Decimal("1270.00"))


def test_the_payload_is_a_deal_the_channels_can_send(session, now):
    add_listings(session, [1, 2, 3, 4, 5], now)
    no_shelf = ServerConfig(heatsinks="yes", cpus=2, ram_gb=192)
    save_pending_plan_alert(session, "node", ["mail"], _plan("900", config=no_shelf), now=now)
    row = session.scalars(select(AlertRow)).one()
    deal = parse_snapshot(row.payload, alert_id=row.id)
    assert deal.title.startswith("Rig plan 'node': Gigabyte T181-G20 + 4x NVIDIA Tesla V100 SXM2")
    assert deal.landed_unit_price == Decimal("1570.00")  # $1,300 + the shelf's $270 estimate
    assert "https://www.ebay.com/itm/1002" in deal.reason
    assert "power shelf needed" not in deal.reason  # bought, not warned about
    assert "It also needs: OCP 12 V power shelf: $270.00 (estimate)." in deal.reason
    assert "PSU watts" not in deal.reason  # a 12 V host has no AC PSU to check


def test_a_plan_alert_reads_as_a_message_not_as_command_output(session, now):
    from alerts.render_discord import render_embed
    from alerts.render_email import render_plain

    add_listings(session, [1, 2, 3, 4, 5], now)
    save_pending_plan_alert(session, "node", ["mail"], _plan("900"), now=now)
    deal = parse_snapshot(session.scalars(select(AlertRow)).one().payload)
    mail = render_plain([deal])
    embed = str(render_embed(deal))
    for text in (mail, embed):
        for wording in ("raise --limit", "per unit", "no market price yet", "! item"):
            assert wording not in text, (wording, text)
    assert "$1,300 for the whole rig · a complete rig for your saved plan" in mail
    assert "Rig total" in embed
    assert "Parts: host Gigabyte T181-G20" in deal.reason


def test_plan_alerts_never_hold_back_or_overwrite_a_deal_alert_on_the_same_listing(session, now):
    add_listings(session, [1, 2, 3, 4, 5], now)
    save_pending_plan_alert(session, "node", ["mail"], _plan("900"), now=now)
    session.commit()
    _send(session, "mail", now)  # the plan (host listing 1, $1,300) went out
    rule = make_rule(channels=("mail",))
    deal = make_deal(1, landed_unit_price="1290")  # dearer than a 5 % drop from $1,300 allows
    assert save_pending_alerts(session, [Match(deal, rule)], now=now) == 1
    session.commit()
    assert [r[:2] for r in _rows(session)] == [("plan", "node"), ("deal", rule.name)]
