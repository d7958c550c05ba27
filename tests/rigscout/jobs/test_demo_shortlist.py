"""The demo's shortlist: fixtures/demo/README.md lists the top 15 `rigscout rank` shows for it.

The README says, one line each, why each listing is there; this test keeps that list honest by
replaying the demo pages at the README's date and comparing the ranked item ids in order.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from db.engine import open_engine
from db.migrate import upgrade
from ranking.records import RankFilters
from ranking.titles import user_skus
from ranking.titles.normalize import default_normalizer
from rigscout.config.load import load_settings
from rigscout.jobs.deals import rank_stored
from rigscout.jobs.pipeline import RunPlan, run_daily
from rigscout.jobs.wiring import normalizer_for, offline_collector
from tests.support.cli import DEMO, write_config

if TYPE_CHECKING:
    from pathlib import Path

AS_OF = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)  # the date the README's list was read
README = DEMO / "README.md"


def listed_item_ids() -> list[str]:
    section = README.read_text(encoding="utf-8").split("## The demo's shortlist", 1)[1]
    return re.findall(r"^\d+\. .*?itm/(\d+)\)", section, flags=re.M)


def demo_top_15(tmp_path: Path) -> list[str]:
    settings = load_settings(write_config(tmp_path, f"sqlite:///{tmp_path / 'demo.db'}"), {})
    engine = open_engine(settings.database_url)
    upgrade(engine)
    plan = RunPlan(source="offline:demo", searches=settings.searches, profile=settings.rank.profile)
    skus = user_skus()
    run_daily(
        settings,
        plan,
        engine=engine,
        collector=offline_collector(DEMO, settings),
        normalize=normalizer_for(default_normalizer()),
        skus=skus,
        notifiers={},
        now=lambda: AS_OF,
    )
    with Session(engine) as session:
        ranking = rank_stored(
            session, skus, settings.rank, now=AS_OF, filters=RankFilters(limit=15)
        )
    engine.dispose()
    return [deal.item_id for deal in ranking.deals]


def test_the_shortlist_in_the_demo_readme_is_what_rank_shows(tmp_path: Path) -> None:
    assert listed_item_ids() == demo_top_15(tmp_path)


SCAM = "389912345678"  # "NVIDIA A100 40GB PCIe … Brand New Sealed", $1,099, 3 feedback


def test_the_demos_scam_is_kept_out_of_deals_and_plans_and_shown_only_as_one_to_check(
    tmp_path: Path,
) -> None:
    from click.testing import CliRunner

    from rigscout.cli.main import cli

    config = write_config(tmp_path, f"sqlite:///{tmp_path / 'demo.db'}")
    runner = CliRunner()
    args = ["--config", str(config)]
    assert runner.invoke(cli, [*args, "run", "--offline", str(DEMO), "--no-alerts"]).exit_code in (
        0,
        1,
    )
    deals = runner.invoke(cli, [*args, "rank", "--json", "--limit", "1000"]).output
    flagged = runner.invoke(
        cli, [*args, "rank", "--include-flagged", "--sku", "nvidia-a100-pcie-40gb"]
    )
    plans = runner.invoke(
        cli, [*args, "plan", "--vram", "40", "--gpus", "1", "--json", "--limit", "20"]
    )
    site = tmp_path / "site"
    assert runner.invoke(cli, [*args, "report", "-o", str(site)]).exit_code == 0

    assert SCAM not in deals
    # How far under depends on which sales are in the 30-day window on the day it runs.
    assert re.search(
        r"\b7\d % under NVIDIA A100 SXM4 40GB sales; seller has 3 feedback",
        " ".join(flagged.output.split()),
    )
    assert plans.exit_code == 0, plans.output
    assert SCAM not in plans.output
    page = (site / "index.html").read_text(encoding="utf-8")
    start = page.index('<section id="check"')
    end = page.index("</section>", start)
    assert SCAM in page[start:end]  # in "Check before buying", with why
    assert re.search(r"\b7\d % under NVIDIA A100 SXM4 40GB sales", page[start:end])
    assert SCAM not in page[:start] + page[end:]  # and in no other list of the page
