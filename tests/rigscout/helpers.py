"""Helpers for the end-to-end tests: a config file for a given database, the CLI in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "rigscout" / "starter.toml"
DEMO = ROOT / "fixtures" / "demo"


def engine_url(engine: Engine) -> str:
    return engine.url.render_as_string(hide_password=False)


def write_config(tmp_path: Path, database_url: str, extra: str = "") -> Path:
    """The starter config pointed at ``database_url``, with ``extra`` TOML appended."""
    text = STARTER.read_text(encoding="utf-8").replace(
        'url = "sqlite:///rigscout.db"', f'url = "{database_url}"'
    )
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
        env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs,
    )
