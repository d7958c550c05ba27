"""The eBay marketplaces, one row each in ``marketplaces.toml``: site, currency, home.

Every stage asks here: the collectors for the site to search and link to, the parsers for the
currency a page is priced in and which marketplace a page belongs to, the ranker for where a
seller ships from without being abroad, and the config for which codes are valid.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from urllib.parse import urlsplit

DEFAULT = "EBAY_US"


@dataclass(frozen=True, slots=True)
class Marketplace:
    code: str  # eBay's marketplace id, as the Browse API names it: EBAY_US, EBAY_GB …
    site: str  # https://www.ebay.com
    currency: str  # ISO 4217
    home: tuple[str, ...]  # places a local seller ships from
    region: tuple[str, ...] = ()  # abroad but near (freight: `same_region`, not `overseas`)
    language: str = "en"  # of its pages
    accept_language: str = "en-US,en;q=0.9"  # sent with every request to it
    tested_page: str | None = None  # fixtures/marketplaces/<name>-*.html; None: not accepted

    @property
    def host(self) -> str:
        return urlsplit(self.site).hostname or ""


@cache
def marketplaces() -> dict[str, Marketplace]:
    """Every marketplace by code, in the file's order (``EBAY_US`` first)."""
    raw = tomllib.loads(files("core").joinpath("marketplaces.toml").read_text("utf-8"))
    return {
        code: Marketplace(
            code,
            row["site"],
            row["currency"],
            tuple(row["home"]),
            tuple(row.get("region", ())),
            language=row.get("language", "en"),
            accept_language=row.get("accept_language", "en-US,en;q=0.9"),
            tested_page=row.get("tested_page"),
        )
        for code, row in raw.items()
    }


def marketplace(code: str) -> Marketplace:
    """The marketplace ``code`` names, or eBay US for a code we do not know."""
    table = marketplaces()
    return table.get(code) or table[DEFAULT]


def item_url(code: str, item_id: str) -> str:
    """The item page of ``item_id`` on the marketplace's own site."""
    return f"{marketplace(code).site}/itm/{item_id}"


# An item page's path: /itm/<id>, or /itm/<title-slug>/<id> as older links have it.
ITEM_IN_URL = re.compile(r"/itm/(?:[^/?#]+/)?(\d{9,19})(?:[/?#]|$)")


def item_number(text: str) -> str | None:
    """The item number in an item number as typed ("  288722959459 ") or in any link to the
    item page (``https://www.ebay.de/itm/288722959459?hash=…``, the ones rigscout prints);
    None when there is none."""
    text = text.strip()
    if text.isdigit():
        return text
    found = ITEM_IN_URL.search(text)
    return found.group(1) if found else None


def same_site(source: str, target: str) -> bool:
    """Whether a redirect from host ``source`` to host ``target`` stays on one site: the same
    host, or hosts under one marketplace's domain (ebay.com to www.ebay.com or to
    signin.ebay.com, never to another domain)."""
    if source.lower() == target.lower():
        return True
    site = _site_of(source)
    return site is not None and site == _site_of(target)


def marketplace_of_host(host: str) -> str:
    """The marketplace whose site ``host`` is (or is under); eBay US when none is."""
    return _site_of(host) or DEFAULT


def _site_of(host: str) -> str | None:
    """The marketplace whose domain ``host`` is or is under (www.ebay.de: EBAY_DE), if any."""
    host = host.lower()
    for code, market in marketplaces().items():
        domain = market.host.removeprefix("www.")
        if host == domain or host.endswith("." + domain):
            return code
    return None
