"""The inline SVG charts: what is drawn, dated and labelled."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from decimal import Decimal

from rigscout.outputs.report.charts import (
    MAX_POINTS,
    CostPoint,
    nice_ticks,
    render_history_svg,
    render_value_svg,
)
from tests.support.report_data import TODAY, V100, asking, days_ago, market, sold

SVG = "{http://www.w3.org/2000/svg}"


def history(points, bands=(), ref=None):
    svg = render_history_svg(
        "Tesla V100 <SXM2>",
        points,
        bands,
        ref,
        since=days_ago(90),
        today=TODAY,
        currency="USD",
    )
    return ET.fromstring(str(svg))  # well-formed XML, or this raises


def test_sales_are_points_asking_days_a_band_and_the_reference_a_dated_line():
    root = history(
        [sold(V100, "120", 3), sold(V100, "135", 12)],
        [asking(V100, "99", "160", 0), asking(V100, "105", "150", 1)],
        market(median="130"),
    )

    assert root.find(f"{SVG}title").text == "Price history of Tesla V100 <SXM2>"
    assert len(root.findall(f"{SVG}circle")) == 2
    assert len(root.findall(f"{SVG}rect")) == 2
    (line,) = root.findall(f"{SVG}line[@class='baseline']")
    assert "30-day sold median $130.00 as of 2026-11-20" in line.find(f"{SVG}title").text
    labels = [t.text for t in root.iter(f"{SVG}text")]
    assert "$130.00 · 2026-11-20" in labels
    assert "2026-11-20" in labels  # the last date on the time axis is today


def test_each_point_tells_its_date_and_price():
    root = history([sold(V100, "120", 3)])

    (circle,) = root.findall(f"{SVG}circle")
    assert circle.find(f"{SVG}title").text == "2026-11-17: sold $120.00"


def test_a_crowded_history_is_thinned_and_says_so():
    many = [sold(V100, str(100 + i % 50), i % 80) for i in range(1000)]

    root = history(sorted(many, key=lambda p: p.day))

    assert len(root.findall(f"{SVG}circle")) == MAX_POINTS
    assert f"1000 sales ({MAX_POINTS} drawn)" in root.find(f"{SVG}desc").text


def test_no_price_no_chart():
    assert (
        str(render_history_svg("x", [], [], None, since=TODAY, today=TODAY, currency="USD")) == ""
    )


def test_the_value_chart_has_one_labelled_mark_per_sku():
    points = [
        CostPoint("a", "NVIDIA Tesla V100 SXM2 16GB", 6.2, 0.8, Decimal("99")),
        CostPoint("b", "NVIDIA Tesla P40 24GB", 9.6, 1250.0, Decimal("230")),
    ]

    root = ET.fromstring(str(render_value_svg(points, currency="USD")))

    marks = root.findall(f"{SVG}g[@class='mark']")
    assert [m.find(f"{SVG}text").text for m in marks] == ["V100 SXM2 16GB", "P40 24GB"]
    assert re.search(r"\$99\.00, \$6\.20/GB", marks[0].find(f"{SVG}circle/{SVG}title").text)


def test_ticks_are_round_numbers_inside_the_range():
    assert nice_ticks(93, 161) == [100, 120, 140, 160]
