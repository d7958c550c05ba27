"""Build eBay search-results URLs (``/sch/i.html``) from a saved search; pure, no I/O.

The host is the marketplace's own site (``core/marketplaces.toml``) unless a
``base_url`` (``[collector] base_url``, e.g. a local stand-in for tests) overrides it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar
from urllib.parse import urlencode

from core.errors import ConfigError
from core.marketplaces import marketplaces
from core.models import Mode

if TYPE_CHECKING:
    from decimal import Decimal

    from core.models import SavedSearch

_V = TypeVar("_V")

SEARCH_PATH = "/sch/i.html"
RESULTS_PER_PAGE = 240

# eBay's own query parameters, as its search form writes them (checked against public
# scrapers that drive ebay.com/.co.uk/.de, e.g. "_sop=13 sort: ended recently",
# "LH_ItemCondition=1000" for new, "LH_PrefLoc=1" for the buyer's own country).
SORT_NEWLY_LISTED = "10"
SORT_ENDED_RECENTLY = "13"
BUYING_PARAMS = {"all": None, "buy_it_now": "LH_BIN", "auction": "LH_Auction"}
CONDITION_IDS = {"new": "1000", "used": "3000", "for_parts": "7000"}
LOCATION_IDS = {"domestic": "1", "worldwide": "2"}


def build_search_url(
    search: SavedSearch, mode: Mode, page: int, *, base_url: str | None = None
) -> str:
    """The results URL of one page (1-based) of ``search`` in ``mode``, newest first.

    >>> build_search_url(SavedSearch("p40", "tesla p40"), Mode.ACTIVE, 2)
    'https://www.ebay.com/sch/i.html?_nkw=tesla+p40&_sacat=0&_sop=10&_ipg=240&_pgn=2'
    """
    if page < 1:
        raise ValueError(f"page numbers start at 1, got {page}")
    host = base_url or _marketplace_host(search)
    sold = mode is Mode.SOLD
    params: list[tuple[str, str]] = [
        ("_nkw", search.query),
        ("_sacat", search.category_id or "0"),
        ("_sop", SORT_ENDED_RECENTLY if sold else SORT_NEWLY_LISTED),
        ("_ipg", str(RESULTS_PER_PAGE)),
        ("_pgn", str(page)),
    ]
    if sold:
        params += [("LH_Sold", "1"), ("LH_Complete", "1")]
    params += _filters(search)
    return f"{host.rstrip('/')}{SEARCH_PATH}?{urlencode(params)}"


def _marketplace_host(search: SavedSearch) -> str:
    try:
        return marketplaces()[search.marketplace].site
    except KeyError:
        raise ConfigError(
            f"search {search.name!r}: unknown marketplace {search.marketplace!r}"
        ) from None


def _filters(search: SavedSearch) -> list[tuple[str, str]]:
    params: list[tuple[str, str]] = []
    buying = _lookup(search, "buying", search.buying, BUYING_PARAMS)
    if buying:
        params.append((buying, "1"))
    if search.condition:
        params.append(
            ("LH_ItemCondition", _lookup(search, "condition", search.condition, CONDITION_IDS))
        )
    if search.location:
        params.append(("LH_PrefLoc", _lookup(search, "location", search.location, LOCATION_IDS)))
    if search.min_price is not None:
        params.append(("_udlo", _price(search.min_price)))
    if search.max_price is not None:
        params.append(("_udhi", _price(search.max_price)))
    return params


def _lookup(search: SavedSearch, field: str, value: str, table: dict[str, _V]) -> _V:
    if value not in table:
        choices = ", ".join(sorted(table))
        raise ConfigError(
            f"search {search.name!r}: {field} must be one of {choices}, not {value!r}"
        )
    return table[value]


def _price(value: Decimal) -> str:
    """``Decimal('250.00')`` → ``'250.00'``; never scientific notation such as ``2.5E+2``."""
    return format(value, "f")
