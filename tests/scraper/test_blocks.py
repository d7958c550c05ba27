"""detect_block: captcha, sign-in and error pages are told apart from results pages."""

from __future__ import annotations

import pytest

from scraper.blocks import detect_block
from tests.conftest import load_sample


@pytest.mark.parametrize(
    ("html", "reason"),
    [
        ("<html><head><title>Security Measure | eBay</title>", "captcha"),
        ("<title>Pardon Our Interruption...</title><body>", "bot check"),
        ("<html><body><p>Please verify yourself to continue</p>", "captcha"),
        ("<title>Sign in or Register | eBay</title>", "sign-in"),
        ("<title>Error Page | eBay</title>", "error page"),
        ("<body><p>SORRY</p><p>Something went wrong on our end</p>", "error page"),
    ],
)
def test_block_pages_are_named(html, reason):
    found = detect_block(html)
    assert found is not None
    assert reason in found


@pytest.mark.parametrize(
    "html",
    [
        "<title>tesla v100 for sale | eBay</title><ul class=srp-results></ul>",
        # A listing title may say anything; inside a result list it is data, not a block.
        "<ul class=srp-results><li>Book: Pardon Our Interruption (hardcover)</li></ul>",
    ],
)
def test_results_pages_are_not_blocks(html):
    assert detect_block(html) is None


@pytest.mark.parametrize(
    ("name", "blocked"),
    [
        ("block_security-measure_2026-08.html", True),
        ("block_error-page_2026-08.html", True),
        ("srp_scard_sold_2026-05_ebay-us_2006-vw-new-beetle.html", False),
        ("srp_scard_sold_2025-11_ebay-us_charizard-base-set_cat183454.html", False),
        ("srp_sitem_active-bin_2021-01_ebay-uk_warhammer_GBP.html", False),
    ],
)
def test_real_pages(name, blocked):
    assert (detect_block(load_sample("html", name)) is not None) is blocked
