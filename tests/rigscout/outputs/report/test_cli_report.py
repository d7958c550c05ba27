"""`rigscout report` and the run that writes it, on SQLite and PostgreSQL: the demo's deals,
history and run health end up in one page, and the digest links to it."""

from __future__ import annotations

import re

from click.testing import CliRunner

from rigscout.cli.main import cli
from tests.support.cli import DEMO, engine_url, write_config
from tests.support.smtp_server import running_smtp_server

MAIL = """
[alerts.channels.mail]
type = "email"
host = "127.0.0.1"
port = {port}
security = "none"
from = "rigscout@example.com"
to = ["buyer@example.com"]

[[alerts.rule]]
name = "under-market"
min_discount = 0.15
channels = ["mail"]
"""


def invoke(config, *args: str):
    return CliRunner().invoke(cli, ["--config", str(config), *args], catch_exceptions=False)


def test_report_writes_one_page_with_the_demos_deals_history_and_runs(engine, tmp_path):
    config = write_config(tmp_path, engine_url(engine))
    assert invoke(config, "run", "--offline", str(DEMO), "--no-alerts").exit_code == 0

    result = invoke(config, "report", "-o", str(tmp_path / "site"))

    assert result.exit_code == 0, result.output
    page = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert list((tmp_path / "site").iterdir()) == [tmp_path / "site" / "index.html"]
    assert len(re.findall(r'<tr data-profile="llm-inference"', page)) > 50
    assert 'data-category="server"' in page and 'data-buying="auction"' in page
    assert page.count('<figure id="h-') > 10  # a price history per SKU
    assert 'class="sold"' in page and 'class="band"' in page and 'class="baseline"' in page
    assert '<g class="mark">' in page
    assert re.search(r'<td class="status-ok">ok</td><td class="hide-narrow">offline:', page)
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "").split("<body>")[0]


def test_a_run_writes_the_report_when_configured_and_the_digest_links_it(engine, tmp_path):
    with running_smtp_server() as smtp:
        extra = MAIL.format(port=smtp.port) + (
            '\n[report]\ndir = "site"\nurl = "https://me.example/rigscout/"\n'
        )
        config = write_config(tmp_path, engine_url(engine), extra=extra)
        result = invoke(config, "run", "--offline", str(DEMO))

    assert result.exit_code == 0
    assert f"Report: {tmp_path / 'site' / 'index.html'}" in result.output
    page = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert 'class="status-ok">ok' in page  # this run, finished before the page was built
    assert re.search(r"The last \d+ alerts delivered", page)
    (mail,) = smtp.received
    plain = mail.message.get_body(("plain",)).get_content()
    html = mail.message.get_body(("html",)).get_content()
    assert "Today's report (all deals and price history): https://me.example/rigscout/" in plain
    assert '<a href="https://me.example/rigscout/">' in html


def test_an_unwritable_report_folder_is_one_clear_error(engine, tmp_path):
    config = write_config(tmp_path, engine_url(engine))
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")

    result = invoke(config, "report", "-o", str(blocker / "site"))

    assert result.exit_code == 2
    assert result.output.startswith(f"Error: cannot write the report in {blocker / 'site'}")


def test_the_page_offers_the_configured_profile_first_and_only_the_profiles_asked(engine, tmp_path):
    extra = '[report]\nprofiles = ["capacity"]\n'
    config = write_config(tmp_path, engine_url(engine), extra=extra)
    assert invoke(config, "run", "--offline", str(DEMO), "--no-alerts").exit_code == 0

    assert invoke(config, "report", "-o", str(tmp_path / "site")).exit_code == 0

    page = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert re.findall(r'<option value="([a-z-]+)"(?: selected)?>[a-z-]+ —', page) == [
        "llm-inference",
        "capacity",
    ]
    assert 'data-profile="training"' not in page


def test_an_unknown_profile_is_one_clear_error(engine, tmp_path):
    config = write_config(tmp_path, engine_url(engine), extra='[report]\nprofiles = ["gaming"]\n')

    result = invoke(config, "report", "-o", str(tmp_path / "site"))

    assert result.exit_code == 2
    assert result.output == (
        "Error: rigscout.toml: [report]: unknown profile 'gaming' "
        "(the profiles are: capacity, llm-inference, training)\n"
    )


def test_before_any_run_the_page_says_what_to_do(engine, tmp_path):
    config = write_config(tmp_path, engine_url(engine))

    result = invoke(config, "report", "-o", str(tmp_path / "site"))

    assert result.exit_code == 0
    page = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "No deals yet: run <code>rigscout run</code> first." in page
    assert "No price history yet." in page


def test_open_on_a_machine_with_no_browser_says_where_the_page_is(engine, tmp_path, monkeypatch):
    # BROWSER names the browser Python's webbrowser runs; `false` is one that always fails,
    # as no browser does on a headless server.
    monkeypatch.setenv("BROWSER", "false")
    monkeypatch.delenv("DISPLAY", raising=False)
    config = write_config(tmp_path, engine_url(engine))
    site = tmp_path / "site"

    result = CliRunner().invoke(cli, ["--config", str(config), "report", "-o", str(site), "--open"])

    assert result.exit_code == 0
    assert f"open {(site / 'index.html').resolve()} in one" in result.output


def test_serve_on_a_port_in_use_is_one_line_and_exit_2(engine, tmp_path):
    import socket

    config = write_config(tmp_path, engine_url(engine))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(
            cli,
            ["--config", str(config), "report", "-o", str(tmp_path / "site"), "--serve",
             "--port", str(port)],
        )  # fmt: skip

    assert result.exit_code == 2
    assert f"Error: cannot serve on 127.0.0.1:{port}: Address already in use" in result.output


def test_a_report_build_tells_each_step_as_it_starts(engine, tmp_path):
    from core.clock import utcnow
    from ranking.titles import user_skus
    from rigscout.cli.commands.report import REPORT_STEPS
    from rigscout.config.load import load_settings
    from rigscout.outputs.report.build import write_report

    settings = load_settings(write_config(tmp_path, engine_url(engine)), {})
    heard: list[str] = []

    write_report(
        engine, settings, tmp_path / "site", skus=user_skus(), now=utcnow(), on_step=heard.append
    )

    assert heard == [
        "ranking the listings",
        "planning the rigs",
        "drawing the page",
        "writing the page",
    ]
    assert len(heard) == REPORT_STEPS  # the progress bar's length


def test_a_page_left_half_written_by_a_killed_report_is_cleaned_up_next_time(tmp_path):
    """A kill during the page write leaves its temporary file; the next report removes it
    (but not one younger than an hour: another report may be writing it right now)."""
    import os
    import time

    from rigscout.outputs.report.build import save_page

    site = tmp_path / "site"
    site.mkdir()
    old, young = site / ".index-killed.html", site / ".index-writing.html"
    old.write_text("<html>half", encoding="utf-8")
    young.write_text("<html>half", encoding="utf-8")
    two_hours_ago = time.time() - 7200
    os.utime(old, (two_hours_ago, two_hours_ago))

    save_page(site, "<html>whole</html>")

    assert sorted(p.name for p in site.iterdir()) == [".index-writing.html", "index.html"]


def test_the_first_report_keeps_its_price_history_for_the_next(engine, tmp_path):
    """The asking days and the sold points are kept by the first report, so the next reads them
    back: the asking days are kept once the report's own rankings have written (beside them,
    at a million listings the keep gave up waiting and the next report scanned 90 days of
    sightings again: 63 s instead of 11 s)."""
    from sqlalchemy import func, select
    from sqlalchemy.orm import Session

    from db.asking_days import KEY as ASKING
    from db.models import SoldPointRow
    from db.sold_points import KEY as SOLD
    from db.state import load_state

    config = write_config(tmp_path, engine_url(engine))
    assert invoke(config, "run", "--offline", str(DEMO), "--no-alerts").exit_code == 0

    assert invoke(config, "report", "-o", str(tmp_path / "site")).exit_code == 0

    with Session(engine) as session:
        assert load_state(session, ASKING) is not None  # the demo's sightings are all today's
        assert load_state(session, SOLD) is not None
        assert session.scalar(select(func.count()).select_from(SoldPointRow)) > 30
