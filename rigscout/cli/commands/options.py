"""Option types shared by several commands: checked values, one clear line when wrong."""

from __future__ import annotations

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


POSITIVE = click.IntRange(min=1)


def profile_option() -> Callable[[F], F]:
    return click.option("--profile", type=click.Choice(_profile_names()), help=PROFILES_HELP)


def _profile_names() -> list[str]:
    from ranking.profiles import load_profiles

    return sorted(load_profiles().profiles)


def check_skus(skus: tuple[str, ...] | list[str], extra: Sequence[Path] = ()) -> None:
    """The same answer on every command for a SKU the catalog (with ``extra`` files) lacks."""
    from ranking.catalog import load_catalog
    from ranking.catalog_user import load_user_catalog

    catalog = load_user_catalog(extra).catalog if extra else load_catalog()
    unknown = [s for s in skus if s not in catalog]
    if unknown:
        import difflib

        from core.errors import ConfigError

        known = [s.sku for s in catalog]
        hints = [difflib.get_close_matches(s, known, n=1, cutoff=0.85) for s in unknown]
        guess = f" (did you mean {hints[0][0]}?)" if len(unknown) == 1 and hints[0] else ""
        raise ConfigError(
            f"not a catalog SKU: {', '.join(unknown)}{guess} (see `rigscout catalog`)"
        )
