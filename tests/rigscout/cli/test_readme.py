"""Every rigscout command the README shows is one the CLI accepts as written: its command,
options, choices and values (the commands themselves are run by the tests of each one)."""

from __future__ import annotations

import re
import shlex

import click
import pytest

from rigscout.cli.main import cli
from tests.support.cli import ROOT, parses

README = (ROOT / "README.md").read_text(encoding="utf-8")
PLACEHOLDERS = ("…", "[", "ITEM", "FILE", "SKU", " GB", "NAME", "WORD", "DIR", "<")


def readme_commands() -> list[str]:
    """`rigscout …` in shell blocks and in inline code, up to a pipe, `&&` or a comment."""
    found = []
    for kind, block in re.findall(r"```(\w*)\n(.*?)```", README, re.S):
        for line in block.splitlines():
            line = line.strip().removeprefix("$ ")
            where = line.find("rigscout ")
            if where >= 0 and (kind in ("sh", "cron") or where == 0):
                found.append(line[where:])
    found += [m.replace("\n", " ") for m in re.findall(r"`(rigscout [^`]+)`", README)]
    commands = set()
    for text in found:
        command = re.split(r"\s(?:&&|\|\||\||>>|>|#|;)(?:\s|$)", text)[0].strip()
        if command.startswith("rigscout ") and not any(p in command for p in PLACEHOLDERS):
            commands.add(command)
    return sorted(commands)


COMMANDS = readme_commands()


def test_the_readme_shows_the_commands_a_user_runs():
    assert len(COMMANDS) > 30
    for expected in ("rigscout run --offline fixtures/demo", "rigscout report --open"):
        assert expected in COMMANDS


@pytest.mark.parametrize("command", COMMANDS)
def test_every_readme_command_is_one_the_cli_accepts(command):
    args = shlex.split(command.replace("$(date +%F)", "2026-11-29"))[1:]
    if len(args) == 1 and not args[0].startswith("-"):  # a command named in prose
        assert args[0] in cli.commands, command
        return
    try:
        parses(args)
    except click.exceptions.Exit:
        pass  # --version, --help
    except click.UsageError as exc:
        pytest.fail(f"{command}: {exc.format_message()}")
