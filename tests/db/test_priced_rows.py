"""Saving priced rows: a row reads back as last saved, whichever of its columns changed.

``save_priced`` sets the indexed columns of a stored row only where their value changed (SQLite
rewrites an index entry for any column set); random saves of random changes, on SQLite and
PostgreSQL, are compared with the rows as last saved, read through the table and through the
indexes the rankers use.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

import numpy as np
from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from db.models import ListingRow, PricedRow
from db.priced_rows import load_digests, load_expired, load_sellers_under, save_priced
from ranking.kept import WIDTH

if TYPE_CHECKING:
    from sqlalchemy import Engine

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
COUNT = 40


def _listings(session: Session) -> None:
    session.execute(
        insert(ListingRow),
        [
            {
                "id": i, "marketplace": "EBAY_US", "item_id": str(1000 + i),
                "title": f"listing {i}", "url": f"https://www.ebay.com/itm/{1000 + i}",
                "buying_format": "fixed_price", "currency": "USD", "status": "active",
                "first_seen": NOW, "last_seen": NOW, "kind": "item",
                "sku": "nvidia-tesla-p40", "category": "gpu",
            }
            for i in range(1, COUNT + 1)
        ],
    )  # fmt: skip


def _random_row(rng: random.Random, listing_id: int, old: dict[str, Any] | None) -> dict[str, Any]:
    """A row for ``listing_id``: ``old`` with a few columns changed (any, indexed or not)."""
    fresh = {
        "listing_id": listing_id,
        "observation_id": rng.randint(1, 9),
        "changed_at": None,
        "basis": rng.choice(["b1", "b2"]),
        "digest": rng.choice(["", "d1", "d2"]),
        "valid_until": rng.choice([None, NOW + timedelta(hours=rng.randint(-2, 5))]),
        "account": rng.choice([None, "a new account"]),
        "outcome": rng.choice(["priced", "part", "no_price"]),
        "sku": rng.choice(["nvidia-tesla-p40", "nvidia-geforce-rtx-3090", None]),
        "unit_price": rng.choice([None, "99.50", "120", "1234.56"]),
        "asking": rng.random() < 0.5,
        "landed": rng.choice([None, "130.00"]),
        "excluded": rng.random() < 0.2,
        "inputs": None,
        "auction": rng.random() < 0.3,
        "reading": None,
        "seller": rng.choice([None, "alpha", "beta", "gamma"]),
        "seller_feedback": rng.choice([None, 3, 50, 5_000]),
        "quantity": rng.randint(1, 3),
    }
    row = fresh
    if old is not None:
        changed = rng.sample(sorted(fresh.keys() - {"listing_id"}), rng.randint(0, 3))
        row = old | {name: fresh[name] for name in changed}
    # as a pricing writes them: a priced row has its score inputs and its price, no other row
    # has inputs
    priced = row["outcome"] == "priced"
    packed = np.full(WIDTH, rng.uniform(1, 900)).tobytes()
    row["inputs"] = (row["inputs"] or packed) if priced else None
    row["unit_price"] = (row["unit_price"] or "10.00") if priced else row["unit_price"]
    return row


def _as_read(session: Session) -> dict[int, dict[str, Any]]:
    return {
        int(r["listing_id"]): dict(r)
        for r in session.execute(select(PricedRow.__table__)).mappings()
    }


def test_a_saved_row_reads_back_as_saved_whichever_columns_changed(engine: Engine) -> None:
    rng = random.Random(4)
    saved: dict[int, dict[str, Any]] = {}
    with Session(engine) as session:
        _listings(session)
        for _ in range(25):
            ids = sorted(rng.sample(range(1, COUNT + 1), rng.randint(1, 15)))
            rows = [_random_row(rng, i, saved.get(i)) for i in ids]
            save_priced(session, rows)
            saved |= {row["listing_id"]: row for row in rows}
            if rng.random() < 0.6:
                session.commit()
            as_read = _as_read(session)
            assert as_read.keys() == saved.keys()
            for listing_id, row in saved.items():
                stored = as_read[listing_id]
                assert {k: stored[k] for k in row} == row, listing_id
            # and through the indexes: the digests, the sellers, the prices that expire
            assert set(load_digests(session)) == {
                (str(r["sku"]), r["auction"], r["digest"]) for r in saved.values() if r["digest"]
            }
            assert sorted(i for i, *_ in load_sellers_under(session, 100)) == sorted(
                i
                for i, r in saved.items()
                if r["outcome"] == "priced"
                and r["seller"] is not None
                and r["seller_feedback"] is not None
                and r["seller_feedback"] < 100
            )
            assert sorted(load_expired(session, NOW)) == sorted(
                i for i, r in saved.items() if r["valid_until"] and r["valid_until"] <= NOW
            )
