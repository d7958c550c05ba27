"""Charts: price history per SKU and performance per dollar, as PNG files a person can read."""

from __future__ import annotations

from decimal import Decimal

import pandas as pd
import pytest
from click.testing import CliRunner

from ranking.catalog import load_catalog
from ranking.market.sold import Market
from rigscout.cli.main import cli
from rigscout.outputs.charts import render_history_chart, score_market_value_points
from tests.support.cli import DEMO, engine_url, write_config

PNG = b"\x89PNG\r\n\x1a\n"


def market(sku: str, median: str, source: str = "sold") -> Market:
    price = Decimal(median)
    evidence = "strong" if source == "sold" else "asking"
    return Market(sku, price, price, price, 10, evidence, source)


def test_value_points_use_real_units_and_respect_the_profile():
    skus = {s.sku: s for s in load_catalog()}
    markets = {
        "nvidia-tesla-p40": market("nvidia-tesla-p40", "200"),
        "nvidia-tesla-k80": market("nvidia-tesla-k80", "40"),
        "nvidia-rtx-3090": market("nvidia-rtx-3090", "800", source="asking"),
    }
    points, metric = score_market_value_points(skus, markets, "llm-inference")
    by_name = {p.name: p for p in points}
    assert metric == "GB/s of memory bandwidth"
    # A K80 is two 12 GB GPUs: under the 16 GB per-GPU minimum of llm-inference.
    assert not any("K80" in name for name in by_name)
    p40 = by_name["NVIDIA Tesla P40 24GB"]
    assert p40.per_dollar == pytest.approx(skus["nvidia-tesla-p40"].mem_bandwidth_gbs / 200 * 1000)
    # A reference from asking prices (too few sales) is marked; a sold one is not.
    assert "NVIDIA GeForce RTX 3090 24GB (asking)" in by_name
    assert "NVIDIA Tesla P40 24GB (asking)" not in by_name
    rtx = by_name["NVIDIA GeForce RTX 3090 24GB (asking)"]
    assert rtx.price == 800.0
    assert rtx.per_dollar == pytest.approx(skus["nvidia-rtx-3090"].mem_bandwidth_gbs / 800 * 1000)


def test_history_chart_of_an_empty_history_says_so():
    empty = pd.DataFrame(columns=["at", "market", "currency", "price"])
    figure = render_history_chart(empty, title="nothing yet")
    texts = [t.get_text() for t in figure.axes[0].texts]
    assert "no price history yet" in texts


def test_chart_commands_write_png_files(engine, tmp_path):
    config = write_config(tmp_path, engine_url(engine))
    runner = CliRunner()
    ran = runner.invoke(
        cli, ["--config", str(config), "run", "--offline", str(DEMO), "--no-alerts"]
    )
    assert ran.exit_code == 0, ran.output
    history = runner.invoke(
        cli,
        [
            "--config",
            str(config),
            "chart",
            "history",
            "nvidia-tesla-v100-sxm2-16gb",
            "-o",
            str(tmp_path / "charts"),
        ],
    )
    assert history.exit_code == 0, history.output
    value = runner.invoke(
        cli,
        [
            "--config",
            str(config),
            "chart",
            "value",
            "--profile",
            "training",
            "-o",
            str(tmp_path / "value.png"),
        ],
    )
    assert value.exit_code == 0, value.output
    assert "TFLOP/s per 1,000 USD" in value.output
    for png in [
        tmp_path / "charts" / "history-nvidia-tesla-v100-sxm2-16gb.png",
        tmp_path / "value.png",
    ]:
        data = png.read_bytes()
        assert data.startswith(PNG) and len(data) > 20_000


def test_an_unknown_sku_is_refused(tmp_path):
    result = CliRunner().invoke(cli, ["chart", "history", "nvidia-gtx-9999"])
    assert result.exit_code == 2 and "not a catalog SKU: nvidia-gtx-9999" in result.output
