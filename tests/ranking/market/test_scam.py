"""Scams as a pattern (issue: an A100 40GB PCIe "Brand New Sealed" at $1,099 from a seller
with 3 feedback, a quarter of the A100 market, passed with a 10-point warning and became the
first plan): kept out with the reason, and a new account with many expensive listings is
flagged on every one of them."""

from __future__ import annotations

from dataclasses import replace

import pytest

from core.settings import RankSettings
from ranking.catalog import load_catalog
from ranking.rank import rank_rows
from ranking.records import RankFilters
from tests.support.rows import NOW, active, sales

CATALOG = {s.sku: s for s in load_catalog()}
A100_PCIE = "nvidia-a100-pcie-40gb"  # no sales of its own in these tests
H100_NVL = "nvidia-h100-nvl-94gb"
A100_SXM4 = "nvidia-a100-sxm4-40gb"
RTX4090 = "nvidia-rtx-4090"
SXM4_SALES = sales(A100_SXM4, "3900", "4000", "4050", "4100", "4150", "4200", "4300", "4400")


def rank(rows, sold=SXM4_SALES):
    return rank_rows(rows, sold, CATALOG, RankSettings(), now=NOW, filters=RankFilters(limit=100))


def kept_out(ranking, row):
    found = [d for d in ranking.flagged if d.listing_id == row.listing_id]
    return found[0] if found else None


def test_a_card_without_a_market_is_judged_against_its_nearest_sibling():
    scam = active(A100_PCIE, "1099", seller_feedback=3, title="NVIDIA A100 40GB PCIe GPU")
    ranking = rank([scam])
    flagged = kept_out(ranking, scam)
    assert flagged is not None and not ranking.deals
    (flag,) = [f for f in flagged.flags if f.code == "scam_pattern"]
    assert flag.severity == "exclude"
    assert flag.label == (
        "check before buying: 73 % under NVIDIA A100 SXM4 40GB sales; seller has 3 feedback"
    )
    assert scam.listing_id in ranking.kept_out


@pytest.mark.parametrize(
    "title",
    [
        "NVIDIA A100 40GB PCIe GPU Brand New Sealed",
        "ＮＥＷ ＳＥＡＬＥＤ NVIDIA A100 40GB PCIe",  # any width
    ],
)
def test_a_new_sealed_data_center_card_far_under_the_market_is_kept_out(title):
    sealed = active(A100_PCIE, "1099", title=title)  # an established seller
    flagged = kept_out(rank([sealed]), sealed)
    assert flagged is not None
    assert '"brand new sealed" data-center hardware' in flagged.flags[-1].label


def test_the_price_alone_is_a_warning_to_check_not_a_verdict():
    cheap = active(A100_PCIE, "1099", title="NVIDIA A100 40GB PCIe GPU")  # good seller
    ranking = rank([cheap])
    (deal,) = ranking.deals
    (check,) = [f for f in deal.flags if f.code == "check_before_buying"]
    assert check.severity == "warn"
    assert "73 % under NVIDIA A100 SXM4 40GB sales, and no market of its own yet" in check.label


def test_a_sealed_consumer_card_at_its_market_is_just_a_new_card():
    market = sales(RTX4090, "1900", "1950", "2000", "2050", "2100", "2150", "2200", "2250")
    sealed = active(RTX4090, "1999", seller_feedback=3, title="RTX 4090 FE BRAND NEW SEALED")
    ranking = rank([sealed], market)
    assert [d.listing_id for d in ranking.deals] == [sealed.listing_id]


def test_a_new_account_with_many_expensive_listings_is_flagged_on_each_of_them():
    rows = [
        replace(active(A100_SXM4, "4200", seller_feedback=2), seller="n3wseller") for _ in range(10)
    ]
    ranking = rank(rows)
    labels = [
        f.label for d in (*ranking.deals, *ranking.flagged) for f in d.flags
        if f.code == "new_account_pattern"
    ]  # fmt: skip
    assert labels == ["a 2-feedback seller lists 10 items worth $42,000 at once"] * 10


def account_flags(feedback: int, count: int, price: str = "4190") -> list[str]:
    rows = [
        replace(active(H100_NVL, price, seller_feedback=feedback), seller="acct")
        for _ in range(count)
    ]
    ranking = rank(rows)
    return [
        f.label for d in (*ranking.deals, *ranking.flagged) for f in d.flags
        if f.code == "new_account_pattern"
    ]  # fmt: skip


def test_what_a_seller_puts_at_stake_is_weighed_against_its_record_not_a_cliff():
    """Ten listings worth $41,900 from a 17-feedback account were no pattern when it took
    fewer than 10 feedback: now the stake is weighed against the record, smoothly."""
    assert (
        account_flags(17, 10) == ["a 17-feedback seller lists 10 items worth $41,900 at once"] * 10
    )
    assert account_flags(2, 2) == ["a 2-feedback seller lists 2 items worth $8,380 at once"] * 2
    assert account_flags(2, 1, price="800") == []  # one modest listing: no pattern
    assert account_flags(2500, 10) == []  # a long record vouches for as much


def test_no_returns_on_a_price_far_under_the_market_is_a_scams_pattern_too():
    no_returns = active(A100_PCIE, "1099", title="NVIDIA A100 40GB PCIe GPU no returns")
    flagged = kept_out(rank([no_returns]), no_returns)
    assert flagged is not None
    assert flagged.flags[-1].label.endswith("; no returns")
