"""`rigscout plan` on the demo, and saved [[plan]] targets alerting through the outbox."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.models import AlertRow
from rigscout.cli.main import cli
from tests.support.cli import DEMO, engine_url, write_config
from tests.support.webhook_server import running_webhook_server

HOOK_ENV = "TEST_RIGSCOUT_HOOK"
PLAN_KEYS = {
    "total",
    "currency",
    "vram_gb",
    "fp16_tflops",
    "bandwidth_gbs",
    "host",
    "gpus",
    "per_vram_gb",
    "per_fp16_tflops",
    "topology",
    "bom",
    "warnings",
    "explanation",
}
SAVED_PLAN = f"""
[alerts.channels.chat]
type = "discord"
webhook_url_env = "{HOOK_ENV}"

[[alerts.rule]]
name = "under-market"
min_discount = 0.15
channels = ["chat"]

[[plan]]
name = "node"
vram_gb = 64
budget = 1500
channels = ["chat"]
"""


def invoke(config, *args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(
        cli, ["--config", str(config), *args], env=env, catch_exceptions=False
    )


def test_plan_on_the_demo_gives_complete_rigs_a_guide_reader_would_build(engine, tmp_path):
    config = write_config(tmp_path, engine_url(engine))
    assert invoke(config, "run", "--offline", str(DEMO), "--no-alerts").exit_code == 0

    result = invoke(config, "plan", "--vram", "64", "--json")
    assert result.exit_code == 0, result.output
    plans = json.loads(result.output)
    assert 1 <= len(plans) <= 5
    assert all(set(p) == PLAN_KEYS for p in plans)
    per_bandwidth = [p["total"] / p["bandwidth_gbs"] for p in plans]
    assert per_bandwidth == sorted(per_bandwidth)  # llm-inference: most GB/s per dollar first
    for p in plans:
        assert p["vram_gb"] >= 64
        assert {"sku", "item_id", "price"} <= set(p["host"])
        assert all({"sku", "quantity", "item_ids"} <= set(g) for g in p["gpus"])
        bought = sum(len(g["item_ids"]) for g in p["gpus"])
        assert p["total"] >= p["host"]["price"] and (bought or p["host"]["item_id"])
        if any("sxm2" in g["sku"] for g in p["gpus"]):
            assert p["host"]["sku"] in {"gigabyte-t181-g20", "dell-poweredge-c4140"}
        assert p["explanation"]
    t181 = [p for p in plans if p["host"]["sku"] == "gigabyte-t181-g20"]
    # the shelf is bought (a line of the bill of materials): no warning says it is needed
    assert t181 and not any("power shelf" in w for p in t181 for w in p["warnings"])
    for p in t181:  # the shelf and heatsinks are bought, and counted in the total
        items = {b["item"]: b for b in p["bom"]}
        assert items["OCP 12 V power shelf"]["item_id"] == "341857473714"
        assert any(i.endswith("SXM2 heatsinks") for i in items)
        parts = p["host"]["price"] + sum(b["price"] for b in p["bom"])
        parts += sum(x["price"] for g in p["gpus"] for x in g["listings"])
        assert abs(parts - p["total"]) < 0.01
    # A module whose title says "W/O Heatsink" gets its heatsink on every rig's bill that buys
    # it, and the ranker's "budget them" flag is no warning there: the plan has budgeted them.
    no_heatsink = [p for p in plans if any("216836094675" in g["item_ids"] for g in p["gpus"])]
    assert no_heatsink
    for p in no_heatsink:
        assert not any("sold without heatsinks" in w for w in p["warnings"])
        assert any(b["item"].endswith("SXM2 heatsinks") for b in p["bom"])  # budgeted

    text = invoke(config, "plan", "--vram", "64", "--limit", "2")
    assert text.output.startswith("1. ") and text.output.count("Why: ") == 2
    assert "https://www.ebay.com/itm/" in text.output


def test_with_no_listings_yet_plan_says_to_collect_first(engine, tmp_path):
    config = write_config(tmp_path, engine_url(engine))
    result = invoke(config, "plan", "--vram", "64", "--budget", "10")
    assert result.exit_code == 0
    assert result.output.strip() == (
        "No listings yet: run `rigscout run` (or `rigscout run --offline fixtures/demo`)."
    )


def test_a_budget_no_rig_meets_is_named_and_a_target_too_big_is_told_apart(engine, tmp_path):
    config = write_config(tmp_path, engine_url(engine))
    assert invoke(config, "run", "--offline", str(DEMO), "--no-alerts").exit_code in (0, 1)

    budget = invoke(config, "plan", "--vram", "64", "--budget", "10")
    huge = invoke(config, "plan", "--vram", "100000")

    assert "No complete rig reaches 64 GB of VRAM for $10.00 or less" in budget.output
    assert "without --budget, `plan` shows the cheapest that does" in budget.output
    assert "No complete rig reaches 100000 GB of VRAM with today's" in huge.output


@pytest.mark.parametrize("vram", ["nan", "inf", "-5", "0", "lots"])
def test_a_vram_that_is_not_a_positive_number_is_refused(engine, tmp_path, vram):
    config = write_config(tmp_path, engine_url(engine))
    result = invoke(config, "plan", "--vram", vram)
    assert result.exit_code == 2
    assert "Invalid value for '--vram'" in result.output


def test_a_saved_plan_alerts_once_and_again_only_for_a_cheaper_rig(engine, tmp_path):
    with running_webhook_server() as hook:
        config = write_config(tmp_path, engine_url(engine), extra=SAVED_PLAN)
        env = {HOOK_ENV: hook.webhook_url()}
        assert invoke(config, "run", "--offline", str(DEMO), env=env).exit_code == 0
        sent = _plan_rows(engine)
        assert [(r.status, r.channel) for r in sent] == [("sent", "chat")]
        assert "Rig plan 'node'" in json.dumps(hook.delivered)
        deal_alerts = _deal_rows(engine)
        assert deal_alerts  # the deal rule still alerts, beside the plan

        assert invoke(config, "run", "--offline", str(DEMO), env=env).exit_code == 0
        assert len(_plan_rows(engine)) == 1  # the same rig: no second alert
        assert len(_deal_rows(engine)) == len(deal_alerts)

        with Session(engine) as session, session.begin():
            row = session.get(AlertRow, sent[0].id)
            assert row is not None
            row.landed_unit_price += 100  # the rig last alerted cost more than today's
        assert invoke(config, "run", "--offline", str(DEMO), env=env).exit_code == 0
        assert [r.status for r in _plan_rows(engine)] == ["sent", "sent"]
        assert len(_deal_rows(engine)) == len(deal_alerts)


def _plan_rows(engine) -> list[AlertRow]:
    with Session(engine) as session:
        query = (
            select(AlertRow)
            .where(AlertRow.kind == "plan", AlertRow.rule == "node")
            .order_by(AlertRow.id)
        )
        return list(session.scalars(query))


def _deal_rows(engine) -> list[AlertRow]:
    with Session(engine) as session:
        return list(session.scalars(select(AlertRow).where(AlertRow.rule == "under-market")))


def test_a_bad_saved_plan_is_one_clear_line_and_exit_code_2(tmp_path):
    config = write_config(tmp_path, "sqlite://", extra='[[plan]]\nname = "x"\nvram = 64\n')
    result = invoke(config, "plan", "--vram", "64")
    assert result.exit_code == 2
    assert "[[plan]] #1 (x): unknown key vram (did you mean vram_gb?)" in result.output
