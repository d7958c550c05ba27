"""Messages as a person reads them, and secrets nowhere: emails carry Date and Message-ID,
``--dry-run`` shows the rendered text without needing any secret, and a run at ``-vv`` prints
neither the Discord webhook token nor the SMTP password."""

from __future__ import annotations

import re
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING

from click.testing import CliRunner

from rigscout.cli.main import cli
from tests.support.cli import DEMO, rigscout_process, write_config
from tests.support.smtp_server import running_smtp_server
from tests.support.webhook_server import running_webhook_server

if TYPE_CHECKING:
    from pathlib import Path

TOKEN = "Tok3n-that-must-never-show"
PASSWORD = "pa55word-that-must-never-show"


def alert_config(smtp_port: int, *, login: bool = False) -> str:
    credentials = 'username_env = "T_SMTP_USER"\npassword_env = "T_SMTP_PW"\n' if login else ""
    return f"""
[alerts.channels.mail]
type = "email"
host = "127.0.0.1"
port = {smtp_port}
security = "none"
from = "rigscout@example.com"
to = ["buyer@example.com"]
{credentials}
[alerts.channels.chat]
type = "discord"
webhook_url_env = "T_HOOK"

[[alerts.rule]]
name = "under-market"
min_discount = 0.15
channels = ["mail", "chat"]
"""


def test_dry_run_shows_rendered_text_and_needs_no_secret(tmp_path: Path):
    config = write_config(tmp_path, f"sqlite:///{tmp_path / 'r.db'}", alert_config(1))
    result = CliRunner().invoke(
        cli, ["--config", str(config), "run", "--offline", str(DEMO), "--dry-run"], env={}
    )
    assert result.exit_code == 0, result.output
    assert "[dry run] chat would send: Discord post as rigscout:" in result.output
    assert "[dry run] mail would send: To: buyer@example.com" in result.output
    assert re.search(r"\b\d+ deals? matched your alert rules", result.output)
    assert '"embeds"' not in result.output and "\\\\" not in result.output


def test_a_real_run_without_the_webhook_variable_stops_before_any_work(tmp_path: Path):
    config = write_config(tmp_path, f"sqlite:///{tmp_path / 'r.db'}", alert_config(1))
    result = CliRunner().invoke(cli, ["--config", str(config), "run", "--offline", str(DEMO)])
    assert result.exit_code == 2
    assert "alert channel 'chat': environment variable T_HOOK is not set" in result.output
    assert not (tmp_path / "r.db").exists()


def test_emails_carry_a_date_and_a_message_id(tmp_path: Path):
    with running_smtp_server() as smtp, running_webhook_server() as hook:
        config = write_config(tmp_path, f"sqlite:///{tmp_path / 'r.db'}", alert_config(smtp.port))
        env = {"T_HOOK": hook.webhook_url(TOKEN)}
        result = CliRunner().invoke(
            cli, ["--config", str(config), "run", "--offline", str(DEMO)], env=env
        )
        assert result.exit_code == 0, result.output
    (mail,) = smtp.received
    assert parsedate_to_datetime(mail.message["Date"]).tzinfo is not None
    assert mail.message["Message-ID"].endswith("@example.com>")


def test_nothing_secret_is_printed_even_at_debug_verbosity(tmp_path: Path):
    with (
        running_smtp_server(credentials=("alice", PASSWORD)) as smtp,
        running_webhook_server() as hook,
    ):
        extra = alert_config(smtp.port, login=True)
        config = write_config(tmp_path, f"sqlite:///{tmp_path / 'r.db'}", extra)
        env = {"T_HOOK": hook.webhook_url(TOKEN), "T_SMTP_USER": "alice", "T_SMTP_PW": PASSWORD}
        outputs = []
        for args in (
            ["run", "--offline", str(DEMO)],
            ["alerts", "test"],
            ["run", "--offline", str(DEMO), "--dry-run"],
        ):
            proc = rigscout_process(["-vv", "--config", str(config), *args], env=env)
            out, err = proc.communicate(timeout=120)
            assert proc.returncode == 0, err
            outputs.append(out + err)
        assert len(hook.delivered) >= 2 and smtp.logins
    text = "\n".join(outputs)
    assert "DEBUG" in text  # the debug log really was on
    assert TOKEN not in text
    assert PASSWORD not in text
