"""Landed unit price: (price + shipping) / quantity, in the user's currency.

``RankSettings.fx_rates`` maps a currency to the units of the user's currency that one unit of
it buys (user currency USD, ``EUR = 1.08``: 1 EUR = 1.08 USD), as of ``RankSettings.fx_date``.
A currency without a rate is never converted 1:1: the listing is skipped and counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

from ranking.titles import ship_origin

if TYPE_CHECKING:
    from core.settings import RankSettings

CENT = Decimal("0.01")


@dataclass(frozen=True, slots=True)
class Landed:
    """What one unit costs delivered; ``shipping_known`` False: the price alone, or the price
    plus an estimated freight when ``freight_estimated``."""

    unit_price: Decimal
    currency: str
    shipping_known: bool
    freight_estimated: bool = False


def fx_rate(currency: str, settings: RankSettings) -> Decimal | None:
    """Units of the user's currency per unit of ``currency``; None when no rate is configured."""
    if currency == settings.currency or currency.upper() == settings.currency.upper():
        return Decimal(1)
    rate = settings.fx_rates.get(currency.upper())
    if rate is None or not rate.is_finite() or rate <= 0:
        return None
    return rate


def landed_unit_price(
    price: Decimal,
    shipping: Decimal | None,
    quantity: int,
    currency: str,
    settings: RankSettings,
    *,
    freight: Decimal | None = None,
) -> Landed | None:
    """The landed unit price in the user's currency, rounded half up to the cent; None without
    an FX rate.

    ``freight`` (user's currency, for the whole listing) stands in for unknown shipping.

    >>> landed_unit_price(Decimal("250"), Decimal("28"), 2, "USD", RankSettings()).unit_price
    Decimal('139.00')
    """
    total = price + shipping if shipping is not None else price
    if currency != settings.currency:
        rate = fx_rate(currency, settings)
        if rate is None:
            return None
        total *= rate
    estimated = shipping is None and freight is not None
    if estimated:
        total += freight or Decimal(0)
    if quantity > 1:
        total /= quantity
    unit = total.quantize(CENT, rounding=ROUND_HALF_UP)
    return Landed(unit, settings.currency, shipping is not None, freight_estimated=estimated)


def landed_with_freight(
    price: Decimal,
    shipping: Decimal | None,
    quantity: int,
    currency: str,
    *,
    category: str,
    settings: RankSettings,
    marketplace: str,
    location: str | None,
) -> Landed | None:
    """``landed_unit_price`` with the category's estimated freight standing in for unknown
    shipping: what the ranking, the report and the export all call a listing's landed price.
    From a neighbouring country or overseas (``ranking/titles/origin.py``) the estimate is
    ``freight_factors`` times the domestic one."""
    freight = settings.freight.get(category)
    factor = settings.freight_factors.get(ship_origin(marketplace, location))
    if freight is not None and factor is not None:
        freight = (freight * factor).quantize(CENT)
    return landed_unit_price(price, shipping, quantity, currency, settings, freight=freight)
