"""A ``Deal`` as JSON values and back: the one codec of the alert outbox's snapshots (money as
exact strings) and of ``rigscout rank --json`` (money as numbers, for scripts).

Each field is written by the kind its type names (money, a moment, an enum, a real number,
flags, a server's configuration, its reference lines), so a field added to ``Deal`` is carried
without a line here. Reading takes what ``deal_to_json`` wrote, in either money form; a field
an older snapshot lacks takes the record's default.
"""

from __future__ import annotations

import enum
import math
import types
import typing
from dataclasses import MISSING, fields
from datetime import datetime
from decimal import Decimal
from functools import cache
from typing import Any

from core.models import Deal, Flag, ServerConfig

ALERT_ONLY = frozenset({"previous_price"})  # an alert's field, not a ranking's


def deal_to_json(deal: Deal, *, money: type[str] | type[float] = str) -> dict[str, object]:
    """The deal as JSON-safe values; ``money=float`` writes amounts as numbers and leaves out
    what only an alert carries."""
    out: dict[str, object] = {}
    for name, kind in _kinds().items():
        if money is float and name in ALERT_ONLY:
            continue
        out[name] = _write(kind, getattr(deal, name), money)
    return out


def deal_from_json(payload: dict[str, object]) -> Deal:
    """The ``Deal`` ``deal_to_json`` wrote: KeyError for a missing required field, ValueError
    or TypeError (or decimal.InvalidOperation) for a value that cannot be read."""
    values: dict[str, Any] = {}
    for f in fields(Deal):
        if f.name not in payload and (f.default is not MISSING or f.default_factory is not MISSING):
            continue
        values[f.name] = _read(_kinds()[f.name], payload[f.name])
    return Deal(**values)


@cache
def _kinds() -> dict[str, _Field]:
    """Each field's kind, from its type: money, a moment, an enum, a real number…"""
    kinds: dict[str, _Field] = {}
    # core.models imports these for typing only
    names = {"Decimal": Decimal, "datetime": datetime}
    for name, hint in typing.get_type_hints(Deal, localns=names).items():
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        optional = isinstance(hint, types.UnionType) and len(args) == 1
        base = args[0] if optional else hint
        origin = typing.get_origin(base)
        if base is Decimal:
            what = "money"
        elif base is datetime:
            what = "moment"
        elif isinstance(base, type) and issubclass(base, enum.Enum):
            what = "enum"
        elif base is float:
            what = "real"
        elif base is ServerConfig:
            what = "config"
        elif origin is dict:
            what = "metrics"
        elif origin is tuple:
            what = "flags" if typing.get_args(base)[0] is Flag else "reference"
        else:
            what = "plain"
        kinds[name] = _Field(what, base, optional)
    return kinds


class _Field(typing.NamedTuple):
    what: str
    base: Any  # the type, without None
    optional: bool


def _write(kind: _Field, value: Any, money: type[str] | type[float]) -> object:
    what = kind.what
    if value is None:
        return None
    if what == "money":
        return money(value)
    if what == "moment":
        return value.isoformat()
    if what == "enum":
        return value.value
    if what == "real":  # PostgreSQL's JSON type rejects NaN and Infinity
        return value if math.isfinite(value) else None
    if what == "config":
        return value.as_json()
    if what == "metrics":
        return {k: v for k, v in value.items() if math.isfinite(v)}
    if what == "flags":
        return [{"code": f.code, "label": f.label, "severity": f.severity} for f in value]
    if what == "reference":
        return [{"label": lab, "amount": money(amt), "source": src} for lab, amt, src in value]
    return value


def _read(kind: _Field, value: object) -> object:
    what, base, optional = kind
    if value is None or (value == "" and optional):
        # None: absent; a missing score (not finite when written) reads back as NaN
        return None if optional else {float: math.nan, int: 0}[base]
    if what == "real":
        return float(str(value))
    if what == "config":
        return ServerConfig.from_json(value if isinstance(value, dict) else None)
    if what == "metrics":
        items = value.items() if isinstance(value, dict) else ()
        return {str(k): float(v) for k, v in items if isinstance(v, int | float)}
    if what == "flags":
        listed = value if isinstance(value, list) else ()
        return tuple(
            Flag(str(f["code"]), str(f["label"]), str(f["severity"]))
            for f in listed
            if isinstance(f, dict)
        )
    if what == "reference":
        listed = value if isinstance(value, list) else ()
        return tuple(
            (str(line["label"]), Decimal(str(line["amount"])), str(line["source"]))
            for line in listed
            if isinstance(line, dict)
        )
    if what == "money":
        return Decimal(str(value))
    if what == "moment":
        return datetime.fromisoformat(str(value))
    if what == "enum":
        return base(str(value))
    return base(str(value)) if base in (int, str) else base(value)
