"""Every channel type is one row of the registry: the run, `alerts test` and the log filter ask
it, so a settings record no row claims is refused, never sent as if it were Discord."""

from __future__ import annotations

import base64
import logging
from dataclasses import dataclass

import httpx
import pytest

from alerts.apprise_notifier import AppriseNotifier
from alerts.channels import (
    CHANNEL_TYPES,
    build_notifiers,
    channel_type,
    missing_secrets,
    secret_values,
)
from alerts.channels.apprise import AppriseChannelSection
from alerts.channels.email import EmailChannelSection
from alerts.discord import DiscordNotifier
from alerts.email import EmailNotifier
from alerts.settings import MODES, AppriseChannel, DiscordChannel, SmtpChannel
from core.errors import ConfigError
from core.secrets import redact

MAIL = SmtpChannel(
    name="mail",
    host="127.0.0.1",
    port=2525,
    sender="rigscout@example.org",
    recipients=("me@example.org",),
    username="smtp-user",
    password="smtp-pass",
)
HOOK = DiscordChannel(name="hook", webhook_url="https://discord.test/api/webhooks/1/token")


def test_each_settings_record_has_its_own_notifier() -> None:
    phone = AppriseChannel("phone", ("ntfy://ntfy.example/topic",), ("RIGSCOUT_NTFY_URL",))
    with httpx.Client() as client:
        notifiers = build_notifiers({"mail": MAIL, "hook": HOOK, "phone": phone}, client=client)
    assert isinstance(notifiers["mail"], EmailNotifier)
    assert isinstance(notifiers["hook"], DiscordNotifier)
    assert isinstance(notifiers["phone"], AppriseNotifier)
    assert [row.name for row in CHANNEL_TYPES] == ["email", "discord", "apprise"]


def test_a_channel_no_row_claims_is_refused_not_treated_as_another() -> None:
    @dataclass(frozen=True)
    class SlackChannel:
        name: str

    with pytest.raises(ConfigError, match="SlackChannel"):
        channel_type(SlackChannel("slack"))
    with httpx.Client() as client, pytest.raises(ConfigError):
        build_notifiers({"slack": SlackChannel("slack")}, client=client)


def test_the_secret_values_of_every_channel_are_known_to_the_log_filter() -> None:
    """The login also as SMTP AUTH and HTTP Basic put it on the wire (base64), which -vv's
    protocol trace or a server's error reply may echo."""
    login = [base64.b64encode(s.encode()).decode() for s in ("smtp-user", "smtp-pass")]
    plain = base64.b64encode(b"\0smtp-user\0smtp-pass").decode()
    basic = base64.b64encode(b"smtp-user:smtp-pass").decode()
    assert set(secret_values([MAIL, HOOK])) == {
        "smtp-user",
        "smtp-pass",
        *login,
        plain,
        basic,
        "https://discord.test/api/webhooks/1/token",
    }
    assert redact(f"AUTH PLAIN {plain}", secret_values([MAIL])) == "AUTH PLAIN ***"


def test_a_missing_webhook_is_named_by_its_variable() -> None:
    unset = DiscordChannel(name="hook", webhook_url="", webhook_url_env="MY_HOOK")
    assert missing_secrets({"mail": MAIL, "hook": unset}) == [
        "alert channel 'hook': environment variable MY_HOOK is not set"
    ]
    assert missing_secrets({"mail": MAIL, "hook": HOOK}) == []


@pytest.mark.parametrize(
    "table",
    [
        {"type": "email", "host": "smtp.example.com", "from": "a@b.c", "to": ["d@e.f"]},
        {"type": "apprise", "urls_env": "RIGSCOUT_NTFY_URL"},
    ],
    ids=["email", "apprise"],
)
def test_every_channel_with_a_mode_speaks_the_same_two_words(table):
    section = {"email": EmailChannelSection, "apprise": AppriseChannelSection}[table["type"]]
    for word in MODES:
        assert section.model_validate({**table, "mode": word}).mode == word
    with pytest.raises(ValueError, match="instant"):
        section.model_validate({**table, "mode": "daily"})


def test_the_old_word_for_one_mail_per_deal_still_reads_and_says_what_to_write(caplog):
    table = {"type": "email", "host": "smtp.example.com", "from": "a@b.c", "to": ["d@e.f"]}
    with caplog.at_level(logging.WARNING):
        section = EmailChannelSection.model_validate({**table, "mode": "immediate"})
    assert section.mode == "instant"
    assert 'mode "immediate" is deprecated: write mode = "instant"' in caplog.text
