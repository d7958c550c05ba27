"""What the report reads beside the rankings: the new listings of rare hardware."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy.orm import Session

from core.models import Category, Kind, Normalized
from db.report_rows import load_new_rare_rows
from db.store import save_listings
from tests.db.test_exact_money import NOW, listing

P40 = Normalized("NVIDIA Tesla P40 24GB", "nvidia-tesla-p40-24gb", Category.GPU, Kind.ITEM)
A100 = Normalized("NVIDIA A100 40GB PCIe", "nvidia-a100-pcie-40gb", Category.GPU, Kind.ITEM)
FAN = Normalized("GPU fan shroud", "nvidia-a100-pcie-40gb", Category.GPU, Kind.ACCESSORY)


def _save(engine, at, *pairs) -> None:
    with Session(engine) as session, session.begin():
        save_listings(session, list(pairs), search="gpus", run_id=None, now=at)


def test_new_listings_of_skus_with_few_active_ones_newest_first(engine) -> None:
    old = NOW - timedelta(days=3)
    _save(engine, old, *((listing(f"p{n}", "150.00"), P40) for n in range(4)))
    _save(engine, old, (listing("a1", "9000.00"), A100))
    _save(engine, NOW - timedelta(hours=2), (listing("a2", "8800.00"), A100))
    _save(engine, NOW - timedelta(hours=1), (listing("p9", "140.00"), P40))  # a fifth P40
    _save(engine, NOW, (listing("f1", "30.00"), FAN))  # not a card
    with Session(engine) as session:
        rows = load_new_rare_rows(session, since=NOW - timedelta(days=1), max_active=3, limit=30)
        one = load_new_rare_rows(session, since=NOW - timedelta(days=1), max_active=5, limit=1)

    assert [(r.sku, r.url.rsplit("/", 1)[1], r.active) for r in rows] == [
        (A100.sku, "a2", 2)  # the P40 has five active listings: not rare
    ]
    assert [r.url.rsplit("/", 1)[1] for r in one] == ["p9"]  # newest first, up to the limit
