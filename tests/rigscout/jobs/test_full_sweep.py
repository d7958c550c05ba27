"""A price drop on page 2 is caught: between full sweeps the collector stops after a page with
nothing new, so every ``full_sweep_hours`` it reads every page of every search again."""

from __future__ import annotations

from decimal import Decimal

from click.testing import CliRunner
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.models import ListingRow, ObservationRow
from rigscout.cli.main import cli
from tests.support.cli import DEMO, collector_config, engine_url, serve_demo_pages, write_config
from tests.support.fake_ebay import FakeEbay

QUERY = "tesla v100 sxm2"
DEEP_ITEM = "122630222469"  # on page 2 of the v100-sxm2 active results, at $128.82


def run(tmp_path, engine, ebay: FakeEbay, full_sweep_hours: float) -> None:
    extra = collector_config(ebay.base_url, 50.0) + f"full_sweep_hours = {full_sweep_hours}\n"
    config = write_config(tmp_path, engine_url(engine), extra)
    result = CliRunner().invoke(
        cli,
        ["--config", str(config), "run", "--no-alerts", "--search", "v100-sxm2"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output


def prices_seen(engine) -> list[Decimal]:
    with Session(engine) as session:
        return list(
            session.scalars(
                select(ObservationRow.price)
                .join(ListingRow, ListingRow.id == ObservationRow.listing_id)
                .where(ListingRow.item_id == DEEP_ITEM)
                .order_by(ObservationRow.observed_at, ObservationRow.id)
            )
        )


def test_a_price_drop_on_page_two_waits_for_the_next_full_sweep_then_is_stored(engine, tmp_path):
    with FakeEbay() as ebay:
        serve_demo_pages(ebay)
        run(tmp_path, engine, ebay, full_sweep_hours=24)  # first run: every page
        page_two = (DEMO / "v100-sxm2" / "active-p2.html").read_text(encoding="utf-8")
        ebay.add_page(QUERY, page_two.replace("$128.82", "$99.00"), page=2)

        before = ebay.count(QUERY)
        run(tmp_path, engine, ebay, full_sweep_hours=24)  # swept minutes ago: page 1 only
        incremental_requests = ebay.count(QUERY) - before
        after_incremental = prices_seen(engine)

        run(tmp_path, engine, ebay, full_sweep_hours=0)  # a sweep is due: every page
        after_sweep = prices_seen(engine)

    assert incremental_requests == 2  # active page 1 and sold page 1
    assert after_incremental == [Decimal("128.82")]
    assert after_sweep == [Decimal("128.82"), Decimal("99.00")]
