"""Settings come from one TOML file plus the environment variables it names."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from alerts.channels import missing_secrets
from alerts.settings import DiscordChannel, SmtpChannel
from core.errors import ConfigError
from core.models import Mode
from rigscout.config.load import load_settings

STARTER = Path(__file__).resolve().parents[3] / "rigscout" / "config" / "starter.toml"


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
        ('[[search]]\nname = "x"\n', "[[search]] #1 (x): query is required"),
        (
            '[[search]]\nquery = "p40"\nmarketplace = "EBAY_XX"\n',
            "marketplace = \"EBAY_XX\": expected 'EBAY_US'",
        ),
        ('[[search]]\nquery = "p40"\nmodes = ["sometimes"]\n', "sometimes"),
        (
            '[[alerts.rule]]\nchannels = ["nowhere"]\n',
            "[[alerts.rule]] #1: unknown channel 'nowhere'",
        ),
        ("[collector]\nspeed = 3\n", "[collector]: unknown key speed (known keys: base_url,"),
        (
            '[alerts.channels.m]\ntype = "email"\nhost = "h"\nfrom = "a@b"\nto = "c@d"\n'
            'security = "tls"\n',
            "[alerts.channels.m]: security = \"tls\": expected 'starttls', 'ssl' or 'none'",
        ),
    ],
)
def test_bad_configuration_gives_a_clear_error(tmp_path: Path, text: str, message: str):
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_settings(write(tmp_path, text), {})


@pytest.mark.parametrize(
    ("text", "line"),
    [
        # typos in section and key names name the closest valid one
        ("[colector]\nconcurrency = 2\n", "unknown key colector (did you mean collector?)"),
        (
            '[[search]]\nname = "p40"\nquery = "p40"\nmaxprice = 50\n',
            "[[search]] #1 (p40): unknown key maxprice (did you mean max_price?)",
        ),
        (
            '[[alerts.rule]]\nname = "cheap"\nmax_prise = 50\n',
            "[[alerts.rule]] #1 (cheap): unknown key max_prise (did you mean max_price?)",
        ),
        (
            '[alerts.channels.d]\ntype = "discord"\nwebhook_url_evn = "X"\n',
            "[alerts.channels.d]: unknown key webhook_url_evn (did you mean webhook_url_env?)",
        ),
        (
            "[rank.freight]\nservr = 100\n",
            "[rank.freight]: unknown key servr (did you mean server?)",
        ),
        # wrong types and ranges name the key, the value and what is expected
        ('[collector]\nconcurrency = "two"\n', '[collector]: concurrency = "two": expected'),
        ('[collector]\ntimeout = "20s"\n', '[collector]: timeout = "20s": expected'),
        ("[collector]\nconcurrency = 0\n", "concurrency = 0: expected greater than or equal to 1"),
        ("[rank]\nwindow_days = 2.5\n", "[rank]: window_days = 2.5: expected"),
        ("[rank.freight]\noverseas = 0.5\n", "overseas = 0.5: expected greater than or equal to 1"),
        ("[rank]\npool_window_days = 0\n", "pool_window_days = 0: expected greater than"),
        ('[[search]]\nquery = "p40"\nmax_price = "cheap"\n', '"cheap" is not a number'),
        ('[[search]]\nquery = "p"\nmin_price = 9\nmax_price = 5\n', "min_price 9 is above"),
        ("[[alerts.rule]]\nmin_score = 0.8\nmin_discount = 3\n", "min_discount = 3: expected"),
        ("[[alerts.rule]]\nmin_score = 180\n", "min_score = 180: expected less than or"),
        (
            '[[alerts.rule]]\nending_within = "soon"\n',
            'ending_within: "soon" is not a duration such as "3h"',
        ),
        ('[[alerts.rule]]\nending_within = "0h"\n', "a duration must be longer than zero"),
        ("[[alerts.rule]]\nmin_drop = 0.1\nnew_low_days = 0\n", "new_low_days = 0: expected"),
        ("[[alerts.rule]]\nmin_drop = 10\n", "min_drop = 10: expected less than 1"),
        ("[[alerts.rule]]\nmin_drop = 0.1\ndrop_pct = 10\n", "set min_drop or drop_pct, not both"),
        ("[[alerts.rule]]\ndrop_pct = 150\n", "drop_pct = 150: expected less than 100"),
        ("[[alerts.rule]]\nmax_per_run = 0\n", "max_per_run = 0: expected greater than"),
        (
            '[alerts.channels.p]\ntype = "apprise"\nurls_env = "X"\nquiet_hours = "11pm-7am"\n',
            "[alerts.channels.p]: quiet_hours: '11pm-7am': expected a time range like \"23:00-07:00\"",
        ),
        ('[alerts.channels.p]\ntype = "apprise"\n', "[alerts.channels.p]: urls_env is required"),
        ('[alerts.channels.p]\ntype = "apprise"\nurls_env = "X"\nmode = "hourly"\n', "mode"),
        ('[[alerts.rule]]\ncategory = "gpus"\n', "category = \"gpus\": expected 'gpu'"),
        ('[alerts.channels.x]\ntype = "pager"\n', "[alerts.channels.x]: "),
        ("[alerts.channels.x]\nhost = 1\n", 'needs type = "email", "discord" or "apprise"'),
        ('[rank.fx]\nEUR = "1.05"\n', 'fx EUR = "1.05": expected a rate above 0'),
        (
            '[rank]\ncurrency = "EUT"\n',
            '"EUT" is not a currency rigscout knows (did you mean EUR?)',
        ),
        ('[rank]\ncurrency = "XYZ"\n', '"XYZ" is not a currency rigscout knows'),
        # The starter's USD table kept after switching to EUR would price everything wrong.
        (
            '[rank]\ncurrency = "EUR"\n[rank.fx]\nUSD = 1.0\nEUR = 1.05\n',
            "currency = 'EUR' but fx EUR = 1.05: the rates are units of EUR per unit",
        ),
        (
            '[rank]\ncurrency = "EUR"\n[rank.fx]\nUSD = 1.0\n',
            "fx USD = 1 would count USD as EUR one to one; give the real rate",
        ),
        ('[rank]\nprofile = "trainig"\n', "unknown profile 'trainig' (did you mean training?)"),
        ('[schedule]\ntimezone = "Mars/Base"\n', "not a time zone"),
        ('[schedule]\ntimezone = ""\n', "timezone = '': not a time zone"),  # was "unexpected"
        (
            '[[alerts.rule]]\nending_within = "100000000000000000000d"\n',
            "a duration of at most 3650 days",  # was "unexpected OverflowError"
        ),
        ('[schedule]\ncron = "daily"\n', "expected five fields"),
        ('[[search]]\nquery = "a"\n[[search]]\nquery = "a"\n', "two searches are named 'a'"),
        # rules naming things that do not exist
        (
            '[[alerts.rule]]\nsku = "nvidia-tesla-v100-sxm9"\n',
            "unknown SKU 'nvidia-tesla-v100-sxm9' (it could be any of: nvidia-tesla-v100-sxm2-16gb, "
            "nvidia-tesla-v100-sxm2-32gb,",
        ),
        ('[[alerts.rule]]\nprofile = "gaming"\n', "unknown profile 'gaming'"),
        (
            '[[plan]]\nname = "box"\nvram_gb = 64\nchannels = ["pager"]\n',
            "[[plan]] #1 (box): unknown channel",
        ),
        ('[[plan]]\nvram_gb = "lots"\n', '[[plan]] #1: vram_gb = "lots": expected'),
        ("[report]\ndir = 3\n", "[report]: dir = 3: expected a valid string"),
        ("[catalog]\nextra = [1]\n", "[catalog]: "),
    ],
)
def test_each_mistake_is_one_line_naming_section_key_and_value(
    tmp_path: Path, text: str, line: str
):
    with pytest.raises(ConfigError) as caught:
        load_settings(write(tmp_path, text), {})
    message = str(caught.value)
    assert line in message
    assert message.startswith("rigscout.toml: ")
    assert len(message.splitlines()) == 1


def test_every_problem_in_the_file_is_reported_at_once(tmp_path: Path):
    text = '[collector]\nconcurrency = "two"\nspeed = 1\n[[search]]\nname = "x"\n'
    with pytest.raises(ConfigError) as caught:
        load_settings(write(tmp_path, text), {})
    assert len(str(caught.value).splitlines()) == 3


def test_a_url_given_as_a_variable_name_is_refused_without_echoing_it(tmp_path: Path):
    hook = "https://discord.com/api/webhooks/123/S3cr3tT0ken"
    text = f'[alerts.channels.d]\ntype = "discord"\nwebhook_url_env = "{hook}"\n'
    with pytest.raises(ConfigError) as caught:
        load_settings(write(tmp_path, text), {})
    assert "that looks like a URL, not a variable name" in str(caught.value)
    assert "S3cr3tT0ken" not in str(caught.value)


def test_the_sections_other_features_read_are_accepted(tmp_path: Path):
    text = """
[catalog]
extra = ["my-skus.toml"]

[report]
dir = "report"
url = "https://example.com/rigscout/"

[collector]
max_retry_wait = 600
throttle_factor = 2.0
full_sweep_hours = 24
fast_lane_daily_requests = 200

[alerts.channels.chat]
type = "discord"

[[plan]]
name = "llm-box"
vram_gb = 96
budget = 2500
profile = "llm-inference"
fp16_tflops = 100
gpus = 4
form_factor = "sxm2"
max_auctions = 2
channels = ["chat"]
currency = "USD"
"""
    (tmp_path / "my-skus.toml").write_text("", encoding="utf-8")
    settings = load_settings(write(tmp_path, text), {})
    assert settings.alerts.channels["chat"].name == "chat"
    assert settings.catalog_extra == (tmp_path / "my-skus.toml",)
    assert [(p.name, p.vram_gb, p.form_factor) for p in settings.plans] == [("llm-box", 96, "sxm2")]


def test_a_discord_channel_without_its_variable_loads_and_is_named_as_missing(tmp_path: Path):
    text = '[alerts.channels.c]\ntype = "discord"\n'
    settings = load_settings(write(tmp_path, text), {})
    assert missing_secrets(settings.alerts.channels) == [
        "alert channel 'c': environment variable RIGSCOUT_DISCORD_WEBHOOK is not set"
    ]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p, "is a directory, not a file"),
        (lambda p: p / "none.toml", "does not exist (run `rigscout init`)"),
    ],
)
def test_an_unreadable_config_path_is_one_line(tmp_path: Path, make, message: str):
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_settings(make(tmp_path), {})


def test_the_starter_examples_are_valid_and_on_the_real_scales(tmp_path: Path):
    text = STARTER.read_text(encoding="utf-8")
    head, alerts = text.split("\n[alerts]\n")
    example = re.compile(r"# (\[|\w+ = )")  # a commented table or key, not the prose around it
    lines = [line[2:] if example.match(line) else line for line in alerts.splitlines()]
    path = write(tmp_path, head + "\n[alerts]\n" + "\n".join(lines))
    env = {"RIGSCOUT_DISCORD_WEBHOOK": "https://x.invalid/h", "RIGSCOUT_NTFY_URL": "ntfys://a/b"}
    settings = load_settings(path, env)
    rules = {r.name: r for r in settings.alerts.rules}
    assert rules["any-great-deal"].min_score == 80
    assert rules["any-great-deal"].max_per_run == 5
    assert rules["cheap-v100-sxm2"].max_price == Decimal(250)
    assert rules["p40-new-low"].new_low_days == 30
    assert rules["server-price-drop"].min_drop == 0.1
    assert rules["bid-reminder"].ending_within == timedelta(hours=3)
    assert set(settings.alerts.channels) == {"email", "discord", "phone"}
    assert str(settings.alerts.channels["phone"].quiet_hours) == "23:00-07:00"


def test_freight_factors_by_origin_are_configurable(tmp_path: Path):
    text = "[rank.freight]\nserver = 150\noverseas = 4\n"
    rank = load_settings(write(tmp_path, text), {}).rank
    assert rank.freight["server"] == Decimal(150)
    assert rank.freight_factors == {"region": Decimal("1.5"), "overseas": Decimal(4)}


def test_the_smallest_useful_sections_take_their_defaults(tmp_path: Path):
    text = """
[alerts.channels.mail]
type = "email"
host = "smtp.example.com"
from = "me@example.com"
to = "me@example.com"

[[alerts.rule]]
min_score = 70

[[search]]
query = "tesla p40"
"""
    settings = load_settings(write(tmp_path, text), {})
    mail = settings.alerts.channels["mail"]
    assert isinstance(mail, SmtpChannel)
    assert (mail.port, mail.security, mail.mode, mail.recipients) == (
        587,
        "starttls",
        "digest",
        ("me@example.com",),
    )
    (rule,) = settings.alerts.rules
    assert rule.name == "rule-1" and rule.channels == ("mail",) and rule.min_score == 70
    (search,) = settings.searches
    assert search.name == "tesla p40" and search.modes == (Mode.ACTIVE,)
    assert search.buying == "all" and search.max_pages == 3
    assert settings.collector.concurrency == 2 and settings.rank.window_days == 30


def test_a_rate_table_written_in_the_buyers_currency_loads(tmp_path: Path):
    text = '[rank]\ncurrency = "EUR"\n[rank.fx]\ndate = "2026-11-20"\nEUR = 1\nUSD = 0.95\n'

    rank = load_settings(write(tmp_path, text), {}).rank

    assert rank.currency == "EUR"
    assert rank.fx_rates["USD"] == Decimal("0.95")


def test_the_starter_fx_file_line_works_when_uncommented_as_told(tmp_path: Path):
    """Uncomment fx_file and delete [rank.fx], as the starter's comment says: the config loads
    and reads the rates from that file (it sat under [rank.freight] and broke the config)."""
    text = STARTER.read_text(encoding="utf-8").replace(
        '# fx_file = "fx-rates.toml"', 'fx_file = "fx-rates.toml"'
    )
    start = text.index("\n[rank.fx]\n") + 1
    end = text.index("\n[", start + 1)
    path = write(tmp_path, text[:start] + text[end + 1 :])
    (tmp_path / "fx-rates.toml").write_text('date = "2026-11-27"\nUSD = 1\nEUR = 1.05\n', "utf-8")
    rank = load_settings(path, {}).rank
    assert rank.fx_rates["EUR"] == Decimal("1.05") and rank.fx_date.isoformat() == "2026-11-27"


def test_the_old_percent_drop_is_read_as_a_fraction_with_a_line_saying_what_to_write(
    tmp_path: Path, caplog
):
    path = tmp_path / "rigscout.toml"
    path.write_text('[[alerts.rule]]\nname = "drop"\ndrop_pct = 10\n', encoding="utf-8")
    with caplog.at_level("WARNING"):
        rule = load_settings(path, {}).alerts.rules[0]
    assert rule.min_drop == 0.1
    assert "drop_pct = 10 is deprecated: write min_drop = 0.1" in caplog.text
