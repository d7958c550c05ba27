"""parse_price and parse_shipping: eBay's price wording in every marketplace we read."""

from __future__ import annotations

import contextlib
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.errors import ParseError
from scraper.money import Price, Shipping, parse_price, parse_shipping

D = Decimal


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$100.00 to $150.00", Price(D("100.00"), D("150.00"), "USD")),
        ("US $1,234.56", Price(D("1234.56"), None, "USD")),
        ("C $45.00", Price(D("45.00"), None, "CAD")),
        ("AU $1,050.00", Price(D("1050.00"), None, "AUD")),
        ("£4.49", Price(D("4.49"), None, "GBP")),
        ("£4.49 to £8.49", Price(D("4.49"), D("8.49"), "GBP")),
        ("EUR 17,72", Price(D("17.72"), None, "EUR")),
        ("EUR 17,72 bis EUR 18,66", Price(D("17.72"), D("18.66"), "EUR")),
        ("1.234,56 €", Price(D("1234.56"), None, "EUR")),
        ("EUR 1.299,00", Price(D("1299.00"), None, "EUR")),
        ("US\u00a0$2,450.00", Price(D("2450.00"), None, "USD")),
        ("1\u202f234,56\u00a0€", Price(D("1234.56"), None, "EUR")),
        ("  $610.00 ", Price(D("610.00"), None, "USD")),
        ("$5", Price(D("5.00"), None, "USD")),
        # what eBay shows a visitor from elsewhere: local signs and ISO codes, read as such
        ("S/. 44.38", Price(D("44.38"), None, "PEN")),
        ("12,345円", Price(D("12345.00"), None, "JPY")),
        ("JPY 12,345 to JPY 15,000", Price(D("12345.00"), D("15000.00"), "JPY")),
        ("IDR 1.234.567,00", Price(D("1234567.00"), None, "IDR")),
        ("Rp 1.234.567", Price(D("1234567.00"), None, "IDR")),
        ("R$ 1.299,90", Price(D("1299.90"), None, "BRL")),
        ("MXN 2,450.00", Price(D("2450.00"), None, "MXN")),
        ("1 299,00 zł", Price(D("1299.00"), None, "PLN")),
        ("3.150,00 € a 3.400,00 €", Price(D("3150.00"), D("3400.00"), "EUR")),
    ],
)
def test_prices(text, expected):
    assert parse_price(text) == expected


def test_bare_dollar_follows_the_marketplace():
    assert parse_price("$45.00", dollar="CAD").currency == "CAD"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "junk",
        "$",
        "Free",
        "12.00",
        "$1.2.3",
        "$-5",
        "$20 to £30",
        "$30 to $20",
        "Sold",
        "¤216.36",
        "Preis auf Anfrage",
    ],
)
def test_junk_is_an_error_never_zero(text):
    with pytest.raises(ParseError):
        parse_price(text)


@pytest.mark.parametrize(
    ("text", "currency", "expected"),
    [
        ("Free shipping", "USD", Shipping(D("0.00"), None)),
        ("Free delivery", "USD", Shipping(D("0.00"), None)),
        ("Free International Shipping", "USD", Shipping(D("0.00"), None)),
        ("+$12.50 shipping", "USD", Shipping(D("12.50"), None)),
        ("+$4.99 delivery in 4-9 days", "USD", Shipping(D("4.99"), None)),
        ("+$33.96 shipping estimate", "USD", Shipping(D("33.96"), "estimate")),
        ("+ £5.49 postage", "GBP", Shipping(D("5.49"), None)),
        ("+EUR 5,99 Versand", "EUR", Shipping(D("5.99"), None)),
        ("+ ca. EUR 12,45 Versand", "EUR", Shipping(D("12.45"), "estimate")),
        ("Shipping not specified", "USD", Shipping(None, "not specified")),
        ("Postage not specified", "GBP", Shipping(None, "not specified")),
        ("Freight", "USD", Shipping(None, "freight")),
        ("Local pickup", "USD", Shipping(None, "local pickup")),
        ("Livraison gratuite", "EUR", Shipping(D("0.00"), None)),
        ("+8,50 € de frais de livraison", "EUR", Shipping(D("8.50"), None)),
        ("Spedizione gratis", "EUR", Shipping(D("0.00"), None)),
        ("+EUR 9,90 spedizione", "EUR", Shipping(D("9.90"), None)),
        ("Envío no especificado", "EUR", Shipping(None, "not specified")),
        ("+S/. 20.00 envío", "PEN", Shipping(D("20.00"), None)),
    ],
)
def test_shipping(text, currency, expected):
    assert parse_shipping(text, currency) == expected


@pytest.mark.parametrize(("text", "currency"), [("shipping soon", "USD"), ("+£5 postage", "USD")])
def test_unreadable_or_foreign_shipping_is_an_error(text, currency):
    with pytest.raises(ParseError):
        parse_shipping(text, currency)


@given(st.text())
def test_parse_price_raises_nothing_but_parse_error(text):
    try:
        price = parse_price(text)
    except ParseError:
        return
    assert price.low >= 0
    assert price.high is None or price.high >= price.low


@given(st.text(alphabet="$£€EURUS .,0123456789 tobis\u00a0", max_size=30))
def test_parse_price_on_price_like_noise(text):
    with contextlib.suppress(ParseError):
        parse_price(text)


@given(st.text(), st.sampled_from(["USD", "GBP", "EUR"]))
def test_parse_shipping_raises_nothing_but_parse_error(text, currency):
    with contextlib.suppress(ParseError):
        parse_shipping(text, currency)
