"""`rigscout ignore`: an item, a seller or a title word the buyer never wants to see again
leaves the ranking, the plans, the report and the alerts, and `unignore` brings it back."""

from __future__ import annotations

import json
import shutil
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.engine import open_engine
from db.models import AlertRow, ListingRow
from rigscout.cli.main import cli
from tests.support.cli import DEMO, write_config
from tests.support.smtp_server import closed_port

if TYPE_CHECKING:
    from pathlib import Path

TOP = "196183871274"  # the demo's best V100 SXM2 16GB (servertechsupply)
SELLER_ITEM = "125686912415"  # a P100 PCIe of bayarea_hw_liquidation


EXTRA = """
[alerts.channels.phone]
type = "apprise"
urls_env = "RIGSCOUT_TEST_URL"

[[alerts.rule]]
name = "everything-good"
min_score = 40
channels = ["phone"]
"""


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory) -> Path:
    """The demo collected once, its alerts queued (the channel is down, so they stay)."""
    folder = tmp_path_factory.mktemp("demo")
    db = folder / "demo.db"
    config = write_config(folder, f"sqlite:///{db}", extra=EXTRA)
    runner = CliRunner(env={"RIGSCOUT_TEST_URL": f"json://127.0.0.1:{closed_port()}/down"})
    ran = runner.invoke(cli, ["--config", str(config), "run", "--offline", str(DEMO)])
    assert ran.exit_code in (0, 1), ran.output
    return db


@pytest.fixture
def demo(demo_db: Path, tmp_path: Path):
    """The CLI on a copy of the collected demo."""
    db = tmp_path / "demo.db"
    for part in demo_db.parent.glob("demo.db*"):  # with its write-ahead log, if any
        shutil.copy(part, tmp_path / part.name)
    args = ["--config", str(write_config(tmp_path, f"sqlite:///{db}", extra=EXTRA))]
    runner = CliRunner(env={"RIGSCOUT_TEST_URL": "json://127.0.0.1:9/unused"})

    def invoke(*more: str):
        return runner.invoke(cli, [*args, *more])

    invoke.url = f"sqlite:///{db}"  # type: ignore[attr-defined]
    return invoke


def ranked(invoke, *more: str) -> list[dict]:
    result = invoke("rank", "--json", "--limit", "1000", *more)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def queued_items(url: str) -> set[str]:
    engine = open_engine(url)
    with Session(engine) as session:
        rows = session.scalars(
            select(ListingRow.item_id)
            .join(AlertRow, AlertRow.listing_id == ListingRow.id)
            .where(AlertRow.status == "pending")
        ).all()
    engine.dispose()
    return set(rows)


def test_an_ignored_item_seller_and_word_leave_every_list_and_the_queued_alerts(demo, tmp_path):
    before = {d["item_id"] for d in ranked(demo)}
    assert {TOP, SELLER_ITEM} <= before and TOP in queued_items(demo.url)

    said = demo("ignore", TOP, "--seller", "BayArea_HW_Liquidation", "--title-word", "PASSIVE")
    listed = demo("ignore", "--list")

    assert said.exit_code == 0, said.output
    assert "item 196183871274: ignored" in said.output
    assert "queued alert(s) for them dropped" in said.output
    assert TOP not in queued_items(demo.url)
    assert listed.output.split("\n")[1].split()[:2] == ["seller", "bayarea_hw_liquidation"]
    after = ranked(demo)
    assert not {TOP, SELLER_ITEM} & {d["item_id"] for d in after}
    assert not [d for d in after if "passive" in d["title"].lower()]
    # Still visible on request, with why.
    flagged = {d["item_id"]: d["flags"] for d in ranked(demo, "--include-flagged")}
    assert {"code": "ignored", "label": "ignored by you: this item", "severity": "exclude"} in (
        flagged[TOP]
    )
    plans = demo("plan", "--vram", "64", "--json", "--limit", "20")
    assert plans.exit_code == 0 and TOP not in plans.output and SELLER_ITEM not in plans.output
    site = tmp_path / "site"
    assert demo("report", "-o", str(site)).exit_code == 0
    page = (site / "index.html").read_text(encoding="utf-8")
    assert TOP not in page and SELLER_ITEM not in page


def test_unignore_brings_them_back_and_says_what_was_not_ignored(demo):
    demo("ignore", TOP)

    back = demo("unignore", TOP, "--seller", "nobody")

    assert back.exit_code == 0
    assert back.output.splitlines() == [
        "item 196183871274: shown again",
        "seller nobody: was not ignored",
    ]
    assert TOP in {d["item_id"] for d in ranked(demo)}


def test_the_item_link_rank_prints_is_taken_wherever_an_item_number_is(demo):
    link = next(d["url"] for d in ranked(demo) if d["item_id"] == TOP)
    said = demo("ignore", link + "?hash=item2dad8c7a1a")
    assert said.exit_code == 0, said.output
    assert "item 196183871274: ignored" in said.output
    assert TOP not in {d["item_id"] for d in ranked(demo)}
    back = demo("unignore", f"https://www.ebay.de/itm/nvidia-tesla-v100/{TOP}")
    assert back.output.splitlines() == ["item 196183871274: shown again"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ignore"], "name an item number, --seller or --title-word"),
        (["ignore", "19618x"], "'19618x' is not an eBay item number"),
        (["ignore", "--seller", " "], "an empty seller cannot be ignored"),
        (["unignore"], "name an item number, --seller or --title-word to unignore"),
        # over what the store keeps: refused before any database sees it (PostgreSQL said a
        # raw error, SQLite kept it whole)
        (["ignore", "--title-word", "x" * 250], "of 250 characters cannot be ignored"),
        (["ignore", "1" * 201], "of 201 characters cannot be ignored"),
    ],
)
def test_a_wrong_ignore_is_a_clear_error(tmp_path, args, message):
    config = write_config(tmp_path, f"sqlite:///{tmp_path / 'none.db'}")
    result = CliRunner().invoke(cli, ["--config", str(config), *args])
    assert result.exit_code != 0
    assert message in result.output
