"""Option types shared by several commands: checked values, one clear line when wrong."""

from __future__ import annotations

import math
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

F = TypeVar("F", bound="Callable[..., Any]")

CATEGORIES = ("gpu", "server", "board")
PROFILES_HELP = "Ranking profile (default: [rank] profile in the config)."


def _money(ctx: click.Context, param: click.Parameter, value: str | None) -> Decimal | None:
    """An amount such as ``250`` or ``99.50``: a Decimal, never negative."""
    if value is None:
        return None
    try:
        amount = Decimal(value.strip().lstrip("$").replace(",", ""))
    except InvalidOperation:
        raise click.BadParameter(f"{value!r} is not an amount (e.g. 250 or 99.50)") from None
    if not amount.is_finite() or amount < 0:
        raise click.BadParameter(f"{value!r} is not an amount of 0 or more")
    return amount


def _output_file(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """A file to write: its directory must exist."""
    if value is not None and not value.parent.is_dir():
        raise click.BadParameter(f"the directory {value.parent} does not exist")
    return value


def money_option(*names: str, **kwargs: Any) -> Callable[[F], F]:
    return click.option(*names, metavar="AMOUNT", callback=_money, **kwargs)


def output_option(*names: str, **kwargs: Any) -> Callable[[F], F]:
    kind = click.Path(dir_okay=False, writable=False, path_type=Path)
    return click.option(*names, type=kind, callback=_output_file, **kwargs)


# A count of 1 or more; a million is more than any store shows, and far from the integer
# sizes Python's slicing refuses ("runs --limit 99999999999999999999").
POSITIVE = click.IntRange(min=1, max=1_000_000)


class _Number(click.ParamType[float, Any]):
    """A finite number (``nan`` and ``inf`` are refused), above 0 or, ``zero_ok``, from 0."""

    name = "number"

    def __init__(self, *, zero_ok: bool = False) -> None:
        self.zero_ok = zero_ok

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            number = float(value)
        except (TypeError, ValueError):
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number) or number < 0 or (number == 0 and not self.zero_ok):
            least = "0 or more" if self.zero_ok else "above 0"
            self.fail(f"{value!r} is not a number {least}", param, ctx)
        return number


POSITIVE_NUMBER = _Number()
NON_NEGATIVE_NUMBER = _Number(zero_ok=True)


def profile_option() -> Callable[[F], F]:
    return click.option(
        "--profile", type=click.Choice(_profile_names(), case_sensitive=False), help=PROFILES_HELP
    )


def _profile_names() -> list[str]:
    from ranking.profiles import load_profiles

    return sorted(load_profiles().profiles)


def resolve_skus(names: Sequence[str], extra: Sequence[Path] = ()) -> tuple[str, ...]:
    """The catalog ids the names mean (``p40``, ``Tesla-P40`` → nvidia-tesla-p40), saying on
    stderr how a name that is not the id itself was read; one line naming the likely SKUs for
    a name that means none or several, the same on every command."""
    from ranking.catalog import load_catalog
    from ranking.titles import load_user_catalog, read_sku_name

    catalog = load_user_catalog(extra).catalog if extra else load_catalog()
    read = [read_sku_name(name, catalog) for name in names]
    unknown = [r for r in read if r.sku is None]
    if unknown:
        from core.errors import ConfigError

        raise ConfigError("; ".join(f"not a catalog SKU: {r.name} ({r.hint})" for r in unknown))
    for r in read:
        if not r.exact:
            click.echo(f"(reading {r.name} as {r.sku})", err=True)
    return tuple(r.sku for r in read if r.sku is not None)
