"""[[plan]] tables in rigscout.toml: saved rig targets and their alert channels."""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

import pytest

from core.errors import ConfigError
from core.settings import RankSettings
from rigscout.config.load import load_settings
from rigscout.config.plans import SavedPlan
from rigscout.jobs.plan_alerts import saved_plan_target

if TYPE_CHECKING:
    from pathlib import Path

CHANNELS = """
[alerts.channels.me]
type = "discord"
webhook_url_env = "HOOK"
[alerts.channels.mail]
type = "email"
host = "127.0.0.1"
from = "a@example.com"
to = "b@example.com"
"""


def settings(tmp_path: Path, plans: str):
    path = tmp_path / "rigscout.toml"
    path.write_text(CHANNELS + plans, encoding="utf-8")
    return load_settings(path, {"HOOK": "https://discord.example/hook"})


def test_a_saved_plan_reads_every_key_and_defaults_to_every_channel(tmp_path):
    loaded = settings(
        tmp_path,
        '[[plan]]\nname = "node"\nvram_gb = 64\nbudget = 1500\nprofile = "training"\n'
        'fp16_tflops = 100\ngpus = 4\nform_factor = "SXM2"\nmax_auctions = 1\n'
        'channels = ["me"]\n\n[[plan]]\nvram_gb = 128\n',
    )
    first, second = loaded.plans
    assert first == SavedPlan(
        name="node",
        vram_gb=64.0,
        channels=("me",),
        budget=Decimal(1500),
        profile="training",
        fp16_tflops=100.0,
        gpus=4,
        form_factor="sxm2",
        max_auctions=1,
    )
    assert (second.name, second.channels) == ("plan-2", ("me", "mail"))


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('name = "x"\nvram = 64', "unknown key vram (did you mean vram_gb?)"),
        ('name = "x"\nbudget = 10', "vram_gb is required"),
        ('name = "x"\nvram_gb = 64\nchannels = ["sms"]', "unknown channel 'sms'"),
        (
            'name = "x"\nvram_gb = 64\nform_factor = "oam"',
            """form_factor = "oam": expected 'any', 'pcie', 'sxm2' or 'sxm4'""",
        ),
        ('name = "x"\nvram_gb = -1', "vram_gb = -1: expected greater than 0"),
        ('name = "x"\nvram_gb = "lots"', 'vram_gb = "lots": expected a valid number'),
    ],
)
def test_a_bad_saved_plan_names_the_plan_and_the_problem(tmp_path, table, message):
    with pytest.raises(ConfigError, match=r"\[\[plan\]\] (#1 \(x\)|'x')") as error:
        settings(tmp_path, f"[[plan]]\n{table}\n")
    assert message in str(error.value)


def test_two_saved_plans_may_not_share_a_name(tmp_path):
    with pytest.raises(ConfigError, match="names must be unique: a"):
        settings(tmp_path, '[[plan]]\nname = "a"\nvram_gb = 1\n[[plan]]\nname = "a"\nvram_gb = 2\n')


def test_a_budget_in_another_currency_is_converted_at_the_configured_rate():
    rank = RankSettings(fx_rates={"USD": Decimal(1), "EUR": Decimal("1.08")})
    saved = SavedPlan(name="n", vram_gb=64, channels=(), budget=Decimal(1000), currency="EUR")
    target = saved_plan_target(saved, rank)
    assert (target.budget, target.profile, target.limit) == (Decimal("1080.00"), "llm-inference", 1)
    with pytest.raises(ConfigError, match=r"no \[rank.fx\] rate for GBP"):
        saved_plan_target(SavedPlan("n", 64, (), Decimal(1), "GBP"), rank)
