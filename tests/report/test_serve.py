"""`rigscout report --serve`: the folder over HTTP on 127.0.0.1 only."""

from __future__ import annotations

import threading

import httpx

from rigscout.outputs.report.build import save_page
from rigscout.outputs.report.serve import open_server, serve


def test_the_report_is_served_on_the_loopback_address(tmp_path):
    save_page(tmp_path, "<!DOCTYPE html><title>report</title>")
    server = open_server(tmp_path, 0)
    urls: list[str] = []
    thread = threading.Thread(target=serve, args=(server, urls.append), daemon=True)
    thread.start()
    try:
        while not urls:
            thread.join(0.01)
        response = httpx.get(urls[0], timeout=5)
    finally:
        server.shutdown()
        thread.join(5)

    assert urls[0].startswith("http://127.0.0.1:")
    assert response.status_code == 200
    assert "<title>report</title>" in response.text


def test_the_page_is_replaced_whole_and_readable_by_a_web_server(tmp_path):
    save_page(tmp_path, "old")
    page = save_page(tmp_path, "new")

    assert page.read_text(encoding="utf-8") == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["index.html"]
    assert page.stat().st_mode & 0o044 == 0o044
