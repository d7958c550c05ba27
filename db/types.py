"""Exact fixed-point columns: money as whole cents, percentages as whole tenths, in integers.

SQLite has no decimal type (a ``NUMERIC`` column keeps 0.1 + 0.2 as the float
0.30000000000000004), so every amount is stored as an integer count of its smallest unit on both
backends and comes back as the same ``Decimal``: ``Decimal("19999999.99")`` is stored as
1999999999. Money is never rounded: an amount with digits under a cent is refused with
``InexactAmountError`` (the parsers read prices to the cent, and FX is applied only when
ranking). Percentages (a seller's positive feedback) are rounded half-even to a tenth, as eBay
prints them. SQL that does arithmetic on these columns works in the integer unit: read them
with ``type_coerce(column, Integer)`` to get the raw cents.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from typing import TYPE_CHECKING, Any, ClassVar

from sqlalchemy import BigInteger, Integer, TypeDecorator, type_coerce

from core.errors import StoreError

if TYPE_CHECKING:
    from sqlalchemy import ColumnElement, SQLColumnExpression
    from sqlalchemy.engine import Dialect
    from sqlalchemy.types import TypeEngine

# Amounts whose integer unit fits a signed 64-bit column (PostgreSQL BIGINT, SQLite INTEGER).
_MAX_UNITS = 2**63 - 1


class InexactAmountError(StoreError, ValueError):
    """An amount that cannot be stored exactly (sub-cent digits, a float, NaN, out of range)."""


def to_units(amount: Decimal | int, places: int, *, exact: bool = True) -> int:
    """``amount`` as a whole number of 10**-places units: ``to_units(Decimal("0.30"), 2) == 30``.

    With ``exact`` an amount with more decimals than ``places`` is refused; without it it is
    rounded half-even (``to_units(Decimal("99.25"), 1, exact=False) == 992``).
    """
    if isinstance(amount, bool) or not isinstance(amount, Decimal | int):
        raise InexactAmountError(
            f"amount {amount!r} is a {type(amount).__name__}; amounts are stored from "
            "Decimal (or int) only, never from float or text"
        )
    value = Decimal(amount)
    if not value.is_finite():
        raise InexactAmountError(f"amount {amount!r} is not a number")
    try:
        scaled = value.scaleb(places)
        units = scaled.to_integral_value(rounding=ROUND_HALF_EVEN)
    except InvalidOperation as exc:
        raise InexactAmountError(f"amount {amount!r} is too large to store") from exc
    if exact and units != scaled:
        raise InexactAmountError(
            f"amount {amount} has digits under 1/{10**places} of its unit; rigscout stores money "
            "in whole cents and never rounds it silently"
        )
    if abs(units) > _MAX_UNITS:
        raise InexactAmountError(f"amount {amount} is too large to store")
    return int(units)


def from_units(units: int, places: int) -> Decimal:
    """The Decimal of a stored integer: ``from_units(30, 2) == Decimal("0.30")`` (two places)."""
    return Decimal(int(units)).scaleb(-places)


class _FixedPoint(TypeDecorator[Decimal]):
    """A Decimal stored as an integer count of 10**-places units (INTEGER on SQLite)."""

    impl = Integer
    cache_ok = True
    places: ClassVar[int]
    exact: ClassVar[bool]

    def process_bind_param(self, value: Decimal | int | None, dialect: Dialect) -> int | None:
        return None if value is None else to_units(value, self.places, exact=self.exact)

    def process_result_value(self, value: object, dialect: Dialect) -> Decimal | None:
        if value is None:
            return None
        if not isinstance(value, int):
            # Only a database written around rigscout (not migrated) can hold anything else.
            raise InexactAmountError(
                f"stored amount {value!r} is not an integer count of units; run `rigscout db "
                "upgrade`"
            )
        return from_units(value, self.places)


class ExactMoney(_FixedPoint):
    """Money: a Decimal with at most two decimals, stored as integer cents (BIGINT)."""

    impl = BigInteger
    cache_ok = True  # read from each class itself, not inherited
    places = 2
    exact = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[int]:
        # The same 64-bit integer on both; SQLite names it INTEGER (BIGINT would only read oddly).
        return dialect.type_descriptor(Integer() if dialect.name == "sqlite" else BigInteger())


class Tenths(_FixedPoint):
    """A percentage such as 99.5, stored as integer tenths (995, INTEGER), rounded half-even."""

    cache_ok = True
    places = 1
    exact = False


def raw_units(column: SQLColumnExpression[Any]) -> ColumnElement[Any]:
    """A money column as its stored integers (cents), for SQL to add or compare without
    converting; ``from_units`` reads the result back."""
    return type_coerce(column, BigInteger())
