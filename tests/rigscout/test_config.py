"""Settings come from one TOML file plus the environment variables it names."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from rigscout.config import DiscordChannel, SmtpChannel, load_settings
from rigscout.errors import ConfigError
from rigscout.models import Mode

STARTER = Path(__file__).resolve().parents[2] / "rigscout" / "starter.toml"


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rigscout.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_starter_config_has_a_search_for_every_catalog_family():
    settings = load_settings(STARTER, {})
    names = {s.name for s in settings.searches}
    assert names == {
        "v100-sxm2",
        "v100-pcie",
        "p40",
        "p100",
        "rtx-3090",
        "rtx-4090",
        "rtx-3060-12gb",
        "a100",
        "sys-4028gr",
        "t181-g20",
        "esc4000",
    }
    assert all(Mode.SOLD in s.modes and Mode.ACTIVE in s.modes for s in settings.searches)


def test_relative_sqlite_path_is_relative_to_the_config_file(tmp_path: Path):
    path = write(tmp_path, '[database]\nurl = "sqlite:///data/prices.db"\n')
    settings = load_settings(path, {}, cwd=Path("/"))
    assert settings.database_url == f"sqlite:///{tmp_path / 'data' / 'prices.db'}"


def test_environment_overrides_the_database_url(tmp_path: Path):
    path = write(tmp_path, '[database]\nurl = "sqlite:///a.db"\n')
    url = "postgresql+psycopg://u@h/db"
    assert load_settings(path, {"RIGSCOUT_DATABASE_URL": url}).database_url == url


def test_secrets_come_from_the_named_environment_variables_and_stay_out_of_repr(tmp_path: Path):
    path = write(
        tmp_path,
        """
[alerts.channels.mail]
type = "email"
host = "127.0.0.1"
port = 2525
security = "none"
from = "a@example.com"
to = "b@example.com"
password_env = "MY_SMTP_PW"

[alerts.channels.chat]
type = "discord"
webhook_url_env = "MY_HOOK"

[[alerts.rule]]
name = "cheap"
sku = "nvidia-tesla-p40"
max_price = 180
channels = ["mail"]
""",
    )
    env = {
        "MY_SMTP_PW": "Hunter2-pw",
        "MY_HOOK": "https://discord.example/api/webhooks/1/S3cr3tT0ken",
    }
    settings = load_settings(path, env)
    mail = settings.alerts.channels["mail"]
    chat = settings.alerts.channels["chat"]
    assert isinstance(mail, SmtpChannel) and mail.password == "Hunter2-pw"
    assert isinstance(chat, DiscordChannel) and chat.webhook_url.endswith("/S3cr3tT0ken")
    assert "Hunter2-pw" not in repr(settings) and "S3cr3tT0ken" not in repr(settings)
    (rule,) = settings.alerts.rules
    assert rule.skus == ("nvidia-tesla-p40",) and rule.max_price == Decimal("180")


def test_a_secret_written_in_the_file_is_refused(tmp_path: Path):
    path = write(
        tmp_path,
        '[alerts.channels.chat]\ntype = "discord"\nwebhook_url = "https://x/y"\n',
    )
    with pytest.raises(ConfigError, match="webhook_url_env"):
        load_settings(path, {})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[database\n", "not valid TOML"),
        ('[[search]]\nname = "x"\n', "query"),
        ('[[search]]\nquery = "p40"\nmarketplace = "EBAY_XX"\n', "unknown marketplace"),
        ('[[search]]\nquery = "p40"\nmodes = ["sometimes"]\n', "sometimes"),
        ('[[alerts.rule]]\nchannels = ["nowhere"]\n', "unknown channels"),
        ("[collector]\nspeed = 3\n", "unknown keys: speed"),
        ('[alerts.channels.c]\ntype = "discord"\n', "RIGSCOUT_DISCORD_WEBHOOK is not set"),
        (
            '[alerts.channels.m]\ntype = "email"\nhost = "h"\nfrom = "a@b"\nto = "c@d"\n'
            'security = "tls"\n',
            "security must be",
        ),
    ],
)
def test_bad_configuration_gives_a_clear_error(tmp_path: Path, text: str, message: str):
    with pytest.raises(ConfigError, match=message):
        load_settings(write(tmp_path, text), {})


def test_fx_rates_and_their_date_are_read(tmp_path: Path):
    path = write(tmp_path, '[rank]\ncurrency = "eur"\n[rank.fx]\ndate = "2026-11-20"\nUSD = 0.95\n')
    rank = load_settings(path, {}).rank
    assert rank.currency == "EUR"
    assert rank.fx_rates == {"USD": Decimal("0.95"), "EUR": Decimal(1)}
    assert str(rank.fx_date) == "2026-11-20"
