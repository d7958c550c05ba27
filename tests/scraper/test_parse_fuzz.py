"""Pages as a misbehaving server or network delivers them: cut short, with spans missing or
repeated, with deep nesting or junk inserted. The parser reads them or says why it cannot
(a ``RigscoutError`` with the reason); it never crashes otherwise, and a page that holds
listings never passes for an empty result unless it says so itself."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import RigscoutError
from scraper.parse import parse_search_page

ROOT = Path(__file__).resolve().parents[2]
PAGES = [
    ROOT / "fixtures" / "ebay" / "scard_2026-07_active.html",
    ROOT / "fixtures" / "ebay" / "scard_2026-07_sold.html",
    ROOT / "fixtures" / "demo" / "v100-sxm2" / "active-p1.html",
    ROOT / "fixtures" / "demo" / "p40" / "sold-p1.html",
]
TEXTS = {path.name + str(i): path.read_text(encoding="utf-8") for i, path in enumerate(PAGES)}
JUNK = st.sampled_from(
    ["<div>" * 300, "</ul></li>", "<!--", "<script>", "\x00", "\ufeff", "&#xffff;", "</html>"]
)


@st.composite
def damaged(draw: st.DrawFn) -> tuple[str, str]:
    name = draw(st.sampled_from(sorted(TEXTS)))
    html = TEXTS[name]
    at = draw(st.integers(0, len(html)))
    kind = draw(st.sampled_from(["cut", "drop", "repeat", "insert"]))
    if kind == "cut":
        return name, html[:at]
    end = draw(st.integers(at, min(len(html), at + 5000)))
    if kind == "drop":
        return name, html[:at] + html[end:]
    if kind == "repeat":
        return name, html[:end] + html[at:end] + html[end:]
    return name, html[:at] + draw(JUNK) + html[at:]


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_the_undamaged_pages_have_listings(name: str) -> None:
    assert parse_search_page(TEXTS[name]).listings


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(page=damaged())
def test_a_damaged_page_is_read_or_refused_with_a_reason_never_taken_for_empty(
    page: tuple[str, str],
) -> None:
    _, html = page
    try:
        result = parse_search_page(html, url="https://www.ebay.com/sch/i.html?_nkw=x")
    except RigscoutError as exc:
        refusal = str(exc)
        result = None
    if result is None:
        assert refusal  # refused, with the reason
    elif not result.listings:
        assert result.result_count == 0  # empty only when the page itself says 0 results
