"""Helpers for the end-to-end tests: a config file for a given database, the CLI in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "rigscout" / "config" / "starter.toml"
DEMO = ROOT / "fixtures" / "demo"


def engine_url(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=False)


def write_config(tmp_path: Path, database_url: str, extra: str = "") -> Path:
    """The starter config pointed at ``database_url``, with ``extra`` TOML appended."""
    text = STARTER.read_text(encoding="utf-8").replace(
        'url = "sqlite:///rigscout.db"', f'url = "{database_url}"'
    )
    if "[collector]" in extra:
        start = text.index("[collector]")
        text = text[:start] + text[text.index("[ebay_api]") :]
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "rigscout.toml"
    path.write_text(text + "\n" + extra, encoding="utf-8")
    return path


def count(engine: Engine, table: type) -> int:
    with Session(engine) as session:
        return session.scalar(select(func.count()).select_from(table)) or 0


def rigscout_process(args: list[str], *, env: dict[str, str] | None = None, **kwargs):
    """Start ``rigscout ARGS`` as a real process (for signals, kill -9 and concurrency)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.Popen(
        [sys.executable, "-m", "rigscout", *args],
        env=full_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def serve_demo_pages(fake) -> None:
    """Serve the demo pages of every starter search from a FakeEbay, by query, mode and page."""
    import tomllib

    searches = tomllib.loads(STARTER.read_text(encoding="utf-8"))["search"]
    for search in searches:
        for page in sorted((DEMO / search["name"]).glob("*-p*.html")):
            mode, number = page.stem.split("-p")
            fake.add_page(
                search["query"],
                page.read_text(encoding="utf-8"),
                sold=mode == "sold",
                page=int(number),
            )


def collector_config(base_url: str, rate: float) -> str:
    """A [collector] table pointing at a local fake eBay, paced at ``rate`` requests/s."""
    return (
        f'[collector]\nbase_url = "{base_url}"\nrequests_per_second = {rate}\njitter = 0.0\n'
        "timeout = 5.0\nretries = 1\nmax_pages = 3\n"
    )


def parses(args: list[str]) -> None:
    """``rigscout ARGS`` is a command line the CLI accepts (options and their values checked),
    without running it; a click error otherwise."""
    from click import Group

    from rigscout.cli.main import cli

    ctx = cli.make_context("rigscout", list(args))
    name, command, rest = cli.resolve_command(ctx, [*ctx._protected_args, *ctx.args])
    assert command is not None, args
    while isinstance(command, Group):
        ctx = command.make_context(name or "", list(rest), parent=ctx)
        name, command, rest = command.resolve_command(ctx, [*ctx._protected_args, *ctx.args])
        assert command is not None, args
    command.make_context(name or "", list(rest), parent=ctx)
