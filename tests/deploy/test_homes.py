"""The homes a daily job runs in: the container image, the compose file with PostgreSQL, the
systemd service and timer. No Docker engine runs here, so the image's entry command is run as
the image would run it, and the compose file is checked against the Compose specification."""

from __future__ import annotations

import json
import shlex
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
import yaml

from tests.support.cli import ROOT, parses, write_config

DOCKERFILE = ROOT / "Dockerfile"
COMPOSE = ROOT / "compose.yaml"
SYSTEMD = ROOT / "deploy" / "systemd"


def instruction(name: str) -> list[str]:
    """The JSON (exec) form of a Dockerfile instruction, e.g. ENTRYPOINT ["rigscout"]."""
    lines = [line for line in DOCKERFILE.read_text().splitlines() if line.startswith(name + " ")]
    assert len(lines) == 1, f"one {name} in the Dockerfile"
    return json.loads(lines[0][len(name) + 1 :])


def rigscout_executable() -> list[str]:
    script = Path(sys.executable).parent / "rigscout"
    return [str(script)] if script.exists() else [sys.executable, "-m", "rigscout"]


def test_the_image_copies_every_package_the_project_installs():
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    top = {name.split(".")[0] for name in packages["packages"]}
    copied = {
        line.split()[1]
        for line in DOCKERFILE.read_text().splitlines()
        if line.startswith("COPY ") and not line.startswith("COPY --")
    }
    assert top <= copied, f"missing from the image: {top - copied}"
    for source in copied:
        for part in source.split():
            assert (ROOT / part.rstrip("./") if part != "./" else ROOT).exists(), part
    allowed = [
        line[1:] for line in (ROOT / ".dockerignore").read_text().splitlines() if line[:1] == "!"
    ]
    assert {f"{name}/" for name in top} <= set(allowed)


@pytest.mark.slow
def test_the_images_entry_command_runs_the_daemon_and_stops_cleanly_on_docker_stop(tmp_path):
    """ENTRYPOINT + CMD, in a /data-like folder holding the config, as `docker run` starts it;
    `docker stop` sends SIGTERM."""
    write_config(tmp_path, "sqlite:///rigscout.db")
    command = instruction("ENTRYPOINT") + instruction("CMD")
    assert command[0] == "rigscout"
    daemon = subprocess.Popen(
        rigscout_executable() + command[1:],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "rigscout.db").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(2)
        assert daemon.poll() is None, daemon.communicate()
    finally:
        daemon.send_signal(signal.SIGTERM)
        _out, err = daemon.communicate(timeout=60)
    assert daemon.returncode == 0, err
    assert "next daily run: " in err and "Traceback" not in err
    assert (tmp_path / "rigscout.db").is_file()  # next to the config, in the working folder


def test_the_compose_file_follows_the_compose_specification():
    checker = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec",
         str(COMPOSE)],
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    assert checker.returncode == 0, checker.stdout + checker.stderr


def test_the_compose_file_runs_the_daemon_on_postgresql_and_serves_the_report_locally():
    compose = yaml.safe_load(COMPOSE.read_text())
    services = compose["services"]
    daemon, report, db = services["rigscout"], services["report"], services["db"]
    assert db["image"].startswith("postgres:") and "healthcheck" in db
    for service in (daemon, report):
        assert service["build"] == "."
        assert service["environment"]["RIGSCOUT_DATABASE_URL"].startswith("postgresql+psycopg://")
        assert service["depends_on"]["db"]["condition"] == "service_healthy"
        parses(service["command"])  # rigscout's CLI accepts the command as written
    assert daemon["command"][-1] == "schedule" and "stop_grace_period" in daemon
    assert report["ports"] == ["127.0.0.1:8000:8000"]  # the machine's loopback only
    assert "--serve" in report["command"] and "0.0.0.0" in report["command"]
    for name, value in daemon["environment"].items():
        if name != "RIGSCOUT_DATABASE_URL":  # secrets come from .env, never written here
            assert value.startswith("${") and value.endswith("}"), name
    assert "${POSTGRES_PASSWORD:?" in daemon["environment"]["RIGSCOUT_DATABASE_URL"]


def unit_files(tmp_path: Path) -> list[Path]:
    """The units as installed, with ExecStart pointing at this environment's rigscout."""
    script = rigscout_executable()
    if len(script) > 1:
        pytest.skip("no rigscout console script in this environment for ExecStart")
    copies = []
    for unit in sorted(SYSTEMD.glob("rigscout.*")):
        text = unit.read_text().replace("/opt/rigscout/.venv/bin/rigscout", script[0])
        (tmp_path / unit.name).write_text(text)
        copies.append(tmp_path / unit.name)
    return copies


def test_the_systemd_units_pass_systemd_analyze_verify(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed here")
    units = unit_files(tmp_path)
    assert [u.name for u in units] == ["rigscout.service", "rigscout.timer"]
    result = subprocess.run(
        [analyze, "verify", *map(str, units)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0 and not result.stderr.strip(), result.stderr


def test_the_systemd_service_runs_a_quiet_daily_run_in_its_state_folder():
    service = (SYSTEMD / "rigscout.service").read_text()
    values = dict(
        line.split("=", 1) for line in service.splitlines() if "=" in line and line[0] != "#"
    )
    assert values["Type"] == "oneshot" and values["StateDirectory"] == "rigscout"
    assert values["WorkingDirectory"] == "/var/lib/rigscout"  # config and database live there
    command = shlex.split(values["ExecStart"])
    assert command[0].endswith("/rigscout")
    parses(command[1:])
    assert "--quiet" in command and command[-1] == "run"
    assert values["SuccessExitStatus"] == "3"  # another run holds the lock: not a failure
    timer = (SYSTEMD / "rigscout.timer").read_text()
    assert "Persistent=true" in timer and "OnCalendar=" in timer
