"""Secrets are masked by value everywhere text leaves the process or is stored, even when a
server we talk to repeats them in its error reply: an SMTP 535 that echoes the login and the
password, a webhook whose error names its own URL with the token in it.

The sweep runs the daily job, `alerts test`, `runs --json` and the report against such
servers, then looks for each secret in every output and every text of the database.
"""

from __future__ import annotations

import base64
import warnings

from click.testing import CliRunner
from sqlalchemy import MetaData, select

from rigscout.cli.main import cli
from tests.support.cli import DEMO, engine_url, write_config
from tests.support.fake_browse import FakeBrowse
from tests.support.smtp_server import running_smtp_server
from tests.support.webhook_server import Reply, running_webhook_server

USER, PASSWORD, TOKEN = "smtp-user-4f2a", "hunter2-Secr3t!", "tok-9d1e-secret"
SECRETS = (USER, PASSWORD, TOKEN)


def _config(smtp_port: int) -> str:
    return f"""
[alerts.channels.mail]
type = "email"
host = "127.0.0.1"
port = {smtp_port}
security = "none"
from = "rigscout@example.com"
to = ["buyer@example.com"]
username_env = "SWEEP_SMTP_USER"
password_env = "SWEEP_SMTP_PASSWORD"
mode = "digest"

[alerts.channels.chat]
type = "discord"
webhook_url_env = "SWEEP_HOOK"

[[alerts.rule]]
name = "under-market"
min_discount = 0.15
channels = ["mail", "chat"]
"""


def _database_text(engine) -> str:
    """Every value of every table, as text."""
    metadata = MetaData()
    with warnings.catch_warnings():  # SQLite does not reflect an index on an expression
        warnings.filterwarnings("ignore", "Skipped unsupported reflection of expression-based")
        metadata.reflect(engine)
    with engine.connect() as conn:
        return "\n".join(
            repr(tuple(row))
            for table in metadata.sorted_tables
            for row in conn.execute(select(table))
        )


def test_secrets_repeated_by_servers_are_masked_in_every_output_and_the_database(engine, tmp_path):
    with (
        running_smtp_server(
            credentials=("right-user", "right-pass"), echo_credentials=True
        ) as smtp,
        running_webhook_server() as hook,
    ):
        url = hook.webhook_url(TOKEN)
        refusal = Reply(status=401, body={"message": f"Unknown Webhook {url}", "code": 10015})
        hook.script.extend([refusal] * 50)  # every post refused, the URL repeated back
        env = {"SWEEP_SMTP_USER": USER, "SWEEP_SMTP_PASSWORD": PASSWORD, "SWEEP_HOOK": url}
        config = write_config(tmp_path, engine_url(engine), extra=_config(smtp.port))
        runner = CliRunner()
        outputs = {
            "run": runner.invoke(
                cli, ["--config", str(config), "run", "--offline", str(DEMO)], env=env
            ),
            "run -vv": runner.invoke(
                cli, ["-vv", "--config", str(config), "run", "--offline", str(DEMO)], env=env
            ),
            "alerts test": runner.invoke(cli, ["--config", str(config), "alerts", "test"], env=env),
            "runs --json": runner.invoke(cli, ["--config", str(config), "runs", "--json"], env=env),
            "report": runner.invoke(
                cli, ["--config", str(config), "report", "-o", str(tmp_path / "site")], env=env
            ),
        }
    texts = {name: result.output for name, result in outputs.items()}
    texts["report page"] = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    texts["database"] = _database_text(engine)

    # The servers did repeat the secrets, and what they said was kept, masked.
    assert "Authentication failed for" in texts["database"] or "535" in texts["database"]
    assert "***" in texts["database"]
    assert outputs["alerts test"].exit_code == 1
    for name, text in texts.items():
        for secret in SECRETS:
            assert secret not in text, f"{secret!r} in {name}"


def test_api_keys_repeated_by_the_oauth_server_are_masked_in_the_run_record(engine, tmp_path):
    client_id, client_secret = "my-client-id-7c1", "my-client-secret-0b9"
    with FakeBrowse([], echo_credentials=True) as fake:  # it expects other credentials
        # sold pages come from the search pages: the same local server, answering 404 at once
        collector = f'[collector]\nbase_url = "{fake.base_url}"\nretries = 0\n'
        config = write_config(tmp_path, engine_url(engine), extra=collector)
        text = config.read_text(encoding="utf-8")
        config.write_text(
            text.replace("[ebay_api]\n", f'[ebay_api]\nbase_url = "{fake.base_url}"\n', 1),
            encoding="utf-8",
        )
        env = {"EBAY_CLIENT_ID": client_id, "EBAY_CLIENT_SECRET": client_secret}
        runner = CliRunner()
        args = ["--config", str(config)]
        run = runner.invoke(cli, [*args, "run", "--no-alerts", "--search", "v100-sxm2"], env=env)
        runs = runner.invoke(cli, [*args, "runs", "--json"], env=env)
        assert fake.token_calls, "the collector never asked for a token"
    texts = {"run": run.output, "runs --json": runs.output, "database": _database_text(engine)}
    assert "client authentication failed for ***" in texts["database"]
    basic = base64.b64encode(f"{client_id}:{client_secret}".encode()).decode()
    for name, out in texts.items():
        for secret in (client_id, client_secret, basic):
            assert secret not in out, f"{secret!r} in {name}"
