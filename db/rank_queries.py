"""The ranking computed in the database: market baselines, value percentiles and the top deals.

One SQL statement (window functions; the same text on SQLite and PostgreSQL apart from JSON and
the latest-price join) returns only ``limit`` rows, so memory stays bounded whatever the history.
Money is exact NUMERIC on PostgreSQL and REAL on SQLite; callers recompute shown prices in Decimal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from sqlalchemy import Date, DateTime, Numeric, bindparam, text

from ranking.score import DISCOUNT_WEIGHT, FULL_DISCOUNT, VALUE_WEIGHT
from rigscout.errors import StoreError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from sqlalchemy import RowMapping
    from sqlalchemy.orm import Session
    from sqlalchemy.sql.elements import TextClause

_CURRENCY = re.compile(r"^[A-Z]{3}$")


@dataclass(frozen=True, slots=True)
class SpecRow:
    """One catalog SKU as the query sees it: its capability under the profile."""

    sku: str
    category: str
    capability: float
    eligible: bool


@dataclass(frozen=True, slots=True)
class MarketQuery:
    """What every ranking statement needs: the clock, the window, FX rates and sale weights."""

    now: datetime
    fx_rates: Mapping[str, Decimal]  # units of the user's currency per unit of the key
    window_days: int = 30
    min_sales: int = 5
    upper_bound_weight: Decimal = Decimal("0.5")
    presumed_weight: Decimal = Decimal("0.5")


@dataclass(frozen=True, slots=True)
class RankQuery:
    """The deals (or parts) view: eligibility, then filters applied after the percentiles."""

    market: MarketQuery
    specs: Sequence[SpecRow]
    parts: bool = False
    min_seller_feedback: int = 0
    min_seller_positive_pct: Decimal = Decimal(0)
    sku: str | None = None
    category: str | None = None
    max_price: Decimal | None = None
    buying: str = "all"  # "all" | "buy_now" | "auction"
    limit: int = 50


@dataclass(frozen=True, slots=True)
class BaselineRow:
    sku: str
    median: Decimal
    q1: Decimal
    q3: Decimal
    count: int
    upper_bound_count: int
    presumed_count: int
    source: str  # "sold" or "active"


@dataclass(frozen=True, slots=True)
class RankRow:
    """One ranked listing with the database's figures; ``score`` orders, Python re-derives it."""

    listing_id: int
    item_id: str
    marketplace: str
    title: str
    url: str
    sku: str
    category: str
    kind: str
    quantity: int
    buying_format: str
    end_time: datetime | None
    image_url: str | None
    price: Decimal
    shipping: Decimal | None
    currency: str
    baseline: BaselineRow | None
    included_value: Decimal | None  # market value of included GPUs, when all are valued
    includes_unvalued: bool
    value_percentile: float
    value_rank: int
    group_size: int
    score: float


def load_baselines(session: Session, market: MarketQuery) -> dict[str, BaselineRow]:
    """Per-SKU market baseline: weighted median, quartiles and counts of landed unit prices."""
    sql = f"WITH {_market_ctes(session, market)} SELECT * FROM baseline"
    params = {**_market_params(market), **_fx_params(market.fx_rates)}
    stmt = _typed(text(sql))
    _without_jit(session)
    rows = session.execute(stmt, params).mappings()
    return {r["sku"]: _baseline(r) for r in rows}


def load_rank_rows(session: Session, query: RankQuery) -> list[RankRow]:
    """The top ``query.limit`` listings of the view, best first."""
    sql = _rank_sql(session, query)
    params = {
        **_market_params(query.market),
        **_fx_params(query.market.fx_rates),
        **_spec_params(query.specs),
        "min_fb": query.min_seller_feedback,
        "f_sku": query.sku,
        "f_category": query.category,
        "f_max_price": query.max_price,
        "limit": max(query.limit, 0),
    }
    stmt = _typed(text(sql)).columns(end_time=DateTime(timezone=True))
    _without_jit(session)
    return [_rank_row(r) for r in session.execute(stmt, params).mappings()]


def load_skip_counts(session: Session, query: RankQuery) -> dict[str, int]:
    """How many active listings each rule kept out of the deals view, by reason."""
    rate = _rate_sql(query.market.fx_rates, "l.currency")
    sql = f"""WITH {_specs_cte(query.specs)}
    SELECT reason, COUNT(*) AS n FROM (
      SELECT CASE
        WHEN l.sku IS NULL THEN 'unmatched'
        WHEN l.kind = 'accessory' THEN 'accessory'
        WHEN l.kind = 'for_parts' THEN 'for_parts'
        WHEN l.kind <> 'item' THEN 'not_hardware'
        WHEN l.sku NOT IN (SELECT sku FROM specs) THEN 'not_in_catalog'
        WHEN {rate} IS NULL THEN 'no_fx_rate'
        WHEN l.sku IN (SELECT sku FROM specs WHERE eligible = 0) THEN 'below_profile_minimum'
        WHEN NOT ({_seller_ok(query)}) THEN 'seller_below_threshold'
        WHEN NOT ({_auction_open()}) THEN 'auction_ended'
      END AS reason
      FROM listings l
      WHERE l.status = 'active'
    ) r WHERE reason IS NOT NULL GROUP BY reason"""
    params = {
        **_fx_params(query.market.fx_rates),
        **_spec_params(query.specs),
        "min_fb": query.min_seller_feedback,
        "now": _utc(query.market.now),
    }
    stmt = _typed(text(sql))
    return {str(r.reason): int(r.n) for r in session.execute(stmt, params)}


def _without_jit(session: Session) -> None:
    """PostgreSQL's JIT costs seconds to compile this sub-second query; off for this transaction."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("SET LOCAL jit = off"))


def _market_ctes(session: Session, market: MarketQuery) -> str:
    """cur (active listings at their latest price), sold, asking, their stats, baseline."""
    dialect = session.get_bind().dialect.name
    unit = "(1.0 * (x.price + COALESCE(x.shipping, 0)) / x.quantity)"
    return f"""cur AS MATERIALIZED (
      SELECT x.*, {unit} * x.rate AS landed FROM (
        SELECT l.id, l.sku, l.kind, l.quantity, l.buying_format, l.end_time,
               l.seller_feedback, l.seller_positive_pct, l.includes,
               o.price, o.shipping, o.currency, {_rate_sql(market.fx_rates, "o.currency")} AS rate,
               {_json(dialect, "count", "l.includes")} AS n_includes
        FROM listings l {_latest_observation(dialect)}
        WHERE l.status = 'active' AND l.sku IS NOT NULL AND l.quantity > 0 AND o.price > 0
      ) x WHERE x.rate IS NOT NULL
    ),
    sold AS (
      SELECT x.sku, {unit} * x.rate AS p, x.w, x.upper_n, x.presumed_n FROM (
        SELECT l.sku, l.quantity, s.price, s.shipping,
               {_rate_sql(market.fx_rates, "s.currency")} AS rate,
               CASE WHEN s.best_offer_accepted THEN :w_upper ELSE 1.0 END
                 * CASE WHEN s.source = 'presumed' THEN :w_presumed ELSE 1.0 END AS w,
               CASE WHEN s.best_offer_accepted THEN 1 ELSE 0 END AS upper_n,
               CASE WHEN s.source = 'presumed' THEN 1 ELSE 0 END AS presumed_n
        FROM sales s
        JOIN listings l ON l.id = s.listing_id
        WHERE s.sold_date > :since AND s.sold_date <= :today AND s.price > 0
          AND l.kind = 'item' AND l.sku IS NOT NULL AND l.quantity > 0
          AND {_json(dialect, "count", "l.includes")} = 0
      ) x WHERE x.rate IS NOT NULL
    ),
    asking AS (
      SELECT sku, landed AS p, 1.0 AS w, 0 AS upper_n, 0 AS presumed_n FROM cur
      WHERE kind = 'item' AND buying_format <> 'auction' AND n_includes = 0
    ),
    {_stats_ctes("sold")},
    {_stats_ctes("asking")},
    baseline AS (
      SELECT sku, median, q1, q3, n, upper_n, presumed_n, 'sold' AS source
      FROM sold_stats WHERE n >= :min_sales
      UNION ALL
      SELECT sku, median, q1, q3, n, upper_n, presumed_n, 'active' AS source
      FROM asking_stats
      WHERE sku NOT IN (SELECT sku FROM sold_stats WHERE n >= :min_sales)
    )"""


def _stats_ctes(name: str) -> str:
    """Weighted median (mean of lower and upper weighted medians) and quartiles per SKU."""
    return f"""{name}_cum AS (
      SELECT sku, p, upper_n, presumed_n,
             SUM(w) OVER (PARTITION BY sku ORDER BY p ROWS UNBOUNDED PRECEDING) AS cw,
             SUM(w) OVER (PARTITION BY sku) AS tw
      FROM {name}
    ),
    {name}_stats AS (
      SELECT sku, COUNT(*) AS n, SUM(upper_n) AS upper_n, SUM(presumed_n) AS presumed_n,
             (MIN(CASE WHEN cw >= tw / 2 THEN p END)
               + MIN(CASE WHEN cw > tw / 2 THEN p END)) / 2 AS median,
             MIN(CASE WHEN cw >= tw / 4 THEN p END) AS q1,
             MIN(CASE WHEN cw >= tw * 3 / 4 THEN p END) AS q3
      FROM {name}_cum GROUP BY sku
    )"""


def _rank_sql(session: Session, query: RankQuery) -> str:
    dialect = session.get_bind().dialect.name
    view = (
        "c.kind IN ('for_parts', 'accessory')"
        if query.parts
        else f"c.kind = 'item' AND sp.eligible = 1 AND {_seller_ok(query, 'c')}"
        f" AND {_auction_open('c')}"
    )
    order = "landed ASC, id ASC" if query.parts else "score DESC, landed ASC, id ASC"
    value_price = """CASE WHEN inc.n > 0 AND inc.n = inc.n_valued THEN
          CASE WHEN c.landed - inc.value > 1 THEN c.landed - inc.value ELSE 1 END
        ELSE c.landed END"""
    window = "PARTITION BY category, side ORDER BY vpm"
    return f"""WITH {_market_ctes(session, query.market)}, {_specs_cte(query.specs)},
    skuinfo AS (
      SELECT sp.sku, sp.category, sp.capability, sp.eligible, b.median AS b_median,
             b.q1 AS b_q1, b.q3 AS b_q3, b.n AS b_n, b.upper_n AS b_upper_n,
             b.presumed_n AS b_presumed_n, b.source AS b_source
      FROM specs sp LEFT JOIN baseline b ON b.sku = sp.sku
    ),
    inc AS (
      SELECT c.id, SUM({_json(dialect, "qty")} * b.median) AS value,
             COUNT(*) AS n, COUNT(b.median) AS n_valued
      FROM cur c {_json(dialect, "join")}
      LEFT JOIN baseline b ON b.sku = {_json(dialect, "sku")}
      WHERE c.n_includes > 0
      GROUP BY c.id
    ),
    cand AS (
      SELECT c.id, c.sku, sp.category, c.buying_format, c.landed,
             CASE WHEN c.buying_format = 'auction' THEN 1 ELSE 0 END AS side,
             sp.capability / ({value_price}) AS vpm,
             sp.b_median, sp.b_q1, sp.b_q3, sp.b_n, sp.b_upper_n, sp.b_presumed_n, sp.b_source,
             CASE WHEN inc.n = inc.n_valued THEN inc.value END AS inc_value,
             CASE WHEN inc.n > inc.n_valued THEN 1 ELSE 0 END AS inc_unvalued,
             CASE WHEN inc.n IS NULL THEN sp.b_median
                  WHEN inc.n = inc.n_valued THEN sp.b_median + inc.value END AS base
      FROM cur c
      JOIN skuinfo sp ON sp.sku = c.sku
      LEFT JOIN inc ON inc.id = c.id
      WHERE {view}
    ),
    scored AS (
      SELECT cand.*,
             CUME_DIST() OVER ({window}) AS pct,
             COUNT(*) OVER ({window} ROWS BETWEEN UNBOUNDED PRECEDING
                            AND UNBOUNDED FOLLOWING) AS group_n,
             CASE WHEN base > 0 THEN 1 - landed / base END AS discount
      FROM cand
    ),
    best AS (
      SELECT scored.*, {_score_sql()} AS score FROM scored
      WHERE {_filters(query)}
      ORDER BY {order} LIMIT :limit
    )
    SELECT best.*, l.item_id, l.marketplace, l.title, l.url, l.kind, l.quantity, l.end_time,
           l.image_url, o.price, o.shipping, o.currency
    FROM best
    JOIN listings l ON l.id = best.id {_latest_observation(dialect)}
    ORDER BY {order}"""


def _score_sql() -> str:
    part = f"discount / {FULL_DISCOUNT}"
    clamped = (
        f"CASE WHEN discount IS NULL THEN 0 WHEN {part} > 1 THEN 1"
        f" WHEN {part} < -1 THEN -1 ELSE {part} END"
    )
    return f"100 * ({DISCOUNT_WEIGHT} * ({clamped}) + {VALUE_WEIGHT} * pct)"


def _filters(query: RankQuery) -> str:
    clauses = ["1 = 1"]
    if query.sku is not None:
        clauses.append("sku = :f_sku")
    if query.category is not None:
        clauses.append("category = :f_category")
    if query.max_price is not None:
        clauses.append("landed <= :f_max_price")
    if query.buying == "buy_now":
        clauses.append("buying_format <> 'auction'")
    elif query.buying == "auction":
        clauses.append("buying_format = 'auction'")
    elif query.buying != "all":
        raise StoreError(f"buying must be 'all', 'buy_now' or 'auction', not {query.buying!r}")
    return " AND ".join(clauses)


def _seller_ok(query: RankQuery, alias: str = "l") -> str:
    pct = _number(query.min_seller_positive_pct)
    return (
        f"(:min_fb <= 0 OR COALESCE({alias}.seller_feedback, -1) >= :min_fb)"
        f" AND ({pct} <= 0 OR COALESCE({alias}.seller_positive_pct, -1) >= {pct})"
    )


def _auction_open(alias: str = "l") -> str:
    return (
        f"({alias}.buying_format <> 'auction' OR {alias}.end_time IS NULL"
        f" OR {alias}.end_time > :now)"
    )


def _latest_observation(dialect: str) -> str:
    """Join ``o``, listing ``l``'s latest observation, through the (listing_id, time) index."""
    latest = (
        "SELECT {cols} FROM observations o2 WHERE o2.listing_id = l.id"
        " ORDER BY o2.observed_at DESC, o2.id DESC LIMIT 1"
    )
    if dialect == "postgresql":
        cols = "o2.price, o2.shipping, o2.currency"
        return f"CROSS JOIN LATERAL ({latest.format(cols=cols)}) o"
    return f"JOIN observations o ON o.id = ({latest.format(cols='o2.id')})"


# JSON differs by dialect: SQLite's json_each/json_extract, PostgreSQL's json_array_elements.
_JSON = {
    "sqlite": {
        "count": "COALESCE(json_array_length({col}), 0)",
        "join": ", json_each(c.includes) AS j",
        "sku": "json_extract(j.value, '$.sku')",
        "qty": "CAST(json_extract(j.value, '$.quantity') AS INTEGER)",
    },
    "postgresql": {
        "count": "(CASE WHEN json_typeof({col}) = 'array'"
        " THEN json_array_length({col}) ELSE 0 END)",
        "join": "CROSS JOIN LATERAL json_array_elements(CASE WHEN json_typeof(c.includes) ="
        " 'array' THEN c.includes ELSE CAST('[]' AS json) END) AS j(value)",
        "sku": "(j.value ->> 'sku')",
        "qty": "CAST(j.value ->> 'quantity' AS INTEGER)",
    },
}


def _json(dialect: str, part: str, col: str = "") -> str:
    try:
        return _JSON[dialect][part].format(col=col)
    except KeyError:
        raise StoreError(f"ranking needs SQLite or PostgreSQL, not {dialect}") from None


def _rate_sql(rates: Mapping[str, Decimal], currency: str) -> str:
    """The FX rate for ``currency`` (NULL when unknown); rates are validated literals."""
    whens = [
        f"WHEN :fx_{i} THEN {_number(rate)}" for i, (_, rate) in enumerate(sorted(rates.items()))
    ]
    return f"(CASE {currency} {' '.join(whens)} END)" if whens else "(CAST(NULL AS NUMERIC))"


def _fx_params(rates: Mapping[str, Decimal]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for i, (currency, _) in enumerate(sorted(rates.items())):
        if not _CURRENCY.match(currency):
            raise StoreError(f"FX rate for {currency!r}: currency must be three capital letters")
        params[f"fx_{i}"] = currency
    return params


def _specs_cte(specs: Sequence[SpecRow]) -> str:
    rows = [
        f"SELECT CAST(:sp_sku_{i} AS VARCHAR(64)) AS sku, CAST(:sp_cat_{i} AS VARCHAR(16))"
        f" AS category, {_number(Decimal(repr(s.capability)))} AS capability,"
        f" {1 if s.eligible else 0} AS eligible"
        for i, s in enumerate(specs)
    ]
    if not rows:
        rows = [
            "SELECT CAST(NULL AS VARCHAR(64)) AS sku, CAST(NULL AS VARCHAR(16)) AS category,"
            " 1.0 AS capability, 0 AS eligible WHERE 1 = 0"
        ]
    return "specs AS (" + " UNION ALL ".join(rows) + ")"


def _spec_params(specs: Sequence[SpecRow]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for i, s in enumerate(specs):
        params[f"sp_sku_{i}"] = s.sku
        params[f"sp_cat_{i}"] = s.category
    return params


def _number(value: Decimal) -> str:
    """A finite Decimal as a SQL numeric literal (never scientific notation)."""
    if not value.is_finite():
        raise StoreError(f"not a finite number for the ranking query: {value}")
    literal = format(value, "f")
    return literal if "." in literal else literal + ".0"


def _market_params(market: MarketQuery) -> dict[str, Any]:
    today = _utc(market.now).date()
    return {
        "now": _utc(market.now),
        "today": today,
        "since": today - timedelta(days=market.window_days),
        "min_sales": market.min_sales,
        "w_upper": market.upper_bound_weight,
        "w_presumed": market.presumed_weight,
    }


def _typed(stmt: TextClause) -> TextClause:
    """Type the dates and weights the statement binds (SQLite needs them as its own text)."""
    types: dict[str, Any] = {
        "now": DateTime(timezone=True),
        "today": Date(),
        "since": Date(),
        "w_upper": Numeric(6, 4),
        "w_presumed": Numeric(6, 4),
        "f_max_price": Numeric(14, 2),
    }
    return stmt.bindparams(
        *[bindparam(k, type_=t) for k, t in types.items() if f":{k}" in stmt.text]
    )


def _utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


def _money(value: Any) -> Decimal:
    return Decimal(str(value)).quantize(Decimal("0.01"))


def _baseline(r: RowMapping, prefix: str = "") -> BaselineRow:
    return BaselineRow(
        sku=str(r["sku"]),
        median=_money(r[prefix + "median"]),
        q1=_money(r[prefix + "q1"]),
        q3=_money(r[prefix + "q3"]),
        count=int(r[prefix + "n"]),
        upper_bound_count=int(r[prefix + "upper_n"] or 0),
        presumed_count=int(r[prefix + "presumed_n"] or 0),
        source=str(r[prefix + "source"]),
    )


def _rank_row(r: RowMapping) -> RankRow:
    end_time = r["end_time"]
    if end_time is not None and end_time.tzinfo is None:
        end_time = end_time.replace(tzinfo=UTC)
    return RankRow(
        listing_id=int(r["id"]),
        item_id=str(r["item_id"]),
        marketplace=str(r["marketplace"]),
        title=str(r["title"]),
        url=str(r["url"]),
        sku=str(r["sku"]),
        category=str(r["category"]),
        kind=str(r["kind"]),
        quantity=int(r["quantity"]),
        buying_format=str(r["buying_format"]),
        end_time=end_time,
        image_url=r["image_url"],
        price=_money(r["price"]),
        shipping=None if r["shipping"] is None else _money(r["shipping"]),
        currency=str(r["currency"]),
        baseline=None if r["b_median"] is None else _baseline(r, "b_"),
        included_value=None if r["inc_value"] is None else _money(r["inc_value"]),
        includes_unvalued=bool(r["inc_unvalued"]),
        value_percentile=float(r["pct"]),
        value_rank=int(r["group_n"]) - round(float(r["pct"]) * int(r["group_n"])) + 1,
        group_size=int(r["group_n"]),
        score=float(r["score"]),
    )
