"""Unmatched titles grouped by the model they most likely name: what a user should add next."""

from __future__ import annotations

from decimal import Decimal

import pytest

from ranking.titles.unmatched import (
    NO_MODEL,
    UnmatchedGroup,
    UnmatchedListing,
    group_unmatched,
    model_word,
    render_unmatched,
)


@pytest.mark.parametrize(
    ("title", "model"),
    [
        ("NVIDIA A800 80GB PCIe", "a800"),
        ("AMD Instinct MI250 128GB OAM", "mi250"),
        ("MSI GeForce RTX 4070 Ti Ventus 2X 12GB", "4070"),
        ("Supermicro SYS-4029GP-TRT4 GPU server", "4029gptrt4"),
        ("Dell PowerEdge XE8545 4x A100 SXM4", "xe8545"),
        ("NVIDIA Tesla V100 16GB PCIe x16 Gen3 250W", "v100"),
        ("2x Xeon E5-2680 v4 256GB 8x GPU server", NO_MODEL),
        ("Razer Core X Chroma", NO_MODEL),
    ],
)
def test_the_model_word_skips_sizes_counts_links_and_cpus(title: str, model: str) -> None:
    assert model_word(title) == model


def listing(title: str, low: str | None, high: str | None = None, currency: str = "USD"):
    return UnmatchedListing(
        title, currency, Decimal(low) if low else None, Decimal(high or low) if low else None
    )


def test_titles_of_one_model_form_one_group_with_its_count_price_range_and_shared_words() -> None:
    groups = group_unmatched(
        [
            listing("NVIDIA A800 80GB PCIe Tensor Core GPU", "5200"),
            listing("NVIDIA A800 80GB PCIe Tensor Core GPU", "4800", "5000"),
            listing("Nvidia A800 80GB PCIE new bulk", "4650"),
            listing("AMD Instinct MI250 128GB OAM", "3100"),
            listing("Razer Core X eGPU enclosure", "180"),
            listing("NVIDIA A800 80GB PCIe", "3900", currency="EUR"),
        ]
    )
    assert [(g.model, g.listings) for g in groups] == [("a800", 4), ("mi250", 1), (NO_MODEL, 1)]
    a800 = groups[0]
    assert a800 == UnmatchedGroup(
        model="a800",
        listings=4,
        shared=("a800", "80gb"),
        currency="USD",  # the range is in the group's most common currency
        low=Decimal(4650),
        high=Decimal(5200),
        example="NVIDIA A800 80GB PCIe Tensor Core GPU",
    )


def test_a_listing_never_priced_shows_no_range() -> None:
    (group,) = group_unmatched([listing("NVIDIA A800 80GB", None)])
    assert (group.low, group.high, group.currency) == (None, None, None)
    assert render_unmatched([group], limit=5)[1].split()[:3] == ["1", "-", "a800"]


def test_the_rendered_screen_shows_the_largest_groups_and_says_how_many_more() -> None:
    groups = group_unmatched(
        [listing(f"NVIDIA A800 80GB #{i}", "5000") for i in range(3)]
        + [listing("AMD MI250 OAM", "3000", "3400"), listing("AMD MI250 OAM", "3100")]
        + [listing("NVIDIA H200 141GB", "30000")]
    )
    lines = render_unmatched(groups, limit=2)
    assert lines[0].split()[:3] == ["listings", "price", "range"]
    assert lines[1].split()[:5] == ["3", "5,000", "USD", "a800", "a800"]
    assert "3,000–3,400 USD" in lines[2]
    assert lines[-1] == "… and 1 smaller groups (--limit to see more)"
