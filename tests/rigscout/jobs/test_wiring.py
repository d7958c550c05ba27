"""The run reads each listing with everything it states, not its title alone."""

from __future__ import annotations

import json

import pytest

from bench import SAMPLES
from core.models import Kind
from ranking.titles import default_normalizer
from rigscout.jobs.wiring import normalizer_for
from scraper.browse_parse import parse_item_summaries
from tests.conftest import load_sample

SAMPLE_FILES = sorted(p.name for p in (SAMPLES / "browse-api").glob("*.json")) or ["absent.json"]


@pytest.mark.parametrize("name", SAMPLE_FILES)
def test_a_real_listing_whose_condition_says_for_parts_is_never_a_working_card(name):
    """In the saved Browse responses 19 listings are "For parts or not working"; three have
    plain titles ("Galaxy Geforce RTX 4090 HOF OC LAB PLUS 24GB HALL OF FAME Graphics card"),
    which a reading of the title alone priced as working cards."""
    payload = json.loads(load_sample("browse-api", name))
    read = normalizer_for(default_normalizer())
    for listing in parse_item_summaries(payload, marketplace="EBAY_US"):
        if listing.condition == "For parts or not working":
            assert read(listing).kind is not Kind.ITEM, listing.title
