"""Watched auctions as the model learns them: a refit after a run reuses the markets of the
slices of sales it read before, and learns exactly what a fit from nothing learns."""

from __future__ import annotations

import json
import random
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest

from core.settings import RankSettings
from ranking.market.auction import model_to_json
from ranking.market.auction_watch import (
    BidSeen,
    WatchedAuction,
    fit_watched_model,
    slice_markets_from_json,
    slice_markets_to_json,
)
from ranking.rows import SoldRow

SETTINGS = RankSettings()
TODAY = datetime(2026, 11, 20, 18, tzinfo=UTC)
SKUS = ("nvidia-tesla-v100-sxm2-16gb", "nvidia-tesla-p40", "nvidia-geforce-rtx-3090")


def _sale(rng: random.Random, sku: str, day: date) -> SoldRow:
    price = Decimal(rng.randrange(80, 400)) + Decimal(rng.randrange(100)) / 100
    offer = rng.random() < 0.2
    return SoldRow(
        sku, rng.choice((1, 1, 1, 2)), price, "USD", day, Decimal(rng.randrange(30)), offer
    )


def _store(rng: random.Random, days: int, n: int) -> tuple[list[SoldRow], list[WatchedAuction]]:
    """``n`` auctions watched to their end over ``days`` days, with as many other sales."""
    sales = [
        _sale(rng, rng.choice(SKUS), (TODAY - timedelta(days=rng.randrange(days))).date())
        for _ in range(n)
    ]
    auctions = []
    for i in range(n):
        end = TODAY - timedelta(days=rng.randrange(days), hours=rng.randrange(24))
        final = _sale(rng, rng.choice(SKUS), end.date())
        seen = tuple(
            BidSeen(end - timedelta(hours=h), final.price * Decimal("0.6"), None, rng.randrange(9))
            for h in sorted(rng.sample(range(1, 80), 3), reverse=True)
        )
        auctions.append(WatchedAuction(i, end, final, seen))
        sales.append(final)
    return sales, auctions


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_refit_after_a_run_learns_what_a_fit_from_nothing_learns(seed):
    rng = random.Random(seed)
    sales, auctions = _store(rng, days=90, n=600)
    yesterday = fit_watched_model(auctions, sales, SETTINGS)
    # What a run does to the sales: new ones today, late ones dated days back, one corrected.
    more, later = _store(rng, days=3, n=40)
    changed = list(sales)
    changed[rng.randrange(len(changed))] = _sale(rng, SKUS[0], changed[0].sold_date)
    changed += more

    refit = fit_watched_model([*auctions, *later], changed, SETTINGS, known=yesterday.markets)
    fresh = fit_watched_model([*auctions, *later], changed, SETTINGS)

    assert model_to_json(refit.model) == model_to_json(fresh.model)
    assert refit.markets == fresh.markets
    reused = set(refit.markets) & set(yesterday.markets)
    assert len(reused) > len(refit.markets) / 2  # most past days' markets were not computed again


def test_a_slice_market_kept_from_an_earlier_fit_is_read_not_computed():
    sales, auctions = _store(random.Random(4), days=60, n=300)
    fit = fit_watched_model(auctions, sales, SETTINGS)
    told = {key: (Decimal(999), None) for key in fit.markets}

    again = fit_watched_model(auctions, sales, SETTINGS, known=told)

    assert set(again.markets.values()) == {(Decimal(999), None)}
    assert model_to_json(again.model) != model_to_json(fit.model)


def test_slice_markets_survive_the_store_as_json():
    fit = fit_watched_model(*reversed(_store(random.Random(5), days=60, n=200)), SETTINGS)

    loaded = slice_markets_from_json(json.loads(json.dumps(slice_markets_to_json(fit.markets))))

    assert loaded == fit.markets
    assert None in loaded.values()  # a slice with too few sales: no market, kept as such
    with pytest.raises(ValueError, match="not a slice market"):
        slice_markets_from_json({"x|3|0": [150, 0.2]})
