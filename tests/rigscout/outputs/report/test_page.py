"""The report page as a person reads it: hostile titles stay text, tables are real tables,
auctions say when they end, and the planner's rigs appear only when there are some."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

from core.models import BuyingFormat, Category, Flag
from rigscout.outputs.report.page import render_report
from tests.support.deals import HOSTILE_TITLE
from tests.support.report_data import NOW, P40, V100, asking, deal, market, report_data, run, sold


def test_a_hostile_title_stays_text_and_a_script_link_is_not_a_link():
    page = render_report(
        report_data(
            deal(1, title=HOSTILE_TITLE),
            deal(2, title="nice card", url="javascript:alert(document.cookie)"),
        )
    )

    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; @everyone" in page
    assert "javascript:" not in page
    assert page.count("<script>") == 1  # the page's own script, and nothing else


def test_every_table_has_a_caption_and_scoped_headers():
    page = render_report(
        report_data(deal(1), sold=(sold(V100, "120", 3),), runs=(run(1),)),
    )

    tables = re.findall(r"<table.*?</table>", page, flags=re.S)
    assert len(tables) >= 3
    for table in tables:
        assert "<caption" in table
        assert "<th " in table and 'scope="' in table
        assert "<th>" not in table  # no header without its scope


def test_a_deal_row_carries_price_market_evidence_flags_and_host_needs():
    flagged = deal(
        1,
        title="Tesla V100 SXM2 16GB pulled",
        landed_unit_price="101.27",
        discount=0.23,
        baseline=Decimal("132.31"),
        evidence="strong",
        needs_host="SXM2",
        freight_estimated=True,
        flags=(Flag("seller_low_feedback", "seller has only 2 feedback", "warn"),),
    )
    page = render_report(report_data(flagged))

    row = re.search(r"<tr data-profile=.*?</tr>", page, flags=re.S).group(0)
    assert 'data-category="gpu"' in row and 'data-buying="buy_it_now"' in row
    assert "$101.27" in row and "23 % under" in row and "median $132.31" in row
    assert "strong" in row and "needs SXM2 host" in row and "seller low feedback" in row
    assert 'title="includes an estimated freight"' in row


def test_an_auction_shows_when_it_ends_its_bid_and_its_likely_price():
    auction = deal(
        1,
        buying_format=BuyingFormat.AUCTION,
        end_time=NOW + timedelta(days=2, hours=4),
        price_basis="predicted",
        current_bid=Decimal("108"),
        predicted_low=Decimal("125"),
        predicted_high=Decimal("140"),
        landed_unit_price="132",
    )
    page = render_report(report_data(auction))

    assert 'data-buying="auction"' in page
    assert "ends 2026-11-22 16:00 UTC · 2d 4h left" in page
    assert "bid $108.00" in page
    assert "likely $125.00–$140.00" in page


def test_an_auction_whose_likely_ends_meet_shows_one_price_not_a_range_of_one():
    auction = deal(
        1,
        buying_format=BuyingFormat.AUCTION,
        end_time=NOW + timedelta(hours=1),
        price_basis="predicted",
        current_bid=Decimal("1900"),
        predicted_low=Decimal("1924"),
        predicted_high=Decimal("1924"),
        landed_unit_price="1924",
    )
    page = render_report(report_data(auction))

    assert "likely $1,924" in page
    assert "$1,924–$1,924" not in page


def test_other_profiles_rows_are_there_but_hidden_until_chosen():
    from rigscout.outputs.report.records import ProfileDeals

    views = (
        ProfileDeals("llm-inference", "bandwidth", (deal(1),)),
        ProfileDeals("training", "compute", (deal(2, category=Category.GPU),)),
    )
    page = render_report(report_data(views=views))

    rows = re.findall(r"<tr data-profile=\"(\S+)\"[^>]*?( hidden)?>", page)
    assert rows == [("llm-inference", ""), ("training", " hidden")]
    assert '<option value="training">' in page


@dataclass(frozen=True)
class Rig:
    name: str
    total_price: Decimal
    currency: str
    summary: str
    links: tuple[tuple[str, str], ...]
    target: str = "cheapest 64 GB rig"
    figures: str = "64 GB VRAM · $25.78/GB · NVLink"
    warnings: tuple[str, ...] = ("item 1: check the heatsinks",)


def test_the_planners_rigs_have_a_section_only_when_given():
    rig = Rig(
        "4× V100 SXM2 in a SYS-4028GR-TXR",
        Decimal("1650"),
        "USD",
        "NVLink for 1,650: cheapest 64 GB <b>",
        (("server", "https://www.ebay.com/itm/1"), ("bad", "javascript:x")),
    )

    without = render_report(report_data(deal(1)))
    with_rigs = render_report(report_data(deal(1)), plans=[rig])

    assert 'id="rigs"' not in without
    assert 'id="rigs"' in with_rigs
    assert "4× V100 SXM2 in a SYS-4028GR-TXR" in with_rigs and "$1,650" in with_rigs
    assert "cheapest 64 GB &lt;b&gt;" in with_rigs
    assert 'href="https://www.ebay.com/itm/1"' in with_rigs and "javascript:" not in with_rigs
    assert "cheapest 64 GB rig" in with_rigs and "$25.78/GB" in with_rigs
    assert "item 1: check the heatsinks" in with_rigs


def test_run_health_lists_failed_searches_and_sent_alerts():
    failure = {"search": "v100-sxm2", "mode": "sold", "error": "captcha page", "url": None}
    page = render_report(report_data(runs=(run(2, errors=(failure,)), run(1))))

    assert "v100-sxm2 (sold)" in page and "captcha page" in page
    assert 'class="status-partial">partial' in page
    assert "No alert sent yet." in page


def test_each_sku_with_prices_gets_a_history_chart_and_the_value_chart_marks_gpus():
    data = report_data(
        deal(1, landed_unit_price="99"),
        deal(2, sku=P40, sku_name="Tesla P40", landed_unit_price="230"),
        sold=(sold(V100, "120", 3), sold(V100, "125", 10)),
        asking=(asking(V100, "99", "160", 0),),
    )
    page = render_report(data)

    assert 'id="h-nvidia-tesla-v100-sxm2-16gb"' in page
    assert page.count('class="sold"') == 2
    assert page.count('class="band"') == 1
    assert page.count('<g class="mark">') == 2
    assert "$6.19" in page  # V100 SXM2: $99 / 16 GB


def test_the_value_chart_divides_by_the_compute_the_ranking_counts():
    from ranking.value import board_value, effective_compute
    from rigscout.outputs.report.page import score_deal_value_points
    from tests.support.report_data import SKUS

    best = {P40: deal(2, sku=P40, sku_name="Tesla P40", landed_unit_price="230")}
    (point,) = score_deal_value_points(best, SKUS)
    basis, tflops = effective_compute(SKUS[P40])
    # The P40's FP16 is crippled (1/64 rate): it is valued on its FP32, as its deal sentence is.
    assert basis == "FP32"
    assert point.per_tflops == round(230 / tflops, 4)
    assert point.per_gb == round(230 / board_value(SKUS[P40]).vram_gb, 4)


def test_a_server_row_and_chart_say_their_reference_is_like_for_like_not_a_median():
    t181 = "gigabyte-t181-g20"
    server = deal(
        1,
        sku=t181,
        category=Category.SERVER,
        discount=0.16,
        baseline=Decimal("866.49"),
        baseline_count=4,
        baseline_source="sold",
        evidence="thin",
        reference=(("chassis", Decimal("912.48"), "market"),),
    )
    page = render_report(
        report_data(server, markets={t181: market(t181, "912.48")}, sold=(sold(t181, "780", 3),))
    )

    row = re.search(r"<tr data-profile=.*?</tr>", page, flags=re.S).group(0)
    assert "like-for-like $866.49" in row and "median $866.49" not in row
    assert "chassis reference $912.48" in page  # the history chart's caption
    assert "chassis median (its sales, their parts taken out) $912.48" in page


RLO, FSI, PDI = "\u202e", "\u2068", "\u2069"


def test_a_right_to_left_override_in_a_title_cannot_turn_our_own_words_around():
    title = f"NVIDIA Tesla P40 {RLO}stnuoc ereh"  # shows "here counts" reversed, and all after
    page = render_report(report_data(deal(1, title=title, location=f"{RLO}Shenzhen")))
    assert f"{FSI}{title}{PDI}" in page  # the override ends where the title does
    assert f"{RLO}Shenzhen" in page  # where it ships from: isolated with the words around it
    assert not re.search(f"{RLO}[^{PDI}]*<", page)  # no override runs on into our markup


def test_the_page_runs_and_styles_nothing_but_its_own_script_and_style():
    import base64
    import hashlib

    page = render_report(report_data(deal(1, title="<img src=x onerror=alert(1)>")))
    (found,) = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page)
    policy = html.unescape(found)
    style = re.search(r"<style>(.*?)</style>", page, re.DOTALL)
    script = re.search(r"<script>(.*?)</script>", page, re.DOTALL)
    assert style and script

    def digest(text: str) -> str:
        return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()

    assert "default-src 'none'" in policy
    assert f"style-src 'sha256-{digest(style.group(1))}'" in policy
    assert f"script-src 'sha256-{digest(script.group(1))}'" in policy
    assert "unsafe-inline" not in policy
