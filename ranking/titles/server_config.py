"""Read what a server listing comes with (CPUs, RAM, heatsinks, power, drives, board) from its
title, and which priced part an accessory listing sells (``parts.toml``).

Sellers say "barebone" for a server without GPUs and list CPUs and RAM in the same title
("ESC4000 G3 ... 2x E5-2680 v4 128GB ... Barebone"), so the configuration comes from what the
title names, never from the word "barebone". A socket ("2x LGA3647") or a supported range
("2x E5-2600 v3/v4") is not a CPU. A memory size right after a GPU model is its VRAM, not RAM.
Pure: text in, frozen records out.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field, replace
from decimal import Decimal
from functools import cache
from typing import TYPE_CHECKING, Any

from core.models import Category, ServerConfig
from core.text import match_form
from ranking.catalog import CATALOG_DIR, load_catalog
from ranking.titles.facts import NO, UNKNOWN, YES, TitleFacts, read_title
from ranking.titles.specifics import specific
from ranking.titles.vocab import load_aliases

CENT = Decimal("0.01")

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

PARTS_FILE = CATALOG_DIR / "parts.toml"
HEATSINK, POWER_SHELF = "sxm2-heatsink", "ocp-power-shelf"  # parts.toml ids the rules name

_CPU = re.compile(
    r"(?:\b(?P<n>[1-8])\s*x\s*|\b(?P<dual>dual|two|zwei|deux|dos|due)\s+|\b(?P<n2>[1-8])\s*\*\s*"
    # a count before the processor word, in any marketplace's language: "2 processeurs E5-…"
    r"|\b(?P<n3>[1-8])\s*(?:x\s*)?(?:cpus?|processors?|prozessoren|processeurs|procesadores"
    r"|processori|processoren)\s+)?"
    r"(?:intel\s+)?(?:xeon\s+)?(?:amd\s+)?"
    r"(?P<model>e5-\d{4}[a-z]?l?\s*v\d|(?:gold|silver|platinum|bronze)\s+\d{4}[a-z]?"
    r"|epyc\s+\d{4}[a-z]?)(?![\w/])"
)
# CPUs counted with no model named ("2 CPUs", "2x CPU", "2 Prozessoren"); not sockets or slots
# ("2 CPU sockets", "2x LGA3647"), and not "2x Xeon", which also names a supported range
_CPU_COUNT = re.compile(
    r"\b(?P<n>[1-8])\s*(?:x\s*)?(?:cpus?|processors?|prozessoren|prozessor|processeurs?"
    r"|procesadores?|processori|processore|processoren)\b(?!\s*(?:sockets?|sockel|slots?))"
)
# a memory size, in GB or French "Go", and the modules it is counted in ("24x 32GB")
_GB = re.compile(r"\b(?:(?P<modules>\d{1,2})\s*x\s*)?(?P<size>\d{1,4})\s*(?:gb|go)\b(?!\s*/s|e)")
_RAM_WORDS = re.compile(
    r"^\s*(?:de\s+|di\s+)?(?:ram|memory|ddr\d|ecc|rdimm|reg|arbeitsspeicher|speicher|memoire"
    r"|memoria|geheugen)\b"
)
# a power supply's name in any marketplace's language (accents folded)
_PSU_NAME = (
    r"(?:psus?|power\s+suppl\w*|netzteile?|alimentations?|alimentatori?"
    r"|fuentes?\s+de\s+alimentacion|voedingen?)"
)
# its watts and count, before its name ("2x 1600W PSU", "2x 2000W Netzteil") or after it
# ("fuente de alimentacion 1600W", "Netzteil 2x 2000W")
_PSU = re.compile(
    rf"\b(?:(?P<n>[1-8])\s*x\s*)?(?P<w>\d{{3,4}})\s*w\b(?=[^,;]*?\b{_PSU_NAME})"
    rf"|\b{_PSU_NAME}\s*(?:(?P<n2>[1-8])\s*x\s*)?(?P<w2>\d{{3,4}})\s*w\b"
)
# a count of kilowatt-class supplies with no name: in a server's title "4x 1600W" is its PSUs
_PSU_COUNT = re.compile(r"\b(?P<n>[1-8])\s*x\s*(?P<w>[1-3]\d{3})\s*w\b")
# drives: their count, size (a decimal point or comma: "1.6TB", "1,6TB"; French "To", "Go")
# and kind
_DRIVES = re.compile(
    r"\b(?:(?P<n>\d+)\s*x\s*)?(?P<size>\d+(?:[.,]\d+)?)\s*(?P<unit>tb|gb|to|go)\s*"
    r"(?P<kind>nvme|ssd|hdd|sas|sata)\b",
    re.IGNORECASE,
)
_BOARD = re.compile(r"\b(x\d{1,2}d[a-z0-9]*(?:-[a-z0-9+]+)+|z1\dp[a-z]*-[a-z0-9]+)", re.IGNORECASE)
# words before a memory size that make it a GPU's VRAM ("4x Tesla V100 SXM2 16GB", "8x H100
# 80GB"): every word of the catalog's GPU names (``gpu_words``), and these
_VRAM_WORDS = frozenset(
    {"gpu", "gpus", "sxm", "sxm2", "sxm4", "sxm5", "pcie", "nvlink", "hbm2", "hbm"}
)
_WORD = re.compile(r"[a-z0-9]+")


@cache
def gpu_words() -> frozenset[str]:
    """Every word that names a GPU in ``aliases.toml``: the GPU families of the catalog, and
    the cards it recognises but does not carry ("h200", "4070"), so a new card in the catalog
    is known here too."""
    aliases = load_aliases()
    gpu_families = {sku.family for sku in load_catalog() if sku.category is Category.GPU}
    phrases = [p for f, ps in aliases["families"].items() if f in gpu_families for p in ps]
    phrases += aliases["not_carried"]["gpu"]
    words = {w for phrase in phrases for w in phrase.split() if w != "#"}
    return frozenset(words) | _VRAM_WORDS


@dataclass(frozen=True, slots=True)
class Part:
    """A priced part (``parts.toml``): what a title must say, and the estimate without sales."""

    code: str
    name: str
    words: tuple[str, ...]
    any: tuple[str, ...]
    estimate: Decimal
    source: str
    instead: str = ""  # what a buyer may build instead (the T181's DIY 12 V supply)
    named: str = ""  # the [included] part of vocabulary.toml that names it in any language


@dataclass(frozen=True, slots=True)
class Platform:
    """A host platform's CPU, CPU cooler and RAM prices where the store has none (estimates)."""

    code: str
    cpu_estimate: Decimal
    ram_per_gb: Decimal
    source: str
    cooler_estimate: Decimal  # one CPU cooler (a passive server heatsink)
    cooler_source: str

    def cpus(self, count: int) -> Decimal:
        return (self.cpu_estimate * count).quantize(CENT)

    def coolers(self, count: int) -> Decimal:
        return (self.cooler_estimate * count).quantize(CENT)

    def ram(self, gb: int) -> Decimal:
        return (self.ram_per_gb * gb).quantize(CENT)


@dataclass(frozen=True, slots=True)
class PartsTable:
    """``parts.toml``: the parts, the platforms, each host family's platform, the pools and
    what a rig's bill of materials adds for a host without CPUs or RAM."""

    parts: Mapping[str, Part]
    platforms: Mapping[str, Platform]
    hosts: Mapping[str, str]  # server family -> platform code
    pools: Mapping[str, tuple[str, ...]]  # pool name -> the SKUs pooled
    bom_cpus: int
    bom_ram_gb: int
    drive_per_tb: Mapping[str, Decimal]  # "nvme", "ssd", "sas", "sata", "hdd" -> per TB
    psus: Mapping[str, tuple[str, int]] = field(default_factory=dict)  # family -> part, count

    def drives_price(self, drives: str) -> Decimal | None:
        """The estimate for drives as a title words them ("2x 1.6TB NVMe"); None when the
        wording gives no count, size or kind this table prices."""
        m = _DRIVES.search(drives.lower())
        if m is None or m["kind"] not in self.drive_per_tb:
            return None
        tb = _size(m["size"]) / (1000 if m["unit"] in ("gb", "go") else 1)
        return (tb * int(m["n"] or 1) * self.drive_per_tb[m["kind"]]).quantize(CENT)

    def platform(self, family: str) -> Platform | None:
        code = self.hosts.get(family)
        return self.platforms.get(code) if code else None

    def pool_of(self, sku: str) -> tuple[str, ...]:
        """The SKUs ``sku`` shares a thin market with (itself alone when it has no pool)."""
        return next((skus for skus in self.pools.values() if sku in skus), (sku,))

    def unit_price(self, code: str, medians: Mapping[str, Decimal]) -> tuple[Decimal, str]:
        """One unit of a priced part: its sold median in the store (``medians``), else the
        documented estimate; and which ("market" or "estimate")."""
        median = medians.get(code)
        if median is not None:
            return median, "market"
        return self.parts[code].estimate, "estimate"


@cache
def load_parts() -> PartsTable:
    """The packaged ``ranking/catalog/parts.toml``, read once."""
    with PARTS_FILE.open("rb") as handle:
        data = tomllib.load(handle)
    parts = {
        code: Part(
            code,
            str(p["name"]),
            tuple(p.get("words", ())),
            tuple(p.get("any", ())),
            Decimal(str(p["estimate"])),
            str(p["source"]),
            str(p.get("instead", "")),
            str(p.get("named", "")),
        )
        for code, p in data["parts"].items()
    }
    platforms = {
        code: Platform(
            code,
            Decimal(str(p["cpu_estimate"])),
            Decimal(str(p["ram_per_gb"])),
            str(p["source"]),
            Decimal(str(p["cooler_estimate"])),
            str(p["cooler_source"]),
        )
        for code, p in data["platforms"].items()
    }
    bom = data["bom"]
    drives = {k: Decimal(str(v)) for k, v in data["drives"].items() if k != "source"}
    return PartsTable(
        parts,
        platforms,
        dict(data["hosts"]),
        {name: tuple(skus) for name, skus in data["pools"].items()},
        int(bom["cpus"]),
        int(bom["ram_gb"]),
        drives,
        {family: (str(p["part"]), int(p["count"])) for family, p in data["psus"].items()},
    )


def parse_server_config(
    title: str,
    *,
    sxm_gpus_included: bool = False,
    specifics: Mapping[str, str] | None = None,
    facts: TitleFacts | None = None,
) -> ServerConfig:
    """What a server title says comes with it besides its GPUs.

    ``sxm_gpus_included``: the title sells SXM modules installed, which sit under their
    heatsinks, so the heatsinks come too. ``specifics`` (an item's "RAM Size", "Number of
    Processors", "Processor Model"... as the Browse API's item aspects or an import give them)
    fill in what the title leaves unsaid. ``facts``: what ``title_facts`` read of this title
    already (the normalizer's reading), else it is read here.

    >>> title = "T181-G20 GPU Server 2x Xeon Silver 4114 64GB No GPUs No Heatsinks"
    >>> parse_server_config(title).describe()
    '2x Silver 4114, 64 GB RAM, no heatsinks'
    """
    title = match_form(title)
    text = " ".join(title.lower().split())
    facts = facts if facts is not None else read_title(title)
    cpus, model = (0, None) if facts.part("cpu") == NO else _cpus(text)
    heatsinks = facts.part("heatsink")
    if heatsinks == UNKNOWN and sxm_gpus_included:
        heatsinks = YES
    found = ServerConfig(
        heatsinks=heatsinks,
        cpu_coolers=facts.part("cpu_cooler"),
        cpus=cpus,
        cpu_model=model,
        ram_gb=0 if facts.part("ram") == NO else _ram(text),
        **_psus(text, facts),
        power_shelf=facts.part("power_shelf") == YES,
        drives=_drives(title),
        board=_board(title),
    )
    return _with_specifics(found, specifics) if specifics else found


def _with_specifics(found: ServerConfig, specifics: Mapping[str, str]) -> ServerConfig:
    """The title's reading, with what the item specifics say where the title said nothing
    (named in any marketplace's language: ``ranking/titles/specifics.py``)."""
    changes: dict[str, Any] = {}
    ram = specific(specifics, "ram")
    if found.ram_gb is None and ram and (m := re.search(r"(\d{1,4})\s*(?:gb|go)", ram.lower())):
        changes["ram_gb"] = int(m[1])
    count = specific(specifics, "cpus")
    if found.cpus is None and count and count.strip().isdigit():
        changes["cpus"] = int(count.strip())
    model = specific(specifics, "cpu_model")
    if found.cpu_model is None and model and (m := _CPU.search(model.lower())):
        changes["cpu_model"] = _model(m["model"])
        changes.setdefault("cpus", found.cpus or 1)
    return replace(found, **changes) if changes else found


def parse_part(title: str, parts: Iterable[Part], facts: TitleFacts | None = None) -> str | None:
    """The priced part an accessory title sells ("sxm2-heatsink"); how many is the
    normalizer's lot count, as for any listing. ``facts``: the title's (``read_title``), when
    the caller has read them."""
    text = " ".join(match_form(title).lower().split())
    for part in parts:
        if part.named:
            facts = facts or read_title(title)
            if facts.part(part.named) != YES:
                continue
        if all(any(a in text for a in w.split("|")) for w in part.words) and (
            not part.any or any(w in text for w in part.any)
        ):
            return part.code
    return None


def _cpus(text: str) -> tuple[int | None, str | None]:
    for m in _CPU.finditer(text):
        count = 2 if m["dual"] else int(m["n"] or m["n2"] or m["n3"] or 1)
        return count, _model(m["model"])
    counted = _CPU_COUNT.search(text)
    return (int(counted["n"]), None) if counted else (None, None)


def _model(raw: str) -> str:
    """ "e5-2680 v4" -> "E5-2680 v4", "gold 6138" -> "Gold 6138"."""
    words = raw.split()
    if raw.startswith("e5"):
        return f"{words[0].upper()} {words[-1]}" if len(words) > 1 else raw.upper()
    return " ".join([words[0].capitalize(), *(w.upper() for w in words[1:])])


def _ram(text: str) -> int | None:
    found = []
    for m in _GB.finditer(text):
        before = _WORD.findall(text[: m.start()])[-3:]
        named_ram = _RAM_WORDS.match(text[m.end() :]) is not None
        if named_ram or not gpu_words().intersection(before):
            found.append(int(m["size"]) * int(m["modules"] or 1))
    # RAM comes in 16 GB steps at least; "8GB" after no GPU word is still a card's memory
    ram = [gb for gb in found if gb >= 16]
    return max(ram) if ram else None


def _psus(text: str, facts: TitleFacts) -> dict[str, int | None]:
    if facts.part("psu") == NO:
        return {"psus": 0, "psu_watts": None}
    m = _PSU.search(text) or _PSU_COUNT.search(text)
    if m is None:
        return {"psus": None, "psu_watts": None}
    found = m.groupdict()  # the unnamed count's pattern has no second pair of groups
    count, watts = found["n"] or found.get("n2"), str(found["w"] or found["w2"])
    return {"psus": int(count) if count else 1, "psu_watts": int(watts)}


def _board(title: str) -> str | None:
    m = _BOARD.search(title)
    return m[1].upper() if m else None


def _size(text: str) -> Decimal:
    """ "1.6", "3.840" and "1,6" are decimals; "1,920" (a comma before three digits) is 1920."""
    whole, comma, part = text.partition(",")
    if not comma:
        return Decimal(text)
    return Decimal(whole + part) if len(part) == 3 else Decimal(f"{whole}.{part}")


def _drives(title: str) -> str | None:
    m = _DRIVES.search(title)
    return " ".join(m[0].split()) if m else None
