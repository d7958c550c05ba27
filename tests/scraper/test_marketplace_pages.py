"""Every marketplace the config accepts has its result pages read in its own language: the
same listings, read the same way (format, bids, time left, shipping, sold date, seller, where
it ships from) as on ebay.com, in the site's currency.

The pages (``fixtures/marketplaces/``, written by its ``make_pages.py``) are eBay's 2026
markup with each site's wording; ``core/marketplaces.toml`` names them (``tested_page``)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bench import FIXTURES
from core.countries import country_of
from core.marketplaces import marketplaces
from rigscout.config.load import load_settings
from scraper.parse import parse_search_page

NOW = datetime(2026, 7, 10, 12, tzinfo=UTC)
TESTED = [code for code, market in marketplaces().items() if market.tested_page]


def read(code: str, mode: str) -> list[tuple[object, ...]]:
    market = marketplaces()[code]
    html = (FIXTURES / "marketplaces" / f"{market.tested_page}-{mode}.html").read_text("utf-8")
    page = parse_search_page(html, url=f"{market.site}/sch/i.html?_nkw=gpu", now=NOW)
    assert page.skipped == ()
    return [
        (
            x.item_id,
            x.buying_format,
            x.bids,
            x.price,
            x.shipping,
            x.end_time,
            x.best_offer_accepted,
            x.sold_date,
            x.seller_feedback,
            x.seller_positive_pct,
            country_of(x.location) if x.location else None,
        )
        for x in page.listings
    ]


@pytest.mark.parametrize("mode", ["active", "sold"])
@pytest.mark.parametrize("code", TESTED)
def test_each_marketplace_reads_its_own_pages_as_ebay_com_reads_its(code: str, mode: str) -> None:
    assert read(code, mode) == read("EBAY_US", mode)


@pytest.mark.parametrize("code", TESTED)
def test_prices_are_in_the_sites_currency_and_links_on_its_site(code: str) -> None:
    market = marketplaces()[code]
    html = (FIXTURES / "marketplaces" / f"{market.tested_page}-active.html").read_text("utf-8")
    page = parse_search_page(html, url=f"{market.site}/sch/i.html?_nkw=gpu", now=NOW)
    assert {x.currency for x in page.listings} == {market.currency}
    assert all(x.url.startswith(market.site) for x in page.listings)


def test_every_marketplace_in_the_table_has_tested_pages() -> None:
    assert list(marketplaces()) == TESTED


def test_a_marketplace_whose_pages_are_not_tested_is_refused_with_the_reason(
    tmp_path, monkeypatch
) -> None:
    import dataclasses

    import core.marketplaces as table

    known = dict(marketplaces())
    known["EBAY_NL"] = dataclasses.replace(known["EBAY_DE"], code="EBAY_NL", tested_page=None)
    monkeypatch.setattr(table, "marketplaces", lambda: known)
    import rigscout.config.schema as schema

    monkeypatch.setattr(schema, "marketplaces", lambda: known)
    config = tmp_path / "rigscout.toml"
    config.write_text(
        '[[search]]\nname = "p40"\nquery = "tesla p40"\nmarketplace = "EBAY_NL"\n', "utf-8"
    )
    with pytest.raises(Exception, match="EBAY_NL is not supported yet: no result page"):
        load_settings(config, {})
