"""The building blocks of the config file's schema that more than one stage declares with:
the strict TOML table, environment-variable names for secrets, one-or-many lists, durations.

Pydantic checks them; ``rigscout.config`` reads the file and words the errors. A stage that
owns a section (an alert channel type, say) declares it with these, next to its code.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, model_validator

# Keys whose value would be a secret: the file names an environment variable instead.
SECRET_KEYS = ("password", "username", "webhook_url", "client_id", "client_secret")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _env_name(value: str) -> str:
    """A variable name, checked without ever repeating the value (it may be the secret)."""
    if "://" in value:
        raise ValueError("that looks like a URL, not a variable name (put the URL in the variable)")
    if not _ENV_NAME.fullmatch(value):
        raise ValueError("expected an environment variable name (letters, digits and _)")
    return value


def one_or_many(value: object) -> object:
    """A single string as a one-item list: ``to = "me@x"`` or ``to = ["me@x", "you@y"]``."""
    return [value] if isinstance(value, str) else value


def show(value: object) -> str:
    """A value as the TOML file spells it, for error lines."""
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    return str(value)


MAX_DURATION = timedelta(days=3650)  # no auction, quiet hour or sweep lasts ten years
_DURATION = re.compile(r"(?:(\d+)d)?\s*(?:(\d+)h)?\s*(?:(\d+)m(?:in)?)?", re.IGNORECASE)


def parse_duration(value: object) -> timedelta:
    """``"3h"``, ``"90m"``, ``"1d"``, ``"1h30m"`` as a timedelta (above zero)."""
    text = value.strip() if isinstance(value, str) else ""
    match = _DURATION.fullmatch(text)
    if not text or match is None:
        raise ValueError(f'{show(value)} is not a duration such as "3h", "90m" or "1d"')
    days, hours, minutes = (int(g or 0) for g in match.groups())
    try:
        length = timedelta(days=days, hours=hours, minutes=minutes)
    except OverflowError:
        length = MAX_DURATION * 2
    if length <= timedelta(0):
        raise ValueError(f"{show(value)}: a duration must be longer than zero")
    if length > MAX_DURATION:
        raise ValueError(f"{show(value)}: a duration of at most {MAX_DURATION.days} days")
    return length


EnvName = Annotated[str, AfterValidator(_env_name)]
Duration = Annotated[timedelta, BeforeValidator(parse_duration)]
Names = Annotated[list[str], BeforeValidator(one_or_many)]
PositiveFloat = Annotated[float, Field(gt=0)]


class Section(BaseModel):
    """A TOML table: unknown keys refused, types checked strictly (``"2"`` is not ``2``)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _no_secrets(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key in SECRET_KEYS:
                if key in data and f"{key}_env" in cls.model_fields:
                    raise ValueError(
                        f'put secrets in the environment: use {key}_env = "VARIABLE", not {key}'
                    )
        return data
