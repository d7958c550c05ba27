"""What a listing's title says: the normalizer (SKU, units, kind), the facts it states
(faults, parts included or missing), a server's configuration, its risk flags, where it ships
from, the user's own catalog and the titles no SKU matched.

The floors above use the wing through these names alone.
"""

from ranking.titles.facts import condition_broken, read_title
from ranking.titles.flags import (
    Signals,
    flag_listing,
    flags_file,
    load_signals,
    load_support,
    short_label,
)
from ranking.titles.normalize import Normalizer, default_normalizer, normalize_title
from ranking.titles.origin import ship_origin
from ranking.titles.server_config import HEATSINK, POWER_SHELF, PartsTable, load_parts
from ranking.titles.sku_names import SkuName, read_sku_name
from ranking.titles.unmatched import UnmatchedListing, group_unmatched, render_unmatched
from ranking.titles.unread import check_title_under, describe_unread, unread_words
from ranking.titles.user_catalog import load_user_catalog, user_normalizer, user_skus

__all__ = [
    "HEATSINK",
    "POWER_SHELF",
    "Normalizer",
    "PartsTable",
    "Signals",
    "SkuName",
    "UnmatchedListing",
    "check_title_under",
    "condition_broken",
    "default_normalizer",
    "describe_unread",
    "flag_listing",
    "flags_file",
    "group_unmatched",
    "load_parts",
    "load_signals",
    "load_support",
    "load_user_catalog",
    "normalize_title",
    "read_sku_name",
    "read_title",
    "render_unmatched",
    "ship_origin",
    "short_label",
    "unread_words",
    "user_normalizer",
    "user_skus",
]
