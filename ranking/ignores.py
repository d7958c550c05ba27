"""What the user asked never to see again (``rigscout ignore``): items, sellers, title words.

Pure. A listing it covers carries the ``ignored`` flag (severity exclude): it leaves the deals,
the plans, the report and the alerts, and ``--include-flagged`` still shows it, "ignored by
you". Sellers compare case-insensitively; a title word matches a whole word of the title in
its normal form (``core.text.match_form``), case-insensitively, so "refurb" does not hide
"refurbished" and "EPYC" hides "epyc".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from core.marketplaces import item_number
from core.text import match_form

KINDS = ("item", "seller", "title_word")


@dataclass(frozen=True)
class Ignores:
    items: frozenset[str] = frozenset()
    sellers: frozenset[str] = frozenset()  # casefolded
    words: frozenset[str] = frozenset()  # in normal form, casefolded

    def __bool__(self) -> bool:
        return bool(self.items or self.sellers or self.words)

    @cached_property
    def _words(self) -> re.Pattern[str] | None:
        if not self.words:
            return None
        alternatives = "|".join(re.escape(w) for w in sorted(self.words, key=len, reverse=True))
        return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)")

    def reason(self, item_id: str, seller: str | None, title: str) -> str | None:
        """Why a listing is ignored ("ignored by you: seller gpu_king"), or None."""
        if item_id in self.items:
            return "ignored by you: this item"
        if seller and seller.casefold() in self.sellers:
            return f"ignored by you: seller {seller}"
        pattern = self._words
        if pattern is not None and (hit := pattern.search(match_form(title).casefold())):
            return f"ignored by you: the word {hit.group(0)!r} in the title"
        return None


MAX_LENGTH = 200  # what the store keeps of one (db/models.py IgnoreRow.value)


def ignore_value(kind: str, value: str) -> str:
    """``value`` as stored and compared for ``kind``; a ValueError says what is wrong."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind of ignore {kind!r}; expected one of {', '.join(KINDS)}")
    text = match_form(value).strip()
    if len(text) > MAX_LENGTH:
        raise ValueError(
            f"a {kind.replace('_', ' ')} of {len(text)} characters cannot be ignored "
            f"(at most {MAX_LENGTH}: no title word, seller or item number is longer)"
        )
    if kind == "item":
        number = item_number(text)
        if number is None:
            raise ValueError(
                f"{value!r} is not an eBay item number (its digits, or the item's link)"
            )
        return number
    if not text:
        raise ValueError(f"an empty {kind.replace('_', ' ')} cannot be ignored")
    return text.casefold()
