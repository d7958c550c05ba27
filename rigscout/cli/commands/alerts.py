"""``alerts test``: check that each configured channel delivers."""

from __future__ import annotations

import sys

import click

from core.errors import AlertError, ConfigError, RigscoutError
from core.secrets import redact
from rigscout.cli.commands.app import AppContext, handle_errors, pass_app


@click.group()
def alerts() -> None:
    """Alert channels: check that each configured channel delivers."""


@alerts.command("test")
@pass_app
@handle_errors
def alerts_test(app: AppContext) -> None:
    """Send a test message to every configured channel.

    Example:

        RIGSCOUT_DISCORD_WEBHOOK=https://discord.com/api/webhooks/... rigscout alerts test
    """
    import httpx

    from alerts.channels import build_notifiers, missing_secrets
    from alerts.dispatch import send_test_message

    settings = app.settings()
    if not settings.alerts.channels:
        raise ConfigError("no alert channels configured ([alerts.channels.*] in the config file)")
    missing = missing_secrets(settings.alerts.channels)
    if missing:
        raise ConfigError("; ".join(missing))
    failed = 0
    with httpx.Client(timeout=30) as client:
        for name, notifier in build_notifiers(settings.alerts.channels, client=client).items():
            try:
                send_test_message(notifier)
                click.echo(f"{name}: sent")
            except RigscoutError as exc:
                failed += 1
                reason = exc.reason if isinstance(exc, AlertError) else str(exc)
                click.echo(f"{name}: FAILED: {redact(reason)}", err=True)
    sys.exit(1 if failed else 0)


COMMANDS: tuple[click.Command, ...] = (alerts,)
