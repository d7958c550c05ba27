"""Shared test helpers: the real eBay samples in ../shared, our own fixtures, a fixed clock."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from typing import NoReturn

import pytest

from bench import FIXTURES, SAMPLES

pytest_plugins = ["tests.support.db"]


def load_sample(*parts: str) -> str:
    """A real saved eBay page or response from ../shared/ebay-samples (never copied here)."""
    path = SAMPLES.joinpath(*parts)
    if not path.exists():
        missing_shared(f"shared sample {path} is not present next to the project")
    return path.read_text(encoding="utf-8")


def missing_shared(reason: str) -> NoReturn:
    """Skip a test that needs ../shared; under ``CI=true`` fail, as a missing PostgreSQL does."""
    if os.environ.get("CI") and not os.environ.get("RIGSCOUT_ALLOW_SHARED_SKIP"):
        pytest.fail(reason + " (CI must test against ../shared; set RIGSCOUT_SHARED)")
    pytest.skip(reason)


def pytest_sessionstart(session: pytest.Session) -> None:
    """Under ``CI=true`` a missing ../shared stops the run at once with the reason."""
    ci = os.environ.get("CI") and not os.environ.get("RIGSCOUT_ALLOW_SHARED_SKIP")
    if ci and not SAMPLES.is_dir():
        raise pytest.UsageError(
            f"{SAMPLES} is missing: CI must test against the shared eBay samples "
            "(put the shared folder next to the project or set RIGSCOUT_SHARED)"
        )


def load_fixture(*parts: str) -> str:
    """One of our own hand-made fixtures under fixtures/."""
    return FIXTURES.joinpath(*parts).read_text(encoding="utf-8")


@pytest.fixture(autouse=True, scope="session")
def _own_user_folders(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The user's config and data folders (where rigscout looks for a config and keeps the
    database of config-less runs) are the test session's own, never the developer's."""
    home = tmp_path_factory.mktemp("user-folders")
    os.environ["XDG_CONFIG_HOME"] = str(home / "config")
    os.environ["XDG_DATA_HOME"] = str(home / "data")


@pytest.fixture
def now() -> datetime:
    return datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _no_proxies(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests only ever talk to 127.0.0.1; a proxy from the environment must not interfere."""
    for var in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
