"""What the market says a SKU is worth: sold (and asking) prices per SKU, a server's chassis
with its parts priced, where an auction is likely to end, and prices too good to be true.

The floors above use the wing through these names alone.
"""

from ranking.market.auction import (
    PRIOR,
    AuctionModel,
    AuctionPrediction,
    AuctionSnapshot,
    fit_auction_model,
    model_from_json,
    model_to_json,
    predict_final,
    prediction_until,
)
from ranking.market.auction_watch import (
    HISTORY_DAYS,
    WATCHED_LIMIT,
    BidSeen,
    WatchedAuction,
    WatchedFit,
    fit_watched_model,
    markets_basis,
    sales_window_days,
    slice_markets_from_json,
    slice_markets_to_json,
)
from ranking.market.scam import load_scam_rules, nearest_sibling_market, new_accounts, scam_reason
from ranking.market.servers import (
    Chassis,
    Reference,
    ServerReferences,
    SoldSide,
    Valuer,
    chassis_of,
    part_markets,
    server_valuer,
    sold_side,
    sold_side_with,
)
from ranking.market.sold import (
    Market,
    SalePoint,
    sale_weight,
    sold_markets,
    sold_median,
    with_asking,
    without_own,
)

__all__ = [
    "HISTORY_DAYS",
    "PRIOR",
    "WATCHED_LIMIT",
    "AuctionModel",
    "AuctionPrediction",
    "AuctionSnapshot",
    "BidSeen",
    "Chassis",
    "Market",
    "Reference",
    "SalePoint",
    "ServerReferences",
    "SoldSide",
    "Valuer",
    "WatchedAuction",
    "WatchedFit",
    "chassis_of",
    "fit_auction_model",
    "fit_watched_model",
    "load_scam_rules",
    "markets_basis",
    "model_from_json",
    "model_to_json",
    "nearest_sibling_market",
    "new_accounts",
    "part_markets",
    "predict_final",
    "prediction_until",
    "sale_weight",
    "sales_window_days",
    "scam_reason",
    "server_valuer",
    "slice_markets_from_json",
    "slice_markets_to_json",
    "sold_markets",
    "sold_median",
    "sold_side",
    "sold_side_with",
    "with_asking",
    "without_own",
]
