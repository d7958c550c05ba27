"""The kept ranking: the priced listings' score inputs and the shortlist read from them, the
digests that say when a kept price is stale, and the markets cached as JSON.

The floors above use the wing through these names alone.
"""

from ranking.kept.digest import MarketDigests, pricing_basis
from ranking.kept.market_cache import (
    chassis_from_json,
    chassis_to_json,
    markets_from_json,
    markets_to_json,
    sold_side_from_json,
    sold_side_to_json,
)
from ranking.kept.shortlist import WIDTH, PricedColumns, pack_inputs, shortlist

__all__ = [
    "WIDTH",
    "MarketDigests",
    "PricedColumns",
    "chassis_from_json",
    "chassis_to_json",
    "markets_from_json",
    "markets_to_json",
    "pack_inputs",
    "pricing_basis",
    "shortlist",
    "sold_side_from_json",
    "sold_side_to_json",
]
