"""`rigscout report --serve`: the folder over HTTP on 127.0.0.1 only."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager, suppress

import httpx
import pytest

from core.errors import ConfigError
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


@contextmanager
def serving(folder, **options):
    server = open_server(folder, 0, **options)
    urls: list[str] = []
    thread = threading.Thread(target=serve, args=(server, urls.append), daemon=True)
    thread.start()
    try:
        while not urls:
            thread.join(0.01)
        yield server, urls[0]
    finally:
        server.shutdown()
        thread.join(5)


def test_only_the_report_page_is_served(tmp_path):
    save_page(tmp_path, "<!DOCTYPE html><title>report</title>")
    (tmp_path / "notes.txt").write_text("private", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "index.html").write_text("other", encoding="utf-8")
    with serving(tmp_path) as (_, url), httpx.Client(timeout=5) as client:
        assert client.get(url + "index.html").status_code == 200
        assert client.get(url + "?q=1").status_code == 200
        for path in ("notes.txt", "sub/", "sub/index.html", "%2e%2e/etc/passwd", "rigscout.db"):
            assert client.get(url + path).status_code == 404, path


def test_a_page_that_is_a_symlink_out_of_the_folder_is_not_served(tmp_path):
    outside = tmp_path / "outside.html"
    outside.write_text("secret", encoding="utf-8")
    folder = tmp_path / "report"
    folder.mkdir()
    (folder / "index.html").symlink_to(outside)
    with serving(folder) as (_, url):
        response = httpx.get(url, timeout=5)
    assert response.status_code == 404
    assert "secret" not in response.text


def test_a_request_for_another_host_is_refused(tmp_path):
    """DNS rebinding: a page from evil.example resolving to 127.0.0.1 sends its own Host."""
    save_page(tmp_path, "<title>report</title>")
    with serving(tmp_path) as (_, url), httpx.Client(timeout=5) as client:
        port = url.rsplit(":", 1)[1].strip("/")
        assert client.get(url, headers={"Host": f"evil.example:{port}"}).status_code == 421
        assert client.get(url, headers={"Host": f"localhost:{port}"}).status_code == 200


def test_bound_for_a_container_any_host_name_the_network_uses_is_served(tmp_path):
    """`report --serve --host 0.0.0.0` (compose.yaml): reached by the published port, with
    whatever name the browser used for the machine."""
    save_page(tmp_path, "<title>report</title>")
    with serving(tmp_path, host="0.0.0.0") as (server, _):
        port = server.server_address[1]
        url = f"http://127.0.0.1:{port}/"
        with httpx.Client(timeout=5) as client:
            assert client.get(url, headers={"Host": f"rigbox.lan:{port}"}).status_code == 200
            assert client.get(url, headers={"Host": "localhost:8000"}).status_code == 200


def test_idle_connections_are_closed_and_their_number_is_bounded(tmp_path):
    save_page(tmp_path, "<title>report</title>")
    before = threading.active_count()
    with serving(tmp_path, idle_seconds=1.0, max_connections=4) as (_, url):
        host, port = url.removeprefix("http://").strip("/").split(":")
        idle = [socket.create_connection((host, int(port))) for _ in range(40)]
        time.sleep(0.3)
        # the serving thread, 4 handlers and each one's deadline timer
        assert threading.active_count() <= before + 1 + 2 * 4
        for sock in idle:
            sock.settimeout(5)
        assert all(sock.recv(1) == b"" for sock in idle[:4])  # cut off after the idle time
        for sock in idle:
            sock.close()
        assert httpx.get(url, timeout=5).status_code == 200  # and the server still answers


@pytest.mark.parametrize("private", ["rigscout.db", "rigscout.toml"])
def test_a_folder_holding_a_database_or_config_is_not_served(tmp_path, private):
    save_page(tmp_path, "<title>report</title>")
    (tmp_path / private).write_text("", encoding="utf-8")
    with pytest.raises(ConfigError, match=f"not serving .*{private}"):
        open_server(tmp_path, 0)


def test_clients_trickling_their_headers_cannot_hold_every_slot(tmp_path, capfd):
    """Sixteen clients sending a header line every half second kept everyone else out and
    printed tracebacks: each connection now has ``idle_seconds`` in all, and a dropped client
    is no error on the terminal."""
    save_page(tmp_path, "<title>report</title>")
    with serving(tmp_path, idle_seconds=1.0, max_connections=4) as (_, url):
        host, port = url.removeprefix("http://").strip("/").split(":")
        slow = [socket.create_connection((host, int(port))) for _ in range(4)]
        for sock in slow:
            sock.sendall(b"GET / HTTP/1.1\r\n")
        started = time.monotonic()
        while time.monotonic() - started < 2.5:  # a line every half second, past the limit
            time.sleep(0.5)
            for sock in slow:
                with suppress(OSError):
                    sock.sendall(b"X-Slow: 1\r\n")
        assert httpx.get(url, timeout=5).status_code == 200  # the slots came free
        for sock in slow:
            sock.close()
    assert "Traceback" not in capfd.readouterr().err
