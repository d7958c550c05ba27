"""Time db.store on one batch of 10,000 listings: first save, unchanged re-save, price changes.

Usage: python bench/bench_store.py [DATABASE_URL] [N]   (default: a temporary SQLite file)
"""

from __future__ import annotations

import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

from sqlalchemy.orm import Session

from core.models import BuyingFormat, Category, Kind, Listing, Normalized
from db.engine import open_engine
from db.migrate import upgrade
from db.models import Base
from db.store import load_known_item_ids, save_ended, save_listings

NORM = Normalized("Tesla V100", "v100-sxm2-16gb", Category.GPU, Kind.ITEM, confidence=0.9)
NOW = datetime(2026, 11, 20, 12, tzinfo=UTC)


def make_listings(n: int) -> list[Listing]:
    return [
        Listing(
            item_id=str(300000000000 + i),
            title=f"NVIDIA Tesla V100 SXM2 16GB GPU #{i}",
            url=f"https://www.ebay.com/itm/{300000000000 + i}",
            price=Decimal(400 + i % 300) + Decimal("0.99"),
            currency="USD",
            buying_format=BuyingFormat.AUCTION if i % 4 == 0 else BuyingFormat.BUY_IT_NOW,
            shipping=Decimal("25.00"),
            bids=i % 5 if i % 4 == 0 else None,
            end_time=NOW + timedelta(hours=i % 96 - 24),
            seller=f"seller{i % 700}",
            seller_feedback=i,
            seller_positive_pct=Decimal("99.5"),
        )
        for i in range(n)
    ]


def timed(label: str, action) -> None:
    start = time.perf_counter()
    result = action()
    print(f"{label:<44} {time.perf_counter() - start:6.2f} s   {result}")


def save(engine, listings: list[Listing], now: datetime):
    with Session(engine) as session, session.begin():
        return save_listings(
            session, [(x, NORM) for x in listings], search="v100", run_id=None, now=now
        )


def main(url: str, n: int) -> None:
    engine = open_engine(url)
    upgrade(engine)
    with engine.begin() as conn:
        for table in reversed(Base.metadata.sorted_tables):
            conn.execute(table.delete())
    listings = make_listings(n)
    changed = [replace(x, price=x.price - 10) if i % 10 == 0 else x for i, x in enumerate(listings)]
    print(f"{engine.url.render_as_string(hide_password=True)}, {n} listings in one batch")
    timed("save_listings, all new", lambda: save(engine, listings, NOW))
    timed("save_listings, unchanged", lambda: save(engine, listings, NOW + timedelta(hours=1)))
    timed(
        "save_listings, 10 % price changes", lambda: save(engine, changed, NOW + timedelta(hours=2))
    )
    with Session(engine) as session:
        timed("load_known_item_ids", lambda: len(load_known_item_ids(session, listings)))
    with Session(engine) as session, session.begin():
        timed("save_ended", lambda: save_ended(session, now=NOW + timedelta(hours=3)))
    engine.dispose()


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        default = f"sqlite:///{Path(tmp) / 'bench.db'}"
        main(
            sys.argv[1] if len(sys.argv) > 1 else default,
            int(sys.argv[2]) if len(sys.argv) > 2 else 10_000,
        )
