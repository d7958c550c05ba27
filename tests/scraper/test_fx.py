"""The ECB's daily euro reference rates, read and re-based on the buyer's currency."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from bench import FIXTURES
from core.errors import ParseError
from scraper.fx import parse_ecb_rates, rates_in

ECB = (FIXTURES / "fx" / "eurofxref-daily.xml").read_text(encoding="utf-8")


def test_the_daily_file_gives_its_date_and_each_currency_per_euro():
    rates = parse_ecb_rates(ECB)

    assert rates.day == date(2026, 11, 27)
    assert rates.per_euro["EUR"] == 1 and rates.per_euro["USD"] == Decimal("1.0500")


def test_rates_are_re_based_on_the_buyers_currency_as_rank_fx_reads_them():
    in_usd = rates_in(parse_ecb_rates(ECB), "usd")

    # [rank.fx]: units of USD per unit of each currency.
    assert in_usd["USD"] == 1
    assert in_usd["EUR"] == Decimal("1.050000")
    assert in_usd["GBP"] == Decimal("1.250000")  # 1.05 / 0.84
    assert in_usd["JPY"] == Decimal("0.0065625")  # six significant digits, never rounded to 0
    tiny = rates_in(parse_ecb_rates(ECB.replace("rate='160.00'", "rate='900000'")), "usd")
    assert tiny["JPY"] == Decimal("0.00000116667")  # a rate far under a millionth stays a rate


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("<html>maintenance</html>", "expected one dated"),
        ("not xml at all", "not the ECB's daily rates"),
        (ECB.replace("rate='1.0500'", "rate='-1'"), "no positive rates"),
    ],
)
def test_anything_else_is_a_clear_error(text, why):
    with pytest.raises(ParseError, match=why):
        parse_ecb_rates(text)


def test_a_currency_the_ecb_does_not_quote_is_named():
    with pytest.raises(ParseError, match="the ECB does not quote SEK"):
        rates_in(parse_ecb_rates(ECB), "SEK")
