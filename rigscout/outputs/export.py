"""Price-history CSV export with pandas, streamed in chunks so memory stays bounded.

``export_prices`` writes, per SKU and period (day, week or month) and per market (sold or
active), the count, min, median and max landed unit price in the user's currency, priced as
every deal is (``ranking.landed``: FX at the configured rates, the category's estimated freight
for unknown shipping, per unit of a lot). Points in a currency without a rate are left out and
counted. Rows are read in chunks ordered by SKU and time, and each (SKU, period) group is
written as soon as it is complete.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, TextIO

import pandas as pd

from db.history import HistoryFilter, listings_query, price_points_query
from db.types import from_units
from ranking.landed import landed_with_freight

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from sqlalchemy import Engine

    from core.settings import RankSettings

ExportFilter = HistoryFilter  # what the export commands filter by
# Weeks start on Monday (pandas names a weekly period by the day it ends).
FREQS = {"day": "D", "week": "W-SUN", "month": "M"}
PRICE_COLUMNS = ["sku", "period", "market", "currency", "count", "min", "median", "max"]
CHUNK_ROWS = 50_000
_PRICED_BY = ["price", "shipping", "quantity", "currency", "category", "marketplace", "location"]


@dataclass(frozen=True, slots=True)
class ExportCounts:
    rows: int  # data rows written
    unpriced: int = 0  # price points left out: their currency has no configured rate


def load_price_chunks(engine: Engine, flt: ExportFilter) -> Iterator[pd.DataFrame]:
    """Raw price points (sku, at, market, currency, category, quantity, price and shipping in
    cents) ordered by SKU and time, in chunks."""
    with engine.connect() as conn:
        conn = conn.execution_options(stream_results=True)
        yield from pd.read_sql(price_points_query(engine, flt), conn, chunksize=CHUNK_ROWS)


def landed_cents(chunk: pd.DataFrame, rank: RankSettings) -> pd.DataFrame:
    """The chunk with each point's landed unit price in cents (``cents``) and the user's
    currency; points without an FX rate dropped. The rule runs once per distinct price."""
    shipping = chunk["shipping"].fillna(-1).astype("int64")  # -1: unknown (no NaN in keys)
    columns = (
        chunk["price"].astype("int64"),
        shipping,
        chunk["quantity"].astype("int64"),
        chunk["currency"],
        chunk["category"],
        chunk["marketplace"],
        chunk["location"].astype("object").where(chunk["location"].notna(), None),
    )
    keys = list(zip(*(c.tolist() for c in columns), strict=True))
    priced = {key: _unit_cents(key, rank) for key in set(keys)}
    cents = pd.Series([priced[key] for key in keys], index=chunk.index, dtype="float64")
    kept = chunk[cents.notna()].drop(columns=_PRICED_BY)
    return kept.assign(cents=cents[cents.notna()].astype("int64"), currency=rank.currency)


def _unit_cents(
    point: tuple[int, int, int, str, str, str, str | None], rank: RankSettings
) -> float:
    price, shipping, quantity, currency, category, marketplace, location = point
    known = None if shipping < 0 else from_units(shipping, 2)
    landed = landed_with_freight(
        from_units(price, 2),
        known,
        quantity,
        currency,
        category=category,
        settings=rank,
        marketplace=marketplace,
        location=location,
    )
    return math.nan if landed is None else float(landed.unit_price * 100)


def summarize_prices(chunks: Iterator[pd.DataFrame], freq: str) -> Iterator[pd.DataFrame]:
    """Aggregate ordered chunks into complete (sku, period) groups as soon as each is complete."""
    pending: pd.DataFrame | None = None
    for chunk in chunks:
        if chunk.empty:
            continue
        chunk = _with_period(chunk, freq)
        data = chunk if pending is None else pd.concat([pending, chunk], ignore_index=True)
        last = data.iloc[-1]
        tail = (data["sku"] == last["sku"]) & (data["period"] == last["period"])
        done, pending = data[~tail], data[tail]
        if not done.empty:
            yield _aggregate(done)
    if pending is not None and not pending.empty:
        yield _aggregate(pending)


def _with_period(chunk: pd.DataFrame, freq: str) -> pd.DataFrame:
    at = pd.to_datetime(chunk["at"], utc=True, format="ISO8601")
    period = at.dt.tz_localize(None).dt.to_period(FREQS[freq]).dt.start_time.dt.date
    return chunk.assign(period=period).drop(columns="at")


def _aggregate(rows: pd.DataFrame) -> pd.DataFrame:
    grouped = rows.groupby(["sku", "period", "market", "currency"], sort=True)["cents"]
    out = grouped.agg(["count", "min", "median", "max"]).reset_index()
    for column in ("min", "median", "max"):
        out[column] = out[column].map(_money)
    return out[PRICE_COLUMNS]


def _money(cents: float) -> Decimal:
    return (Decimal(str(cents)) / 100).quantize(Decimal("0.01"))


def export_prices(
    engine: Engine,
    out: TextIO,
    flt: ExportFilter,
    rank: RankSettings,
    *,
    freq: str = "day",
    on_read: Callable[[int], None] = lambda _: None,
) -> ExportCounts:
    """Write the price summary CSV to ``out``; ``on_read`` hears how many price points each
    chunk read (the CLI's progress)."""
    if freq not in FREQS:
        raise ValueError(f"freq must be one of {', '.join(FREQS)}")
    rows = unpriced = 0

    def priced() -> Iterator[pd.DataFrame]:
        nonlocal unpriced
        for chunk in load_price_chunks(engine, flt):
            on_read(len(chunk))
            done = landed_cents(chunk, rank)
            unpriced += len(chunk) - len(done)
            yield done

    out.write(",".join(PRICE_COLUMNS) + "\n")
    for frame in summarize_prices(priced(), freq):
        neutralised(frame).to_csv(out, header=False, index=False, lineterminator="\n")
        rows += len(frame)
    return ExportCounts(rows, unpriced)


# A cell a spreadsheet would run as a formula starts with one of these (OWASP, "CSV
# injection"): such text gets a leading apostrophe, which spreadsheets show as plain text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def neutralised(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with every text cell that a spreadsheet would run as a formula made text."""
    text = [
        c
        for c in frame.columns
        if frame[c].dtype == object or pd.api.types.is_string_dtype(frame[c].dtype)
    ]
    if not text:
        return frame
    frame = frame.copy()
    for column in text:
        frame[column] = frame[column].map(_as_text)
    return frame


def _as_text(value: object) -> object:
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def export_listings(
    engine: Engine,
    out: TextIO,
    flt: ExportFilter,
    *,
    on_read: Callable[[int], None] = lambda _: None,
) -> int:
    """Write every observation with its listing's fields, in chunks; returns the row count."""
    query = listings_query(flt)
    rows = chunks = 0
    with engine.connect() as conn:
        conn = conn.execution_options(stream_results=True)
        for chunks, chunk in enumerate(pd.read_sql(query, conn, chunksize=CHUNK_ROWS), 1):
            on_read(len(chunk))
            neutralised(chunk).to_csv(out, header=chunks == 1, index=False, lineterminator="\n")
            rows += len(chunk)
    if chunks == 0:  # no chunk at all: the header alone
        out.write(",".join(c.name for c in query.selected_columns) + "\n")
    return rows
