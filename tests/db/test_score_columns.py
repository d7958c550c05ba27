"""The kept score columns are the priced table's packed rows, whatever was saved in between.

Each save of the ``priced`` table records its change; a ranking reads the last base and the
changes after it. Compared with the table read through after every step of random saves,
closed listings and rows changed behind its back, on SQLite and PostgreSQL.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.orm import Session

from db import score_columns
from db.models import ListingRow, PricedRow, ScoreColumnsRow
from db.priced_rows import delete_unranked, save_priced
from db.score_columns import Change, Columns, apply_changes, load_columns, load_kept
from ranking.kept import WIDTH

if TYPE_CHECKING:
    from sqlalchemy import Engine

NOW = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
SKUS = ("nvidia-tesla-p40", "nvidia-tesla-v100-sxm2-16gb", "nvidia-geforce-rtx-3090")


def _listings(session: Session, count: int) -> None:
    session.execute(
        insert(ListingRow),
        [
            {
                "id": i,
                "marketplace": "EBAY_US",
                "item_id": str(1000 + i),
                "title": f"listing {i}",
                "url": f"https://www.ebay.com/itm/{1000 + i}",
                "buying_format": "fixed_price",
                "currency": "USD",
                "status": "active",
                "first_seen": NOW,
                "last_seen": NOW,
                "kind": "item",
                "sku": SKUS[i % len(SKUS)],
                "category": "gpu",
            }
            for i in range(1, count + 1)
        ],
    )


def _row(listing_id: int, sku: str, inputs: bytes | None) -> dict[str, Any]:
    return {
        "listing_id": listing_id, "observation_id": 1, "changed_at": None, "basis": "b",
        "digest": "", "valid_until": None, "account": None,
        "outcome": "priced" if inputs is not None else "no_price", "sku": sku,
        "unit_price": None, "asking": False, "landed": None, "excluded": False,
        "inputs": inputs, "auction": False, "reading": None, "seller": None,
        "seller_feedback": None, "quantity": 1,
    }  # fmt: skip


def _inputs(rng: random.Random) -> bytes:
    return np.array([rng.uniform(0, 1000) for _ in range(WIDTH)]).tobytes()


def _as_read(session: Session) -> list[tuple[int, str, bytes]]:
    """The packed rows as the table holds them, by listing id."""
    rows = session.execute(
        select(PricedRow.listing_id, PricedRow.sku, PricedRow.inputs)
        .where(PricedRow.inputs.is_not(None))
        .order_by(PricedRow.listing_id)
    )
    return [(int(i), str(s), bytes(b)) for i, s, b in rows]


def _as_kept(columns: Columns) -> list[tuple[int, str, bytes]]:
    return [
        (int(i), columns.skus[c], row.tobytes())
        for i, c, row in zip(columns.ids, columns.codes, columns.table, strict=True)
    ]


@pytest.mark.parametrize("rebase", ["rarely", "often"])
@pytest.mark.parametrize("seed", range(3))
def test_the_kept_columns_are_the_table_after_random_saves(
    engine: Engine, seed: int, rebase: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if rebase == "often":
        monkeypatch.setattr(score_columns, "_FEWEST_REBASED", 4)
        monkeypatch.setattr(score_columns, "_MOST_CHANGES", 3)
    rng = random.Random(seed)
    kept_reads = 0
    with Session(engine) as session:
        _listings(session, 80)
        session.commit()
        for _ in range(30):
            step = rng.choice(["save", "save", "save", "close", "behind its back"])
            if step == "save":
                ids = rng.sample(range(1, 81), rng.randint(1, 25))
                skus = (*SKUS, "amd-instinct-mi50-32gb")  # a SKU the columns have not seen
                rows = [
                    _row(i, rng.choice(skus), None if rng.random() < 0.15 else _inputs(rng))
                    for i in sorted(ids)
                ]
                save_priced(session, rows)
            elif step == "close":
                closed = rng.sample(range(1, 81), rng.randint(1, 4))
                session.execute(
                    update(ListingRow).where(ListingRow.id.in_(closed)).values(status="sold")
                )
                delete_unranked(session)
            else:  # a row changed without its change recorded: the count no longer adds up
                victim = session.scalar(select(func.min(PricedRow.listing_id)))
                session.execute(delete(PricedRow).where(PricedRow.listing_id == victim))
            if rng.random() < 0.7:
                session.commit()
            columns = load_columns(session)
            kept = load_kept(session)
            kept_reads += kept is not None
            expected = _as_read(session)
            if kept is not None:
                assert _as_kept(kept) == expected
            ids_and_skus = zip(columns.listing_id, columns.sku, strict=True)
            assert [(int(i), columns.skus[c]) for i, c in ids_and_skus] == [
                (i, s) for i, s, _ in expected
            ]
            assert columns.landed.tolist() == [
                np.frombuffer(b, dtype=np.float64)[0] for _, _, b in expected
            ]
        session.commit()
    assert kept_reads > 10  # the kept columns were read, not only the table


def test_a_base_is_written_again_only_once_the_changes_are_many(engine: Engine) -> None:
    rng = random.Random(1)
    with Session(engine) as session:
        _listings(session, 200)
        save_priced(session, [_row(i, SKUS[0], _inputs(rng)) for i in range(1, 201)])
        assert session.scalar(select(func.count()).select_from(ScoreColumnsRow)) == 1  # a base
        for i in range(1, 40):
            save_priced(session, [_row(i, SKUS[1], _inputs(rng))])
        assert session.scalar(select(func.count()).select_from(ScoreColumnsRow)) == 40
        assert load_kept(session) is not None
        session.commit()


def test_the_last_change_of_a_listing_holds() -> None:
    def change(ids: list[int], skus: tuple[str, ...], removed: list[int] = []) -> Change:  # noqa: B006
        written = Columns(
            ids=np.array(ids, dtype=np.int64),
            codes=np.zeros(len(ids), dtype=np.int32),
            skus=skus,
            table=np.full((len(ids), WIDTH), float(len(skus[0]) if skus else 0)),
        )
        return Change(written, removed=np.array(removed, dtype=np.int64))

    base = Columns(
        ids=np.array([1, 2, 3], dtype=np.int64),
        codes=np.array([0, 0, 0], dtype=np.int32),
        skus=("a",),
        table=np.zeros((3, WIDTH)),
    )
    after = apply_changes(
        base,
        [
            change([4], ("bbb",)),  # a new listing, a new SKU
            change([], (), removed=[2, 4, 99]),  # gone, including one never kept
            change([4, 1], ("cc",)),  # back again, and one written over
        ],
    )
    assert after.ids.tolist() == [1, 3, 4]
    assert [after.skus[c] for c in after.codes] == ["cc", "a", "cc"]
    assert after.table[:, 0].tolist() == [2.0, 0.0, 2.0]
