"""One codec for a Deal as JSON: the alert outbox stores it with money as exact strings,
``rank --json`` prints it with money as numbers, and an older snapshot still reads."""

from __future__ import annotations

import json
import math
from dataclasses import fields, replace
from datetime import UTC, datetime
from decimal import Decimal

import pytest

from core.deal_json import deal_from_json, deal_to_json
from core.models import BuyingFormat, Deal, Flag, ServerConfig
from tests.support.deals import make_deal

FULL = make_deal(
    buying_format=BuyingFormat.AUCTION,
    end_time=datetime(2026, 12, 1, 18, 30, tzinfo=UTC),
    metrics={"value_percentile": 0.9, "price_per_vram": 11.25},
    price_basis="predicted",
    current_bid=Decimal("120.50"),
    predicted_low=Decimal("150.00"),
    predicted_high=Decimal("190.10"),
    flags=(Flag("untested", "title says untested", "warn"),),
    freight_estimated=True,
    needs_host="SXM2",
    previous_price=Decimal("199.99"),
    seller="gpu_outlet",
    seller_feedback=1520,
    location="Shenzhen, China",
    config=ServerConfig(cpus=2, ram_gb=256),
    config_text="2 CPUs, 256 GB RAM",
    gpus_included=4,
    reference=(("chassis", Decimal("300.00"), "market"), ("4 x V100", Decimal("640"), "sales")),
)


def test_every_field_of_a_deal_survives_the_round_trip_through_json_text() -> None:
    text = json.dumps(deal_to_json(FULL))
    assert deal_from_json(json.loads(text)) == FULL
    assert {f.name for f in fields(Deal)} == set(json.loads(text))


def test_the_snapshot_keeps_money_exact_and_scripts_get_numbers() -> None:
    stored, printed = deal_to_json(FULL), deal_to_json(FULL, money=float)
    assert stored["landed_unit_price"] == "180.00"
    assert printed["landed_unit_price"] == 180.0
    assert printed["reference"] == [
        {"label": "chassis", "amount": 300.0, "source": "market"},
        {"label": "4 x V100", "amount": 640.0, "source": "sales"},
    ]
    assert "previous_price" not in printed  # an alert's field, not a ranking's
    assert deal_from_json(printed) == replace(FULL, previous_price=None)


def test_numbers_json_cannot_hold_are_written_as_null() -> None:
    deal = replace(FULL, score=math.nan, discount=math.inf, metrics={"a": math.nan, "b": 1.0})
    data = deal_to_json(deal)
    assert (data["score"], data["discount"], data["metrics"]) == (None, None, {"b": 1.0})
    back = deal_from_json(json.loads(json.dumps(data, allow_nan=False)))
    assert math.isnan(back.score) and back.discount is None


def test_a_snapshot_written_before_a_field_existed_reads_with_its_default() -> None:
    data = deal_to_json(make_deal())
    for newer in ("gpus_included", "reference", "config", "config_text", "price_basis"):
        del data[newer]
    assert deal_from_json(data) == make_deal()


def test_a_snapshot_missing_what_a_deal_needs_cannot_be_read() -> None:
    data = deal_to_json(make_deal())
    del data["landed_unit_price"]
    with pytest.raises(KeyError):
        deal_from_json(data)
    with pytest.raises(ValueError):
        deal_from_json({**deal_to_json(make_deal()), "category": "toaster"})
