"""Value metrics: effective compute follows the hardware's real limits; profiles weigh them."""

from __future__ import annotations

from decimal import Decimal

import pytest

from core.errors import ConfigError
from core.models import Category
from ranking.catalog import Sku
from ranking.profiles import load_profiles, parse_profiles
from ranking.value import effective_compute, score_sku_value, value_metrics

GPU = Category.GPU
V100 = Sku(
    "nvidia-tesla-v100-sxm2-16gb",
    GPU,
    "V100 SXM2 16GB",
    "NVIDIA",
    vram_gb=16,
    mem_bandwidth_gbs=900,
    fp16_tensor_tflops=125,
    fp16_tflops=31.4,
    fp32_tflops=15.7,
    form_factor="SXM2",
)
P40 = Sku(
    "nvidia-tesla-p40",
    GPU,
    "Tesla P40",
    "NVIDIA",
    vram_gb=24,
    mem_bandwidth_gbs=346,
    fp16_tflops=0.18,
    fp32_tflops=11.76,
    form_factor="PCIe",
)
P100 = Sku(
    "nvidia-tesla-p100-pcie-16gb",
    GPU,
    "Tesla P100 PCIe 16GB",
    "NVIDIA",
    vram_gb=16,
    mem_bandwidth_gbs=732,
    fp16_tflops=18.7,
    fp32_tflops=9.3,
    form_factor="PCIe",
)
K80 = Sku(
    "nvidia-tesla-k80",
    GPU,
    "Tesla K80",
    "NVIDIA",
    vram_gb=12,
    mem_bandwidth_gbs=240,
    fp32_tflops=4.37,
    form_factor="PCIe",
    gpus_per_board=2,
)
RTX3090 = Sku(
    "nvidia-rtx-3090",
    GPU,
    "RTX 3090",
    "NVIDIA",
    vram_gb=24,
    mem_bandwidth_gbs=936,
    fp16_tensor_tflops=71,
    fp16_tflops=35.6,
    fp32_tflops=35.6,
    bf16=True,
    form_factor="PCIe",
)
T181 = Sku(
    "gigabyte-t181-g20",
    Category.SERVER,
    "Gigabyte T181-G20",
    "Gigabyte",
    gpu_slots=4,
    gpu_form_factor="SXM2",
    interconnect="nvlink",
)
TRT2 = Sku(
    "supermicro-sys-4028gr-trt2",
    Category.SERVER,
    "Supermicro SYS-4028GR-TRT2",
    "Supermicro",
    gpu_slots=8,
    gpu_form_factor="PCIe",
    interconnect="single-root",
)
TRT = Sku(
    "supermicro-sys-4028gr-trt",
    Category.SERVER,
    "Supermicro SYS-4028GR-TRT",
    "Supermicro",
    gpu_slots=8,
    gpu_form_factor="PCIe",
    interconnect="split-root",
)
CATALOG = {s.sku: s for s in (V100, P40, P100, K80, RTX3090, T181, TRT2, TRT)}

PROFILES = load_profiles()


@pytest.mark.parametrize(
    ("sku", "basis", "tflops"),
    [
        (V100, "FP16 tensor", 125),  # tensor cores
        (RTX3090, "FP16 tensor", 71),  # FP32 accumulate: half the GeForce FP16-accumulate rate
        (P100, "FP16", 18.7),  # real FP16 at 2x FP32, no tensor cores
        (P40, "FP32", 11.76),  # FP16 at 1/64 rate is useless
        (K80, "FP32", 4.37),  # no FP16 arithmetic at all
    ],
)
def test_effective_compute_follows_the_real_limits(sku, basis, tflops):
    assert effective_compute(sku) == (basis, tflops)


def test_a_k80_is_two_12_gb_devices_wherever_a_model_must_fit_one_gpu():
    inference = score_sku_value(K80, PROFILES.get("llm-inference"), PROFILES)
    capacity = score_sku_value(K80, PROFILES.get("capacity"), PROFILES)

    assert (inference.vram_gb, inference.bandwidth_gbs, inference.devices) == (12, 240, 2)
    assert not inference.eligible  # llm-inference wants 16 GB per GPU
    assert capacity.eligible and capacity.vram_gb == 12  # not 24: the memory is not pooled


def test_training_keeps_fp32_only_cards_out_instead_of_adding_their_fp32_up():
    training = PROFILES.get("training")

    k80 = score_sku_value(K80, training, PROFILES)
    assert (k80.compute_basis, k80.compute_tflops, k80.eligible) == ("FP32", 8.74, False)
    assert not score_sku_value(P40, training, PROFILES).eligible
    assert score_sku_value(P100, training, PROFILES).eligible  # real FP16 at 2x FP32


@pytest.mark.parametrize(
    ("profile", "better", "worse"),
    [
        ("llm-inference", V100, P100),  # more bandwidth, same VRAM
        ("capacity", P40, V100),  # 24 GB beats 16 GB
        ("training", V100, P40),  # tensor cores beat FP32
    ],
)
def test_profiles_weigh_what_their_workload_needs(profile, better, worse):
    chosen = PROFILES.get(profile)
    assert (
        score_sku_value(better, chosen, PROFILES).capability
        > score_sku_value(worse, chosen, PROFILES).capability
    )


def test_training_gives_bf16_cards_a_bonus():
    training = PROFILES.get("training")
    no_bf16 = Sku(
        "x",
        GPU,
        "x",
        "NVIDIA",
        vram_gb=24,
        mem_bandwidth_gbs=936,
        fp16_tensor_tflops=71,
        fp32_tflops=35.6,
    )

    ratio = (
        score_sku_value(RTX3090, training, PROFILES).capability
        / score_sku_value(no_bf16, training, PROFILES).capability
    )

    assert ratio == pytest.approx(1.25**0.8)


@pytest.mark.parametrize(
    ("better", "worse"), [(T181, TRT2), (TRT2, TRT)], ids=["nvlink>single", "single>split"]
)
def test_server_topology_orders_the_value_of_a_slot(better, worse):
    profile = PROFILES.get("llm-inference")
    per_slot = [
        score_sku_value(s, profile, PROFILES).capability / (s.gpu_slots or 1)
        for s in (better, worse)
    ]
    assert per_slot[0] > per_slot[1]


def test_value_metrics_are_prices_per_unit_of_each_figure():
    value = score_sku_value(V100, PROFILES.get("training"), PROFILES)

    metrics = value_metrics(value, Decimal("139"))

    assert metrics == {
        "price_per_compute": pytest.approx(139 / 125, abs=1e-4),
        "price_per_bandwidth": pytest.approx(139 / 900, abs=1e-4),
        "price_per_vram": pytest.approx(139 / 16, abs=1e-4),
    }


def test_servers_are_priced_per_gpu_slot():
    value = score_sku_value(TRT, PROFILES.get("capacity"), PROFILES)
    assert value_metrics(value, Decimal("800")) == {"price_per_slots": 100.0}


def test_an_sxm2_module_needs_a_host():
    value = score_sku_value(V100, PROFILES.get("training"), PROFILES)
    assert value.needs_host
    assert not score_sku_value(P40, PROFILES.get("training"), PROFILES).needs_host


@pytest.mark.parametrize(
    "raw",
    [
        {"profile": {"x": {"weights": {"vram": 0.5}}}, "topology": {"unknown": 0.5}},
        {"profile": {"x": {"weights": {"speed": 1.0}}}, "topology": {"unknown": 0.5}},
        {"profile": {"x": {"weights": {"vram": 1.0}}}, "topology": {}},
    ],
    ids=["weights-not-summing-to-1", "unknown-metric", "no-unknown-topology"],
)
def test_bad_profile_data_is_a_clear_config_error(raw):
    with pytest.raises(ConfigError, match=r"profile|topology"):
        parse_profiles(raw)


def test_an_unknown_profile_names_the_known_ones():
    with pytest.raises(ConfigError, match="capacity, llm-inference, training"):
        PROFILES.get("mining")
