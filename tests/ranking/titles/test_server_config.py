"""What a server listing comes with, read from its title as a buyer following the guides would.

Guide 000 builds a node from a "barebones" T181-G20, then buys CPUs ("Xeon Gold 6132: $20-30"),
RAM and the 12 V power: a title's CPUs, RAM, heatsinks and power shelf are what separate a
$700 chassis from a $1,500 machine.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

import pytest

from ranking.titles.normalize import normalize_title
from ranking.titles.server_config import load_parts, parse_part, parse_server_config

if TYPE_CHECKING:
    from core.models import ServerConfig


def config(title: str) -> ServerConfig:
    found = normalize_title(title).config
    assert found is not None, f"{title!r} was not read as a server"
    return found


def test_a_socket_or_a_supported_range_is_not_a_cpu():
    bare = config("Gigabyte T181-G20 OCP 1U 4x SXM2 GPU Server Barebone 2x LGA3647")
    assert (bare.cpus, bare.ram_gb, bare.heatsinks) == (None, None, "unknown")
    assert bare.config_class() == "barebone"
    ranged = config("Supermicro SYS-4028GR-TRT 4U 8x GPU Server Barebone 2x E5-2600 v3/v4")
    assert ranged.cpus is None


def test_a_barebone_that_names_cpus_and_ram_has_them():
    # sellers say "barebone" for "no GPUs" and list CPUs and RAM in the same title
    got = config("ASUS ESC4000 G3 2U GPU Server 2x E5-2680 v4 128GB 4x GPU Slots Barebone")
    assert (got.cpus, got.cpu_model, got.ram_gb) == (2, "E5-2680 v4", 128)
    assert got.config_class() == "cpus"


def test_no_gpus_no_heatsinks_is_read_as_said():
    got = config("Gigabyte T181-G20 GPU Server 2x Xeon Silver 4114 64GB No GPUs No Heatsinks")
    assert (got.cpus, got.cpu_model, got.ram_gb, got.heatsinks) == (2, "Silver 4114", 64, "no")
    assert got.describe() == "2x Silver 4114, 64 GB RAM, no heatsinks"


def test_a_gpu_s_memory_is_not_the_server_s_ram():
    got = config("Gigabyte T181-G20 with 4x Tesla V100 SXM2 16GB 2x Xeon Gold 6138 192GB")
    assert got.ram_gb == 192
    assert got.heatsinks == "yes"  # installed SXM2 modules come under their heatsinks
    assert config("Supermicro 4028GR-TRT with 8x Tesla V100 32GB PCIe 2x E5-2698 v4").ram_gb is None


@pytest.mark.parametrize(
    ("title", "field", "value"),
    [
        ("Gigabyte T181-G20 OCP Server Node 12V Bus Bar - includes 4x SXM2 heatsinks", "heatsinks", "yes"),
        ("Gigabyte T181-G20 w/ 4x V100 16GB SXM2 + OCP 12V power shelf, freight", "power_shelf", True),
        ("Gigabyte T181-G20 OCP Server Node 12V Bus Bar", "power_shelf", False),  # the node's input
        ("Gigabyte T181-G20 1U 4-GPU SXM2 Server 2x Xeon Gold 6130 256GB 2x 1.6TB NVMe", "drives", "2x 1.6TB NVMe"),
        ("ASUS ESC4000 G3 GPU Server 2x E5-2650 v3 64GB 1600W PSU Tested", "psu_watts", 1600),
        ("ASUS ESC4000 G4X 2U Barebone Dual LGA3647 8x GPU Capable No CPU No RAM", "cpus", 0),
        ("ASUS ESC4000 G4X 2U Barebone Dual LGA3647 8x GPU Capable No CPU No RAM", "ram_gb", 0),
        ("Supermicro SYS-4028GR-TRT 4U 8x GPU Server Barebone X10DRG-O-PCIE", "board", "X10DRG-O-PCIE"),
        ("Supermicro SYS-4028GR-TR 4U GPU Server Dual Xeon E5-2680 v4 256GB RAM", "cpus", 2),
        # RAM in another language's unit or words, and counted in modules
        ("Supermicro 4028GR-TRT 2x E5-2680 v4 256 Go de RAM", "ram_gb", 256),
        ("Supermicro 4028GR-TRT 128Go DDR4", "ram_gb", 128),
        ("Supermicro 4028GR-TRT 2x E5-2680v4 256GB Arbeitsspeicher", "ram_gb", 256),
        ("Supermicro 4028GR-TRT dual Xeon E5-2697 v4, 24x 32GB", "ram_gb", 768),
        ("Gigabyte T181-G20 2x Xeon Gold 6148 12x 32GB DDR4", "ram_gb", 384),
        ("Gigabyte T181-G20 4x V100 SXM2 2x 16GB", "ram_gb", None),  # the GPUs' memory
        # and the CPUs counted in another language's words
        ("Supermicro 4028GR-TRT 2 processeurs E5-2680 v4 et 256 Go RAM", "cpus", 2),
        ("Supermicro 4028GR-TRT 2 procesadores E5-2680v4 256GB RAM", "cpus", 2),
        ("Supermicro 4028GR-TRT zwei E5-2680 v4", "cpus", 2),
        # CPUs counted with no model, in any language; sockets are not CPUs
        ("Supermicro 4028GR-TRT, 2 CPUs, 512GB, no GPUs", "cpus", 2),
        ("Supermicro SYS-4029GP-TRT mit 2 Prozessoren und 384GB RAM", "cpus", 2),
        ("Supermicro 4028GR-TRT 2x CPU 256GB", "cpus", 2),
        ("Supermicro 4028GR-TRT barebone, 2 CPU sockets", "cpus", None),
        # a server's kilowatt supplies counted without their name
        ("Supermicro SYS-4028GR-TRT 2x E5-2680 v4 256GB RAM 4x 1600W", "psus", 4),
        ("Gigabyte T181-G20 2x Gold 6138 / 256 GB / 2x 2200W", "psu_watts", 2200),
        # power supplies and drives in other languages' words and numbers
        ("ASUS ESC4000 G3 2x E5-2650 v3 64GB 2x 1600W Netzteil", "psu_watts", 1600),
        ("ASUS ESC4000 G3 Servidor 2x E5-2650 v3 64GB fuente de alimentación 1600W", "psu_watts", 1600),
        ("Supermicro 4028GR-TRT Server 2x E5-2680 v4 256GB Netzteil 2x 2000W", "psus", 2),
        ("Gigabyte T181-G20 2x 1,6TB NVMe", "drives", "2x 1,6TB NVMe"),
    ],
)  # fmt: skip
def test_each_part_a_title_names(title, field, value):
    assert getattr(config(title), field) == value


def test_a_wide_character_title_says_the_same():
    title = "Gigabyte T181-G20 GPU Server 2x Xeon Silver 4114 64GB No Heatsinks"
    wide = "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in title)
    assert parse_server_config(wide) == parse_server_config(title)


def test_cards_and_other_listings_carry_no_configuration():
    assert normalize_title("NVIDIA Tesla V100 SXM2 16GB").config is None


@pytest.mark.parametrize(
    ("title", "part", "count"),
    [
        ("Gigabyte T181-G20 SXM2 GPU Heatsink 25VH1-3D0105-A0R (Lot of 4)", "sxm2-heatsink", 4),
        ("OCP 12V Power Shelf for Gigabyte T181-G20 / T181-Z70 3x 3000W", "ocp-power-shelf", 1),
        ("4x SXM2 heatsink for Tesla V100", "sxm2-heatsink", 4),
        # the part named in any language a marketplace speaks ([included] in vocabulary.toml)
        ("Disipador para Tesla V100 SXM2", "sxm2-heatsink", 1),
        ("Dissipateur pour Tesla V100 SXM2 16Go", "sxm2-heatsink", 1),
        ("4x Dell C4140 SXM2 Kuehlkoerper", "sxm2-heatsink", 4),
        ("Netzteil für Supermicro 4028GR-TRT 2000W PWS-2K04A-1R (2 Stück)", "psu-supermicro-4u", 2),
        ("Alimentation ASUS ESC4000 G4 1600W", "psu-asus-esc4000", 1),
    ],
)
def test_an_accessory_that_is_a_priced_part_says_which_and_how_many(title, part, count):
    norm = normalize_title(title)
    assert (norm.part, norm.quantity) == (part, count)
    assert parse_part(title, load_parts().parts.values()) == part


def test_a_fan_shroud_is_no_priced_part():
    assert normalize_title("3D printed blower shroud for Tesla P40").part is None


def test_every_server_family_has_a_platform_and_every_pool_names_catalog_skus():
    from ranking.catalog import load_catalog

    skus = {s.sku: s for s in load_catalog()}
    table = load_parts()
    servers = {s.family for s in skus.values() if s.category.value == "server"}
    assert servers <= set(table.hosts), servers - set(table.hosts)
    for pooled in table.pools.values():
        assert set(pooled) <= set(skus)


@pytest.mark.parametrize(
    "specifics",
    [
        {"Arbeitsspeicher": "256 GB", "Anzahl der Prozessoren": "2", "Prozessormodell": "E5-2680 v4"},
        {"Mémoire vive": "256 Go", "Nombre de processeurs": "2", "Modèle de processeur": "E5-2680 v4"},
        {"Memoria RAM": "256 GB", "Numero di processori": "2", "Modello processore": "E5-2680 v4"},
        {"Capacidad de RAM": "256 GB", "Número de procesadores": "2", "Procesador": "Intel Xeon E5-2680 v4"},
    ],
)  # fmt: skip
def test_item_specifics_are_read_in_every_marketplaces_words(specifics):
    got = normalize_title("Supermicro SYS-4028GR-TRT 4U GPU Server", specifics=specifics).config
    assert got is not None
    assert (got.cpus, got.cpu_model, got.ram_gb) == (2, "E5-2680 v4", 256)


def test_item_specifics_fill_in_what_the_title_leaves_unsaid():
    specifics = {"RAM Size": "256 GB", "Number of Processors": "2", "Processor Model": "E5-2680 v4"}
    got = normalize_title("Supermicro SYS-4028GR-TRT 4U GPU Server", specifics=specifics).config
    assert got is not None
    assert (got.cpus, got.cpu_model, got.ram_gb) == (2, "E5-2680 v4", 256)
    said = normalize_title("Supermicro SYS-4028GR-TRT 2x E5-2650 v4 64GB", specifics=specifics)
    assert said.config is not None and said.config.ram_gb == 64  # the title's word stands


@pytest.mark.parametrize(
    ("drives", "price"),
    [("2x 1.6TB NVMe", "192.00"), ("2x 1,6TB NVMe", "192.00"), ("2x 1,920GB SSD", "172.80"),
     ("2x 480 Go SSD", "43.20"), ("1x 3.840TB SSD", "172.80")],
)  # fmt: skip
def test_drives_are_priced_by_their_size_however_the_title_writes_it(drives, price):
    # a decimal comma ("1,6TB") is a decimal; a comma before three digits ("1,920GB") groups
    # thousands; French "Go" is GB
    assert load_parts().drives_price(drives) == Decimal(price)
