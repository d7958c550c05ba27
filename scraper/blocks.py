"""Recognise the pages eBay serves instead of results: bot challenges, sign-in walls, errors.

Cheap checks first (the <title> near the top of the page), then a few exact phrases that only
appear on those pages. Pure: text in, a short reason out.
"""

from __future__ import annotations

import re

_TITLE = re.compile(r"<title[^>]*>(?P<title>[^<]*)</title>", re.IGNORECASE)
_BLOCK_TITLES: tuple[tuple[str, str], ...] = (
    ("security measure", "a captcha (Security Measure)"),
    ("pardon our interruption", "a bot check (Pardon Our Interruption)"),
    ("sign in or register", "a sign-in wall"),
    ("einloggen oder registrieren", "a sign-in wall"),
    ("error page", "an error page"),
)
_BLOCK_PHRASES: tuple[tuple[str, str], ...] = (
    ("Please verify yourself to continue", "a captcha (Please verify yourself)"),
    ("Pardon Our Interruption", "a bot check (Pardon Our Interruption)"),
    ("Something went wrong on our end", "an error page (Something went wrong)"),
)
_HEAD_BYTES = 65_536


def detect_block(html: str) -> str | None:
    """Why this page is not a results page (captcha, sign-in, error), or None if it may be one."""
    title = _TITLE.search(html, 0, _HEAD_BYTES)
    if title is not None:
        lowered = title.group("title").strip().lower()
        for needle, reason in _BLOCK_TITLES:
            if lowered.startswith(needle):
                return reason
    if "srp-results" in html:
        return None  # a results list: the phrases below could only be listing titles
    for phrase, reason in _BLOCK_PHRASES:
        if phrase in html:
            return reason
    return None
