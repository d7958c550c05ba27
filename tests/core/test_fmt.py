"""Money and time as every output writes them: the table, the sentence, the alert, the page."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest

from core.fmt import money, money_range, time_left, unit_money

NOW = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("amount", "currency", "shown"),
    [
        ("101.266", "USD", "$101.27"),  # the table and the sentence agree to the cent
        ("90", "USD", "$90.00"),
        ("0.99", "USD", "$0.99"),
        ("999.995", "USD", "$1,000.00"),
        ("1128.4", "USD", "$1,128"),  # whole units from 1,000
        ("1299.5", "USD", "$1,300"),
        ("45.5", "CAD", "C$45.50"),  # one symbol table: CAD reads C$ everywhere
        ("45.5", "AUD", "A$45.50"),
        ("1299", "EUR", "€1,299"),
        ("12.5", "GBP", "£12.50"),
        ("1299", "SEK", "1,299 SEK"),  # no symbol: the ISO code after the amount
        ("-12", "USD", "−$12.00"),
    ],
)
def test_money_is_written_one_way_everywhere(amount: str, currency: str, shown: str) -> None:
    assert money(Decimal(amount), currency) == shown


def test_a_range_is_one_price_when_its_ends_meet() -> None:
    assert money_range(Decimal(125), Decimal(140), "USD") == "$125.00–$140.00"
    assert money_range(Decimal(125), Decimal("125.001"), "USD") == "$125.00"
    assert money_range(Decimal(125), None, "USD") == "$125.00"


@pytest.mark.parametrize(
    ("amount", "shown"), [(12.3, "$12"), (4.44, "$4.4"), (0.153, "$0.15"), (0.0632, "$0.063")]
)
def test_a_small_ratio_keeps_two_significant_figures(amount: float, shown: str) -> None:
    assert unit_money(amount, "USD") == shown


@pytest.mark.parametrize(
    ("delta", "shown"),
    [
        (timedelta(days=2, hours=4, minutes=59), "2d 4h"),
        (timedelta(minutes=42), "0h 42m"),
        (timedelta(seconds=-5), "ended"),
    ],
)
def test_time_left(delta: timedelta, shown: str) -> None:
    assert time_left(NOW + delta, NOW) == shown
    assert time_left(None, NOW) == ""
