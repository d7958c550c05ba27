"""The markets (``ranking.rank.price_markets``) as JSON values, and back, exactly.

Computing them reads every sale in the window (a second on a large store), yet they change
only when a run saves something: ``rigscout/jobs/priced.py`` keeps them in the ``state`` table
and the commands after a run read them back. Amounts travel as Decimal text, so a market read
back is equal to the one computed (``tests/ranking/kept/test_market_cache.py``).
"""

from __future__ import annotations

from dataclasses import fields
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from core.models import ServerConfig
from ranking.market import Market, SalePoint, ServerReferences, Valuer
from ranking.titles import load_parts

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ranking.catalog import Sku


def markets_to_json(markets: Mapping[str, Market], servers: ServerReferences) -> dict[str, Any]:
    """What ``markets_from_json`` reads back."""
    return {
        "markets": [_plain(m) for m in markets.values()],
        "cards": [_plain(m) for m in servers.valuer.markets.values()],
        "parts": {code: str(price) for code, price in servers.valuer.parts.items()},
        "part_sales": dict(servers.valuer.part_sales),
        "twins": [
            [*_key(key), [_plain(p) for p in points]] for key, points in servers.twins.items()
        ],
        "sold": dict(servers.sold),
    }


def markets_from_json(
    data: Mapping[str, Any], skus: Mapping[str, Sku]
) -> tuple[dict[str, Market], ServerReferences]:
    """The markets and server references ``markets_to_json`` wrote (a KeyError, TypeError or
    ValueError where ``data`` is not that)."""
    markets = {m["sku"]: _market(m) for m in data["markets"]}
    cards = {m["sku"]: _market(m) for m in data["cards"]}
    parts = {code: Decimal(price) for code, price in data["parts"].items()}
    twins: dict[tuple[object, ...], list[SalePoint]] = {}
    for sku, config, gpus, points in data["twins"]:
        key = (sku, ServerConfig.from_json(config), tuple((s, int(q)) for s, q in gpus))
        twins[key] = [_point(p) for p in points]
    sold = {str(code): int(n) for code, n in data["sold"].items()}
    part_sales = {str(code): int(n) for code, n in data["part_sales"].items()}
    valuer = Valuer(skus, cards, parts, load_parts(), part_sales)
    return markets, ServerReferences(valuer, twins, sold)


def _key(key: tuple[object, ...]) -> tuple[object, object, object]:
    """A ``config_key`` as JSON values: SKU, configuration, included GPUs."""
    sku, config, gpus = key
    return sku, config.as_json() if isinstance(config, ServerConfig) else None, gpus


def _plain(value: Market | SalePoint) -> dict[str, Any]:
    return {f.name: _json_value(getattr(value, f.name)) for f in fields(value)}


def _json_value(value: object) -> object:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, tuple):
        return [_json_value(v) for v in value]
    return value


_MARKET_AMOUNTS = ("median", "q1", "q3")


def _market(data: Mapping[str, Any]) -> Market:
    values: dict[str, Any] = {k: Decimal(v) if k in _MARKET_AMOUNTS else v for k, v in data.items()}
    values["asks"] = tuple(Decimal(v) for v in data.get("asks", ()))
    return Market(**values)


def _point(data: Mapping[str, Any]) -> SalePoint:
    return SalePoint(
        Decimal(data["price"]),
        Decimal(data["weight"]),
        bool(data["upper_bound"]),
        bool(data["presumed"]),
    )
