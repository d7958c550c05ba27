"""The words of a title no data file names: what the reader says it did not understand."""

from __future__ import annotations

from dataclasses import replace

from ranking.catalog import load_catalog
from ranking.titles import describe_unread, unread_words

CATALOG = {s.sku: s for s in load_catalog()}


def test_a_title_made_of_catalog_vocabulary_and_filler_words_is_read_whole():
    for title in (
        "NVIDIA Tesla V100 SXM2 16GB HBM2 GPU Accelerator 900-2G503-0000-000 - Server Pull",
        "Lot of 4 NVIDIA Tesla P40 24GB PCIe passive - tested working, fast shipping",
        "Supermicro SYS-4028GR-TRT Barebone 8x GPU Server 2x Xeon E5-2680 v4 256GB RAM",
        "Lot de 4 NVIDIA Tesla P40 24 Go - testé, livraison rapide",
        "NVIDIA RTX A6000 48GB gebraucht, voll funktionsfähig, mit Rechnung",
    ):
        assert unread_words(title) == (), title


def test_numbers_part_numbers_and_short_words_are_not_words_to_read():
    assert unread_words("NVIDIA Tesla P40 24GB 699-2G610-0200-100 Q0V80A xy") == ()


def test_unknown_words_are_named_once_in_title_order():
    words = unread_words("NVIDIA Tesla P40 24GB Attrappe, Leihgabe - Attrappe")
    assert words == ("attrappe", "leihgabe")
    assert describe_unread(words) == (
        "check the title: it says 'attrappe', 'leihgabe', which rigscout does not read"
    )


def test_a_user_catalog_sku_s_own_words_count_as_read():
    sku = replace(CATALOG["nvidia-tesla-p40"], sku="acme-zephyr-40", name="Acme Zephyr 40GB")
    assert unread_words("Acme Zephyr 40GB accelerator") == ("acme", "zephyr")
    assert unread_words("Acme Zephyr 40GB accelerator", sku) == ()
