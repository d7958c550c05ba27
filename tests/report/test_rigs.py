"""The report's "Best rigs" on the demo: each target's cheapest complete rig, with every part's
listing link and the landed total; a `[[plan]]` in the config replaces the default targets."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import TYPE_CHECKING

from click.testing import CliRunner

from rigscout.cli.main import cli
from tests.rigscout.helpers import DEMO, write_config

if TYPE_CHECKING:
    from pathlib import Path

SXM2_NODE = """
[[plan]]
name = "sxm2-node"
vram_gb = 64
form_factor = "sxm2"
budget = 2000
"""


def demo_report(tmp_path: Path, extra: str = "") -> str:
    config = write_config(tmp_path, f"sqlite:///{tmp_path / 'rigscout.db'}", extra=extra)
    runner = CliRunner()
    for args in (
        ["run", "--offline", str(DEMO), "--no-alerts"],
        ["report", "-o", str(tmp_path / "site")],
    ):
        result = runner.invoke(cli, ["--config", str(config), *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    page = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    start = page.index('<section id="rigs"')
    return page[start : page.index("</section>", start)]


def rows(section: str) -> list[str]:
    return re.findall(r"<tr><td>.*?</tr>", section, flags=re.DOTALL)


def test_without_saved_plans_the_report_shows_the_cheapest_64_and_96_gb_rigs(tmp_path):
    section = demo_report(tmp_path)

    small, large = rows(section)
    assert small.startswith("<tr><td>cheapest 64 GB rig</td>")
    assert "Asus ESC4000 G3 + 4x NVIDIA Tesla P100 PCIe 16GB" in small
    assert "64 GB VRAM" in small and "$12.13/GB" in small
    assert '<td class="num">$776.19</td>' in small
    assert "$785.90 less than the next plan" in small  # the planner's sentence
    assert "! item 395545513603: seller has only 2 feedback" in small
    links = re.findall(r'<a href="(https://www\.ebay\.com/itm/\d+)"[^>]*>([^<]+)</a>', small)
    assert len(links) == 5  # the server and four cards, each a link to its listing
    assert links[0] == ("https://www.ebay.com/itm/395545513603", "host: Asus ESC4000 G3: $333.46")
    assert all(label.startswith("gpu: 1x NVIDIA Tesla P100 PCIe 16GB") for _, label in links[1:])
    parts = sum(Decimal(label.rsplit("$", 1)[1]) for _, label in links)
    assert abs(parts - Decimal("776.19")) <= len(links)  # the parts add up to the total
    assert large.startswith("<tr><td>cheapest 96 GB rig</td>")
    # bandwidth per dollar: six P100s (4,392 GB/s) in the X9 box over four P40s (1,388 GB/s)
    assert "Supermicro SuperServer 4027GR-TR + 6x NVIDIA Tesla P100 PCIe 16GB" in large
    assert "96 GB VRAM" in large


def test_a_saved_plan_replaces_the_default_targets(tmp_path):
    section = demo_report(tmp_path, extra=SXM2_NODE)

    (row,) = rows(section)
    assert row.startswith("<tr><td>sxm2-node: 64 GB</td>")
    # llm-inference orders by bandwidth per dollar: V100s over the $211 cheaper P100s
    assert "Gigabyte T181-G20 + 4x NVIDIA Tesla V100 SXM2 16GB" in row
    assert '<td class="num">$1,562</td>' in row
    assert "cheapest 64 GB rig" not in section
    assert re.search(r'<a href="https://www\.ebay\.com/itm/\d+"[^>]*>host: Gigabyte T181-G20', row)
    # what it needs to run, each bought from a listing in the store, adds up to the total
    links = re.findall(r'<a href="(https://www\.ebay\.com/itm/\d+)"[^>]*>([^<]+)</a>', row)
    needs = [label for _, label in links if label.startswith("needs: ")]
    assert needs == [
        "needs: OCP 12 V power shelf: $267.67 (listing 341857473714)",
        "needs: 4 SXM2 heatsinks: $154.20 (listing 392458174305)",
    ]
    parts = sum(
        Decimal(re.findall(r"\$([\d,.]+)", label)[0].replace(",", "")) for _, label in links
    )
    assert parts == Decimal("1562.09")
