"""Whatever a config file holds, loading it gives Settings or one ConfigError, nothing else."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import ConfigError
from rigscout.config import schema as config_schema
from rigscout.config.load import _settings_from
from rigscout.config.schema import ConfigFile

# Real section and key names (so the fuzz reaches deep into the schema) plus a few typos.
SECTIONS = [*ConfigFile.model_fields, "colector", "alert"]
KEYS = sorted(
    {
        field.alias or name
        for model in vars(config_schema).values()
        if isinstance(model, type) and issubclass(model, config_schema.Section)
        for name, field in model.model_fields.items()
    }
    | {"USD", "date", "password", "maxprice", "webhook_url"}
)
scalars = st.one_of(
    st.integers(-5, 10_000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["active", "sold", "email", "discord", "gpu", "training", "UTC", "USD"]),
    st.booleans(),
    st.dates(min_value=date(2000, 1, 1), max_value=date(2100, 1, 1)),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.sampled_from(KEYS), inner, max_size=4),
    ),
    max_leaves=12,
)
files = st.dictionaries(st.sampled_from(SECTIONS), values, max_size=4)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files)
def test_any_file_gives_settings_or_one_config_error(raw):
    message = "ok"
    try:
        _settings_from(raw, {}, Path("/tmp"), None)
    except ConfigError as exc:
        message = str(exc)
    assert message.strip()
    assert all(line.strip() for line in message.splitlines())
