"""One reader for what a title states: faults and parts included or missing, in every
language a marketplace speaks, and every stage (kind, flags, server configuration, the rig
planner) answering the same way.

The phrasings below are written here from how sellers word listings on each marketplace, not
read from the vocabulary, so a phrase dropped from the data file fails a test.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.models import Kind
from ranking.catalog import load_catalog
from ranking.plan.bom import module_heatsink
from ranking.titles.facts import NO, UNKNOWN, YES, read_title
from ranking.titles.flags import load_signals
from ranking.titles.normalize import normalize_title
from ranking.titles.server_config import parse_server_config

# a card of each kind: one with display outputs, one headless data-center card
CARDS = {
    "NVIDIA GeForce RTX 3090 24GB": "nvidia-rtx-3090",
    "NVIDIA Tesla P40 24GB": "nvidia-tesla-p40",
    "Tesla V100 SXM2 16GB": "nvidia-tesla-v100-sxm2-16gb",
}
HEADLESS = {s.sku for s in load_catalog() if s.headless}

BROKEN = {
    "en": ["for parts", "not working", "broken", "defective", "faulty", "parts or repair", "DOA"],
    "de": ["defekt", "für Teile", "funktioniert nicht", "Bastler", "als Ersatzteil", "kaputt"],
    "fr": ["pour pièces", "HORS SERVICE", "en panne", "ne fonctionne pas", "défectueux"],
    "it": ["guasto", "per ricambi", "non funzionante", "difettoso", "rotto"],
    "es": ["averiado", "para piezas", "no funciona", "defectuoso", "para repuestos"],
    "nl": ["defect", "kapot", "voor onderdelen", "werkt niet"],
    # it does not power on, is not detected, shows artifacts or memory errors
    "power": [
        "won't turn on",
        "startet nicht",
        "ne s'allume pas",
        "non si accende",
        "no enciende",
        "gaat niet aan",
        "nicht erkannt",
        "non reconnue",
        "no detectada",
        "Speicherfehler",
        "errores de memoria",
        "crashes under load",
        "stürzt ab",
        "missing capacitor",
        "fehlender Kondensator",
        "gebrochener Stecker",
        "per parti di ricambio",
    ],
}
UNTESTED = ["untested", "not tested", "ungetestet", "nicht getestet", "non testé", "non testato",
            "sin probar", "niet getest", "ungeprüft", "non vérifiée", "sin comprobar",
            "non verificata"]  # fmt: skip
AS_IS = ["as is", "AS-IS", "wie besehen", "en l'état", "tal cual", "so wie es ist", "tel quel",
         "vendue telle quelle", "tal como está"]  # fmt: skip
NO_PICTURE = ["no video", "no display", "kein Bild", "pas d'image", "sin imagen", "geen beeld",
              "black screen", "schwarzer Bildschirm", "écran noir", "pantalla negra",
              "schermo nero", "zwart scherm"]  # fmt: skip
# "not broken", "nicht defekt", "sin defectos": the opposite of a fault
NEGATED = ["not broken", "nicht defekt", "no artifacts", "artifact free", "no display issues",
           "never dead", "non difettoso", "sans panne", "no black screen", "no crashes",
           "kein schwarzer Bildschirm"]  # fmt: skip


def _cases(text: str) -> st.SearchStrategy[str]:
    return st.sampled_from([text, text.upper(), text.lower(), text.title()])


def _title(card: str, phrase: str, where: str, sep: str) -> str:
    return f"{phrase}{sep}{card}" if where == "before" else f"{card}{sep}{phrase}"


PLACES = st.sampled_from(["before", "after"])
SEPS = st.sampled_from([" ", " - ", ", ", " / ", " (", " *", " | ", " \u2013 "])


@settings(max_examples=300, deadline=None)
@given(
    card=st.sampled_from(sorted(CARDS)),
    phrase=st.sampled_from([p for ps in BROKEN.values() for p in ps]).flatmap(_cases),
    where=PLACES,
    sep=SEPS,
)
def test_a_fault_in_any_language_makes_a_broken_part_and_the_for_parts_signal(
    card: str, phrase: str, where: str, sep: str
) -> None:
    title = _title(card, phrase, where, sep)
    sku = CARDS[card]
    found = normalize_title(title)
    assert (found.sku, found.kind) == (sku, Kind.FOR_PARTS), title
    assert "for_parts" in load_signals().codes_for(title, headless=sku in HEADLESS), title
    assert read_title(title).broken()


@settings(max_examples=150, deadline=None)
@given(
    card=st.sampled_from(sorted(CARDS)),
    phrase=st.sampled_from(NEGATED).flatmap(_cases),
    where=PLACES,
)
def test_a_negated_fault_is_no_fault_for_any_reader(card: str, phrase: str, where: str) -> None:
    title = _title(card, phrase, where, " ")
    headless = CARDS[card] in HEADLESS
    assert normalize_title(title).kind is Kind.ITEM, title
    codes = load_signals().codes_for(title, headless=headless)
    assert not {"for_parts", "no_display"} & set(codes), (title, codes)


@settings(max_examples=100, deadline=None)
@given(card=st.sampled_from(sorted(CARDS)), phrase=st.sampled_from(UNTESTED).flatmap(_cases))
def test_untested_in_any_language_is_a_warning_not_a_broken_part(card: str, phrase: str) -> None:
    title = f"{card} {phrase}"
    headless = CARDS[card] in HEADLESS
    assert normalize_title(title).kind is Kind.ITEM
    assert "untested" in load_signals().codes_for(title, headless=headless)


@given(phrase=st.sampled_from(AS_IS).flatmap(_cases))
def test_as_is_in_any_language(phrase: str) -> None:
    title = f"NVIDIA GeForce RTX 3090 24GB {phrase}"
    assert normalize_title(title).kind is Kind.FOR_PARTS
    assert "as_is" in load_signals().codes_for(title)


@given(phrase=st.sampled_from(NO_PICTURE).flatmap(_cases))
def test_no_picture_is_a_fault_on_a_gaming_card_and_how_a_tesla_is_made(phrase: str) -> None:
    gaming, tesla = f"NVIDIA GeForce RTX 3090 24GB {phrase}", f"NVIDIA Tesla P40 24GB {phrase}"
    assert normalize_title(gaming).kind is Kind.FOR_PARTS
    assert "no_display" in load_signals().codes_for(gaming)
    assert normalize_title(tesla).kind is Kind.ITEM
    assert "no_display" not in load_signals().codes_for(tesla, headless=True)


def test_the_quoted_not_broken_p40_is_an_item_and_not_excluded() -> None:
    title = "NVIDIA Tesla P40 24GB not broken fully tested"
    assert normalize_title(title).kind is Kind.ITEM
    assert load_signals().codes_for(title, headless=True) == []


PACKAGING = ["damaged box", "box damaged", "Verpackung beschädigt", "emballage endommagé",
             "caja dañada", "scatola danneggiata", "doos beschadigd"]  # fmt: skip


@given(phrase=st.sampled_from(PACKAGING).flatmap(_cases))
def test_a_damaged_box_is_no_damaged_card(phrase: str) -> None:
    title = f"NVIDIA GeForce RTX 4090 24GB new, {phrase}"
    assert normalize_title(title).kind is Kind.ITEM, title
    assert "for_parts" not in load_signals().codes_for(title)


def test_tested_does_not_negate_the_fault_after_it() -> None:
    title = "NVIDIA GeForce RTX 3090 24GB Tested, not working"
    assert normalize_title(title).kind is Kind.FOR_PARTS
    assert load_signals().codes_for(title) == ["for_parts"]


# --- parts included or missing ---------------------------------------------------------------

MISSING_HEATSINK = [
    "no heatsink", "W/O heatsink", "without heatsinks", "missing heatsink", "heatsink not included",
    "heatsinks sold separately", "no GPU heatsinks", "ohne Kühlkörper", "Kühlkörper nicht enthalten",
    "sans dissipateur", "sin disipador", "senza dissipatore", "zonder koellichaam",
    "heat sink not included", "NO HEATSINKS",
    # its abbreviation, and the module alone in any language
    "no HS", "W/O HS", "module only", "bare module", "nur Modul", "module seul",
    "solo el módulo", "alleen module",
]  # fmt: skip
WITH_HEATSINK = ["with heatsink", "w/ heatsink", "incl. heatsink", "heatsink included",
                 "+ heatsink", "mit Kühlkörper", "avec dissipateur", "w/ HS", "+ HS",
                 "with cooler", "inkl. Kühler", "con radiador"]  # fmt: skip


@settings(max_examples=120, deadline=None)
@given(phrase=st.sampled_from(MISSING_HEATSINK).flatmap(_cases), sep=SEPS)
def test_a_missing_heatsink_reads_the_same_for_flags_planner_and_server(
    phrase: str, sep: str
) -> None:
    module = f"Tesla V100 SXM2 16GB{sep}{phrase}"
    server = f"Gigabyte T181-G20 barebone{sep}{phrase}"
    assert read_title(module).part("heatsink") == NO, module
    assert "no_heatsink" in load_signals().codes_for(module, headless=True)
    assert module_heatsink(module, ()) == NO
    assert normalize_title(module).kind is Kind.ITEM  # a module sold without one is the module
    assert parse_server_config(server).heatsinks == NO, server


@given(phrase=st.sampled_from(WITH_HEATSINK).flatmap(_cases))
def test_a_heatsink_named_plainly_comes_with_the_module(phrase: str) -> None:
    module = f"Tesla V100 SXM2 16GB {phrase}"
    assert module_heatsink(module, ()) == YES
    assert "no_heatsink" not in load_signals().codes_for(module, headless=True)


def test_a_title_that_does_not_name_a_heatsink_does_not_promise_one() -> None:
    assert module_heatsink("Tesla V100 SXM2 16GB", ()) == UNKNOWN


def test_cpu_coolers_are_not_gpu_heatsinks() -> None:
    config = parse_server_config("ASUS ESC4000 G3 2x E5-2680 v4 128GB with CPU heatsinks")
    assert config.heatsinks == UNKNOWN


def test_what_a_barebone_lacks_is_read_in_its_own_language() -> None:
    config = parse_server_config("ASUS ESC4000 G3 Barebone ohne CPU, ohne RAM, kein Netzteil")
    assert (config.cpus, config.ram_gb, config.psus) == (0, 0, 0)
    config = parse_server_config("Gigabyte T181-G20 sin procesadores sin memoria")
    assert (config.cpus, config.ram_gb) == (0, 0)
    config = parse_server_config("Gigabyte T181-G20 2x Gold 6138 CPUs not included")
    assert config.cpus == 0


def test_artifacts_in_any_language_break_a_card() -> None:
    for title in ("RTX 3090 24GB artefactos", "RTX 3090 24GB artefatti", "RTX 3090 Grafikfehler"):
        found = normalize_title(title)
        assert (found.kind, read_title(title).broken()) == (Kind.FOR_PARTS, True), title


def test_a_list_of_parts_after_a_missing_one_is_missing_in_any_language() -> None:
    for lacks in (
        "no CPU or RAM", "without CPU and RAM", "no CPU/RAM", "ohne CPU und RAM",
        "weder CPU noch RAM", "sans CPU ni RAM", "senza CPU né RAM", "sin CPU ni RAM",
    ):  # fmt: skip
        config = parse_server_config(f"ASUS ESC4000 G3 Barebone {lacks}")
        assert (config.cpus, config.ram_gb) == (0, 0), lacks
    assert read_title("Supermicro 4028GR-TRT no HDD, CPU, RAM").parts == {
        "drives": NO, "cpu": NO, "ram": NO,
    }  # fmt: skip
    # but a part with its own size is listed, not lacking; and a list said included is included
    assert read_title("Supermicro 4028GR-TRT no CPU, 256GB RAM").part("ram") == YES
    assert read_title("Supermicro 4028GR-TRT no CPU, 2x PSU").part("psu") == YES
    included = read_title("Supermicro 4028GR-TRT no HDD, CPU and RAM included")
    assert (included.part("drives"), included.part("cpu"), included.part("ram")) == (NO, YES, YES)


def test_a_power_shelf_said_missing_is_not_included() -> None:
    assert parse_server_config("Gigabyte T181-G20 with power shelf").power_shelf
    assert not parse_server_config("Gigabyte T181-G20 no power shelf").power_shelf


def test_gpu_memory_on_a_server_is_not_its_ram_for_any_catalog_gpu() -> None:
    """GPU names come from the catalog: an H100, L40S or A6000 is as much a GPU as a V100."""
    for gpu in ("H100 80GB", "L40S 48GB", "RTX A6000 48GB", "A100-80GB", "Tesla V100 32GB"):
        config = parse_server_config(f"Supermicro SYS-4029GP-TRT 8x {gpu} 2x Gold 6248 512GB")
        assert config.ram_gb == 512, gpu
        config = parse_server_config(f"Supermicro SYS-4029GP-TRT 8x {gpu} barebone")
        assert config.ram_gb is None, gpu


# --- a bare number never names a GPU -------------------------------------------------------------

OFFICE = [
    "Dell OptiPlex 3070 Micro Mini PC Intel Core i3-9100T 8GB 256GB SSD Win 11",
    "Dell OptiPlex 3090 Micro i5-10500T 16GB 512GB NVMe",
    "Dell Optiplex 3080 SFF Desktop i5-10500 8GB",
    "Dell 3090 Micro Desktop Computer 8GB RAM",
    "HP EliteDesk 800 G4 3060 Tower",
    "Lenovo ThinkCentre M70q 3070 Tiny",
    "Dell Inspiron 3880 Desktop 3090",
]


def test_office_pcs_whose_numbers_look_like_gpus_are_not_gpus() -> None:
    for title in OFFICE:
        found = normalize_title(title)
        assert (found.sku, found.kind) == (None, Kind.OTHER), title


def test_a_number_with_a_card_context_still_names_the_card() -> None:
    for title, sku in [
        ("EVGA 3090 FTW3 Ultra", "nvidia-rtx-3090"),
        ("3090 24GB", "nvidia-rtx-3090"),
        ("Gigabyte 3070 Gaming OC 8G", "nvidia-rtx-3070"),
        ("NVIDIA 3080 Founders Edition", "nvidia-rtx-3080-10gb"),
        ("Grafikkarte 3090 24 GB", "nvidia-rtx-3090"),
    ]:
        assert normalize_title(title).sku == sku, title
    server = normalize_title("Supermicro 4028GR-TRT with 8x 3090")
    assert [(i.sku, i.quantity) for i in server.includes] == [("nvidia-rtx-3090", 8)]


@given(
    phrase=st.sampled_from(
        ["no signal", "no output", "kein Signal", "pas de signal", "sin señal", "nessun segnale"]
    ).flatmap(_cases)
)
def test_no_signal_breaks_a_card_with_outputs_and_is_to_verify_on_a_headless_one(
    phrase: str,
) -> None:
    gaming, tesla = f"NVIDIA GeForce RTX 3090 24GB {phrase}", f"NVIDIA Tesla P40 24GB {phrase}"
    assert normalize_title(gaming).kind is Kind.FOR_PARTS
    assert "no_display" in load_signals().codes_for(gaming)
    assert normalize_title(tesla).kind is Kind.ITEM
    assert load_signals().codes_for(tesla, headless=True) == ["verify_fault"]
