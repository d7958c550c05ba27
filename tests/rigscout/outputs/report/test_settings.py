"""The [report] section of the config file."""

from __future__ import annotations

import re

import pytest

from core.errors import ConfigError
from rigscout.config.load import load_settings


def settings(tmp_path, body: str):
    path = tmp_path / "rigscout.toml"
    path.write_text(body, encoding="utf-8")
    return load_settings(path, {}, cwd=tmp_path)


def test_no_report_section_means_no_report_after_a_run(tmp_path):
    report = settings(tmp_path, "").report

    assert report.dir is None and report.url is None


def test_the_report_folder_is_relative_to_the_config_file(tmp_path):
    report = settings(
        tmp_path, '[report]\ndir = "site"\nurl = "https://me.example/rigscout/"\n'
    ).report

    assert report.dir == tmp_path / "site"
    assert report.url == "https://me.example/rigscout/"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('[report]\nfolder = "x"', "[report]: unknown key folder"),
        ('[report]\nurl = "javascript:alert(1)"', "expected an http(s):// or file:// address"),
        ("[report]\ntop_per_sku = 0", "top_per_sku = 0: expected greater than or equal to 1"),
        ("report = 3", "[report]: expected a table, not 3"),
    ],
)
def test_a_bad_report_section_is_one_clear_error(tmp_path, body, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        settings(tmp_path, body)


def test_the_profiles_offered_can_be_narrowed(tmp_path):
    report = settings(tmp_path, '[report]\nprofiles = ["training"]\n').report
    with pytest.raises(ConfigError, match=r"unknown profile 'trainin' \(did you mean training"):
        settings(tmp_path, '[report]\nprofiles = ["trainin"]\n')

    assert report.profiles == ("training",)
    with pytest.raises(ConfigError, match='profiles = "training": expected a valid list'):
        settings(tmp_path, '[report]\nprofiles = "training"\n')
