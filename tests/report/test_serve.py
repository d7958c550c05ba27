"""`rigscout report --serve`: the folder over HTTP on 127.0.0.1 only."""

from __future__ import annotations

import subprocess
import sys
import threading

import httpx
import pytest

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


def test_a_write_that_fails_leaves_the_old_page_and_no_temporary_file(tmp_path):
    """A file-size limit makes the write fail half-way, as a full disk does."""
    save_page(tmp_path, "old page")
    script = (
        "import resource, signal, sys\n"
        "from pathlib import Path\n"
        "from core.errors import ConfigError\n"
        "from rigscout.outputs.report.build import save_page\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
        "try:\n"
        "    save_page(Path(sys.argv[1]), 'x' * 200_000)\n"
        "except ConfigError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert "cannot write the report" in done.stdout, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.html"]
    assert (tmp_path / "index.html").read_text(encoding="utf-8") == "old page"


def test_a_page_that_cannot_be_encoded_leaves_no_temporary_file(tmp_path):
    with pytest.raises(UnicodeEncodeError):
        save_page(tmp_path, "a lone surrogate \ud800")
    assert list(tmp_path.iterdir()) == []
