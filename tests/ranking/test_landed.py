"""Landed unit price: (price + shipping) / quantity in the user's currency, Decimal throughout."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from core.settings import RankSettings
from ranking.landed import Landed, fx_rate, landed_unit_price

EUR_USER = RankSettings(
    currency="EUR",
    fx_rates={"EUR": Decimal(1), "USD": Decimal("0.92"), "GBP": Decimal("1.17")},
    fx_date=date(2026, 11, 1),
)


@pytest.mark.parametrize(
    ("price", "shipping", "quantity", "currency", "expected"),
    [
        ("250", "28", 2, "USD", Landed(Decimal("139.00"), "USD", True)),
        ("139.99", "0", 1, "USD", Landed(Decimal("139.99"), "USD", True)),
        ("100", None, 1, "USD", Landed(Decimal("100.00"), "USD", False)),
        ("100", "10", 3, "USD", Landed(Decimal("36.67"), "USD", True)),
    ],
)
def test_landed_unit_price_in_dollars(price, shipping, quantity, currency, expected):
    ship = None if shipping is None else Decimal(shipping)
    got = landed_unit_price(Decimal(price), ship, quantity, currency, RankSettings())
    assert got == expected


@pytest.mark.parametrize(
    ("currency", "expected"),
    [("EUR", Decimal("110.00")), ("USD", Decimal("101.20")), ("GBP", Decimal("128.70"))],
)
def test_rates_are_user_currency_per_unit_of_the_listing_currency(currency, expected):
    got = landed_unit_price(Decimal("100"), Decimal("10"), 1, currency, EUR_USER)
    assert got == Landed(expected, "EUR", True)


@pytest.mark.parametrize("rate", [None, Decimal(0), Decimal(-1), Decimal("NaN")])
def test_a_currency_without_a_usable_rate_is_never_converted_one_to_one(rate):
    rates = {"USD": Decimal(1)} | ({"CAD": rate} if rate is not None else {})
    settings = RankSettings(fx_rates=rates)

    assert fx_rate("CAD", settings) is None
    assert landed_unit_price(Decimal("100"), Decimal(0), 1, "CAD", settings) is None


def test_the_users_own_currency_needs_no_rate():
    settings = RankSettings(currency="GBP", fx_rates={})
    assert fx_rate("gbp", settings) == Decimal(1)


def test_a_half_cent_is_rounded_up_as_a_seller_would_charge_it():
    lot = landed_unit_price(Decimal("10.01"), Decimal("0"), 2, "USD", RankSettings())
    assert lot is not None and lot.unit_price == Decimal("5.01")
