"""The demo report in a real browser (headless Chromium from the system packages).

What a person sees: rows, sorting, filters, charts, no console errors, and a page that fits a
phone. Screenshots at desktop and phone widths go to ``tmp/artifacts/`` (or
``$RIGSCOUT_TEST_ARTIFACTS``). Nothing is downloaded: the browser and its driver come from
the system (``.ci/run`` installs them), and Selenium Manager is kept offline.
"""

from __future__ import annotations

import json
import os
import shutil
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from core import fmt
from rigscout.cli.main import cli
from tests.support.cli import DEMO, ROOT, write_config

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
ARTIFACTS = Path(os.environ.get("RIGSCOUT_TEST_ARTIFACTS", ROOT / "tmp" / "artifacts"))
DESKTOP, PHONE = (1366, 900), (390, 844)

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory) -> Path:
    """The README's demo: `rigscout run --offline fixtures/demo`, then `rigscout report`."""
    tmp = tmp_path_factory.mktemp("demo")
    config = write_config(tmp, f"sqlite:///{tmp / 'rigscout.db'}")
    runner = CliRunner()
    for args in (
        ["run", "--offline", str(DEMO), "--no-alerts"],
        ["report", "-o", str(tmp / "site")],
    ):
        result = runner.invoke(cli, ["--config", str(config), *args], catch_exceptions=False)
        assert result.exit_code == 0, result.output
    return tmp / "site" / "index.html"


@pytest.fixture(scope="module")
def browser():
    if not (CHROMIUM and DRIVER):
        if os.environ.get("CI"):
            pytest.fail("chromium and chromedriver must be installed in CI (.ci/run does it)")
        pytest.skip("no system chromium/chromedriver (apt-get install chromium chromium-driver)")
    os.environ["SE_OFFLINE"] = "true"  # never let Selenium Manager download anything
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(DRIVER))
    yield driver
    driver.quit()


@pytest.fixture
def page(browser, demo_report):
    browser.set_window_size(*DESKTOP)
    browser.get(demo_report.as_uri())
    browser.get_log("browser")  # start each test with an empty console
    return browser


def visible_rows(driver):
    return driver.find_elements(By.CSS_SELECTOR, "#deals-table tbody tr:not([hidden])")


def cell_values(driver, column: int) -> list[float]:
    return [
        float(row.find_elements(By.XPATH, "./*")[column].get_attribute("data-v"))
        for row in visible_rows(driver)
    ]


def severe(driver) -> list[str]:
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def test_the_deals_are_there_a_page_at_a_time(page):
    rows = visible_rows(page)

    assert len(rows) == 50
    assert {r.get_attribute("data-profile") for r in rows} == {"llm-inference"}
    assert page.find_element(By.ID, "deal-count").text.endswith("deals match.")
    assert page.find_element(By.ID, "page-info").text.startswith("Page 1 of ")
    assert cell_values(page, 0) == list(range(1, 51))  # best first
    page.find_element(By.ID, "page-next").click()
    assert cell_values(page, 0)[0] == 51
    assert severe(page) == []


def test_a_column_heading_sorts_the_deals_both_ways(page):
    price = page.find_element(By.XPATH, "//th[.//button[text()='Landed price']]")

    price.find_element(By.TAG_NAME, "button").click()
    ascending = cell_values(page, 4)
    price.find_element(By.TAG_NAME, "button").click()
    descending = cell_values(page, 4)

    assert ascending == sorted(ascending) and ascending[0] < ascending[-1]
    assert descending == sorted(descending, reverse=True)
    assert price.get_attribute("aria-sort") == "descending"
    assert severe(page) == []


def test_filters_pick_category_buying_format_and_profile(page):
    form = page.find_element(By.ID, "deal-filters")

    Select(form.find_element(By.NAME, "category")).select_by_value("server")
    servers = visible_rows(page)
    Select(form.find_element(By.NAME, "category")).select_by_value("all")
    Select(form.find_element(By.NAME, "buying")).select_by_value("auction")
    auctions = visible_rows(page)
    auction_texts = [r.text for r in auctions]
    Select(form.find_element(By.NAME, "buying")).select_by_value("all")
    Select(form.find_element(By.NAME, "profile")).select_by_value("training")
    training = visible_rows(page)

    assert servers and {r.get_attribute("data-category") for r in servers} == {"server"}
    assert auctions and {r.get_attribute("data-buying") for r in auctions} == {"auction"}
    assert all("left" in text for text in auction_texts)  # when each auction ends
    assert training and {r.get_attribute("data-profile") for r in training} == {"training"}
    assert severe(page) == []


def test_the_charts_render(page):
    history = page.find_element(By.CSS_SELECTOR, "#history figure svg.chart")
    # Some SKUs have asking prices only (the A100 PCIe 40GB): sold points are in the others.
    points = page.find_elements(By.CSS_SELECTOR, "#history figure svg.chart circle.sold")
    marks = page.find_elements(By.CSS_SELECTOR, "#value svg.chart g.mark circle")

    assert history.size["width"] > 300 and history.size["height"] > 100
    assert points and all(p.size["width"] > 0 for p in points)
    assert len(marks) >= 5 and marks[0].is_displayed()


def test_desktop_and_phone_screenshots_and_no_sideways_scrolling_on_a_phone(page):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.set_window_size(DESKTOP[0], 2400)
    page.save_screenshot(str(ARTIFACTS / "report-desktop.png"))
    page.set_window_size(*PHONE)
    page.refresh()
    page.save_screenshot(str(ARTIFACTS / "report-phone.png"))

    overflow = page.execute_script(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )
    assert overflow <= 0  # the deals table scrolls inside its own box instead
    assert len(visible_rows(page)) == 50
    assert (ARTIFACTS / "report-desktop.png").stat().st_size > 10_000
    assert severe(page) == []


def test_the_numbers_on_the_page_are_the_rankers_and_the_planners(page, demo_report):
    """Every fixed-price deal row the page shows carries the landed price and score that
    `rank --json` gives for the same listing; each rig's total is `plan --json`'s."""
    config = demo_report.parent.parent / "rigscout.toml"
    runner = CliRunner()
    ranked = runner.invoke(cli, ["--config", str(config), "rank", "--json", "--limit", "1000"])
    by_url = {d["url"]: d for d in json.loads(ranked.output)}
    rows = page.find_elements(
        By.CSS_SELECTOR, '#deals-table tbody tr[data-buying="buy_it_now"]:not([hidden])'
    )
    assert len(rows) >= 10
    for row in rows:
        url = row.find_element(By.CSS_SELECTOR, "th.title a").get_attribute("href")
        landed, score = (
            row.find_element(By.CSS_SELECTOR, f"td.num:nth-of-type({n})").get_attribute("data-v")
            for n in (4, 7)
        )
        assert Decimal(landed) == Decimal(str(by_url[url]["landed_unit_price"])), url
        assert float(score) == pytest.approx(by_url[url]["score"]), url

    rigs = page.find_element(By.ID, "rigs").text
    for vram in (64, 96):
        planned = runner.invoke(
            cli, ["--config", str(config), "plan", "--vram", str(vram), "--json"]
        )
        best = json.loads(planned.output)[0]
        assert fmt.money(Decimal(str(best["total"])), best["currency"]) in rigs, vram


def test_the_value_tables_best_prices_are_the_cheapest_fixed_price_listings_rank_gives(
    page, demo_report
):
    """ "Per GPU SKU at today's best fixed price": each price is the cheapest fixed-price
    listing of that SKU in `rank --json` (a price flagged "check before buying" is none), not
    only the cheapest among the rows the deals table happens to show."""
    from ranking.profiles import load_profiles

    config = demo_report.parent.parent / "rigscout.toml"
    deals = []
    for profile in load_profiles().profiles:  # the page offers every profile
        ranked = CliRunner().invoke(
            cli, ["--config", str(config), "rank", "--json", "--limit", "100000", "--profile", profile]
        )  # fmt: skip
        deals += json.loads(ranked.output)
    cheapest: dict[str, Decimal] = {}
    for deal in deals:
        if deal["price_basis"] != "fixed" or deal["category"] != "gpu":
            continue
        if any(f["code"] == "check_before_buying" for f in deal["flags"]):
            continue
        price = Decimal(str(deal["landed_unit_price"]))
        cheapest[deal["sku_name"]] = min(price, cheapest.get(deal["sku_name"], price))
    table = page.find_element(By.XPATH, "//caption[@id='value-caption']/..")
    rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")

    assert len(rows) >= 10
    for row in rows:
        name = row.find_element(By.TAG_NAME, "th").get_attribute("textContent").strip()
        shown = row.find_elements(By.CSS_SELECTOR, "td.num")[0].get_attribute("textContent")
        assert shown.strip() == fmt.money(cheapest[name], "USD"), name
