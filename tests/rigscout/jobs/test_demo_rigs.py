"""The demo's rigs: fixtures/demo/README.md lists what `rigscout plan --vram 64` and `--vram 128`
show for the demo, one line each on why; this test replays the pages at the README's date and
compares each plan's rig and total, in order."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest
from sqlalchemy.orm import Session

from core import fmt
from db.engine import open_engine
from ranking.plan.explain import summary
from ranking.plan.records import Target
from ranking.titles import user_skus
from rigscout.config.load import load_settings
from rigscout.jobs.plans import build_plans
from tests.rigscout.jobs.test_demo_shortlist import AS_OF, README, demo_top_15
from tests.support.cli import write_config

if TYPE_CHECKING:
    from pathlib import Path


def listed_rigs(vram: int) -> list[tuple[str, str]]:
    section = README.read_text(encoding="utf-8").split(f"### plan --vram {vram}\n", 1)[1]
    section = section.split("\n#", 1)[0]
    return re.findall(r"^\d+\. (.+?): (\$[\d,.]+) — ", section, flags=re.M)


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("demo-rigs")
    demo_top_15(tmp)  # replays the demo pages into tmp/demo.db at the README's date
    return tmp


@pytest.mark.parametrize("vram", [64, 128])
def test_the_rigs_in_the_demo_readme_are_what_plan_shows(demo_store: Path, vram: int) -> None:
    settings = load_settings(write_config(demo_store, f"sqlite:///{demo_store / 'demo.db'}"), {})
    engine = open_engine(settings.database_url)
    with Session(engine) as session:
        plans = build_plans(session, settings, Target(vram_gb=vram), AS_OF, skus=user_skus())
    engine.dispose()
    shown = [(summary(p), fmt.money(p.total, p.currency)) for p in plans]
    assert shown == listed_rigs(vram)
