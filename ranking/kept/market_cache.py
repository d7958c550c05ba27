"""The markets (``ranking.pricing.price_markets``) and their sales' part (``SoldSide``) as JSON
values, and back, exactly.

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
from ranking.market import Chassis, Market, SalePoint, ServerReferences, SoldSide, Valuer
from ranking.titles import load_parts

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence

    from ranking.catalog import Sku


def markets_to_json(markets: Mapping[str, Market], servers: ServerReferences) -> dict[str, Any]:
    """What ``markets_from_json`` reads back."""
    return {
        "markets": [_plain(m) for m in markets.values()],
        "cards": [_plain(m) for m in servers.valuer.markets.values()],
        "parts": {code: str(price) for code, price in servers.valuer.parts.items()},
        "part_sales": dict(servers.valuer.part_sales),
        "twins": _twins_to_json(servers.twins),
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
    part_sales = {str(code): int(n) for code, n in data["part_sales"].items()}
    valuer = Valuer(skus, cards, parts, load_parts(), part_sales)
    return markets, ServerReferences(valuer, _twins_from_json(data["twins"]), _counts(data["sold"]))


def sold_side_to_json(side: SoldSide) -> dict[str, Any]:
    """What ``sold_side_from_json`` reads back."""
    return {
        "cards": [_plain(m) for m in side.cards.values()],
        "parts": [_plain(m) for m in side.parts.values()],
        "twins": _twins_to_json(side.twins),
        "sold": dict(side.sold),
    }


def sold_side_from_json(data: Mapping[str, Any]) -> SoldSide:
    """The sales' part of the markets ``sold_side_to_json`` wrote (a KeyError, TypeError or
    ValueError where ``data`` is not that)."""
    return SoldSide(
        {m["sku"]: _market(m) for m in data["cards"]},
        {m["sku"]: _market(m) for m in data["parts"]},
        _twins_from_json(data["twins"]),
        _counts(data["sold"]),
    )


def chassis_to_json(chassis: Chassis) -> dict[str, Any]:
    """What ``chassis_from_json`` reads back."""
    valued = {sku: None if m is None else str(m) for sku, m in chassis.valued_at.items()}
    return {"markets": [_plain(m) for m in chassis.markets.values()], "valued_at": valued}


def chassis_from_json(data: Mapping[str, Any]) -> Chassis:
    """The chassis markets ``chassis_to_json`` wrote (a KeyError, TypeError or ValueError
    where ``data`` is not that)."""
    return Chassis(
        {m["sku"]: _market(m) for m in data["markets"]},
        {str(s): None if m is None else Decimal(m) for s, m in data["valued_at"].items()},
    )


def _twins_to_json(twins: Mapping[tuple[object, ...], Sequence[SalePoint]]) -> list[Any]:
    # each sale as [price, weight, upper bound, presumed]: a large store has tens of thousands
    return [
        [*_key(key), [[str(p.price), str(p.weight), p.upper_bound, p.presumed] for p in points]]
        for key, points in twins.items()
    ]


def _twins_from_json(data: Iterable[Any]) -> dict[tuple[object, ...], list[SalePoint]]:
    twins: dict[tuple[object, ...], list[SalePoint]] = {}
    for sku, config, gpus, points in data:
        key = (sku, ServerConfig.from_json(config), tuple((s, int(q)) for s, q in gpus))
        twins[key] = [_point(p) for p in points]
    return twins


def _counts(data: Mapping[str, Any]) -> dict[str, int]:
    return {str(code): int(n) for code, n in data.items()}


def _key(key: tuple[object, ...]) -> tuple[object, object, object]:
    """A ``config_key`` as JSON values: SKU, configuration, included GPUs."""
    sku, config, gpus = key
    return sku, config.as_json() if isinstance(config, ServerConfig) else None, gpus


def _plain(value: Market) -> dict[str, Any]:
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


def _point(data: Sequence[Any]) -> SalePoint:
    price, weight, upper_bound, presumed = data
    return SalePoint(Decimal(price), Decimal(weight), bool(upper_bound), bool(presumed))
