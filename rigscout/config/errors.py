"""Pydantic's validation errors as the lines a person reads: the section, the key, the value,
what was expected, and for a typo the closest valid name.

    rigscout.toml: [collector] concurrency = "two": expected a valid integer
    rigscout.toml: [[search]] #2 (p40): unknown key maxprice (did you mean max_price?)

Values are echoed only for type and range errors on known keys; unknown keys, secrets and
environment-variable names never have their value repeated.
"""

from __future__ import annotations

import difflib
import types
from typing import TYPE_CHECKING, Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

from alerts.channels import CHANNEL_TYPES
from core.config_types import show

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from pydantic import ValidationError
    from pydantic_core import ErrorDetails

# Error types whose input is a plain value the user typed on a known key: safe to repeat.
_ECHO = ("_type", "_parsing", "literal_error", "greater_than", "less_than", "too_short", "too_long")


def render_validation_error(
    error: ValidationError, root: type[BaseModel], raw: Mapping[str, Any], source: str
) -> list[str]:
    """One line per problem, in file order, prefixed by ``source`` (the file name)."""
    return [f"{source}: {_line(detail, root, raw)}" for detail in error.errors()]


def _line(detail: ErrorDetails, root: type[BaseModel], raw: Mapping[str, Any]) -> str:
    where, key, model = _locate(detail["loc"], root, raw)
    kind = detail["type"]
    if kind == "extra_forbidden" and key is not None:
        return f"{where}unknown key {key}{_suggest(key, model)}"
    if kind == "missing" and key is not None:
        return f"{where}{key} is required"
    if kind == "union_tag_not_found":
        names = [f'"{row.name}"' for row in CHANNEL_TYPES]
        return f"{where}needs type = {', '.join(names[:-1])} or {names[-1]}"
    if kind in ("model_type", "model_attributes_type", "dict_type") and key is None:
        return f"{where.rstrip(': ')}: expected a table, not {show(detail['input'])}"
    message = detail["msg"].removeprefix("Value error, ")
    message = message.replace("Input should be", "expected").replace("Input", "value")
    if key is None:
        return f"{where.rstrip(': ')}: {message}" if where else message
    if any(part in kind for part in _ECHO):
        return f"{where}{key} = {show(detail['input'])}: {message}"
    return f"{where}{key}: {message}"


def _locate(
    loc: Sequence[int | str], root: type[BaseModel], raw: Mapping[str, Any]
) -> tuple[str, str | None, type[BaseModel] | None]:
    """``("[[search]] #2 (p40): ", "maxprice", SearchSection)`` for a location in the file.

    Walks the models along ``loc``; a discriminated union's tag in ``loc`` is skipped.
    """
    model: type[BaseModel] | None = root
    node: Any = raw
    table: list[str] = []
    array_item = ""
    key: str | None = None
    tp: Any = root
    for element in loc:
        if model is not None and isinstance(element, str) and _is_model(tp):
            field = model.model_fields.get(element)
            by_alias = {f.alias: f for f in model.model_fields.values() if f.alias}
            field = field or by_alias.get(element)
            if field is None or not _has_model(field.annotation):
                key = element
                break
            table.append(element)
            array_item = ""
            node = node.get(element, {}) if isinstance(node, dict) else {}
            tp = _strip(field.annotation)
            model = tp if _is_model(tp) else None
            continue
        if isinstance(element, int) and get_origin(tp) is list:
            array_item = f" #{element + 1}"
            node = node[element] if isinstance(node, list) and element < len(node) else {}
            if isinstance(node, dict) and node.get("name"):
                array_item += f" ({node['name']})"
            tp = _strip(get_args(tp)[0])
            model = tp if _is_model(tp) else None
            continue
        if get_origin(tp) is dict:
            table.append(str(element))
            node = node.get(element, {}) if isinstance(node, dict) else {}
            tp = _strip(get_args(tp)[1])
            model = tp if _is_model(tp) else None
            continue
        members = _union_models(tp)
        if members:  # a discriminated union: ``element`` is the tag
            match = [m for m in members if element in _tags(m)]
            model = match[0] if match else None
            tp = model
            continue
        key = str(element)
        break
    where = ""
    if table:
        name = ".".join(table)
        where = f"[[{name}]]{array_item}: " if array_item else f"[{name}]: "
    return where, key, model


def _suggest(key: str, model: type[BaseModel] | None) -> str:
    if model is None:
        return ""
    names = [f.alias or n for n, f in model.model_fields.items()]
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
    if close:
        return f" (did you mean {close[0]}?)"
    return f" (known keys: {', '.join(names)})"


def _strip(tp: Any) -> Any:
    """``X`` for ``Annotated[X, ...]`` and ``X | None``; unions of models stay unions."""
    while True:
        if get_origin(tp) is Annotated:
            tp = get_args(tp)[0]
            continue
        if get_origin(tp) in (Union, types.UnionType):
            args = [a for a in get_args(tp) if a is not type(None)]
            if len(args) == 1:
                tp = args[0]
                continue
        return tp


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _has_model(annotation: Any) -> bool:
    tp = _strip(annotation)
    if _is_model(tp) or _union_models(tp):
        return True
    if get_origin(tp) in (list, dict):
        return _has_model(get_args(tp)[-1])
    return False


def _union_models(tp: Any) -> list[type[BaseModel]]:
    if get_origin(tp) in (Union, types.UnionType):
        return [a for a in get_args(tp) if _is_model(a)]
    return []


def _tags(model: type[BaseModel]) -> tuple[str, ...]:
    field = model.model_fields.get("type")
    return tuple(str(a) for a in get_args(field.annotation)) if field else ()
