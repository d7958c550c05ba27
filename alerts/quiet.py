"""Quiet hours: the part of the day a channel holds its alerts back, in the user's time zone.

Pure. ``quiet_hours = "23:00-07:00"`` holds a channel's alerts from 23:00 to 07:00; they stay
pending in the outbox (never dropped) and go out with the first run after the quiet ends.
A window may cross midnight; a start equal to its end is refused (no quiet, or always quiet?).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping
    from zoneinfo import ZoneInfo

_WINDOW = re.compile(r"\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*")


@dataclass(frozen=True, slots=True)
class QuietHours:
    """From ``start`` (inclusive) to ``end`` (exclusive), local time; may cross midnight."""

    start: time
    end: time

    def __str__(self) -> str:
        return f"{self.start:%H:%M}-{self.end:%H:%M}"

    def holds(self, moment: datetime) -> bool:
        """True when ``moment`` (in the user's zone) falls in the quiet hours."""
        now = moment.time().replace(tzinfo=None)
        if self.start < self.end:
            return self.start <= now < self.end
        return now >= self.start or now < self.end

    def ends_after(self, moment: datetime) -> datetime:
        """When the quiet that holds at ``moment`` is over (same zone as ``moment``)."""
        end = datetime.combine(moment.date(), self.end, tzinfo=moment.tzinfo)
        return end if end > moment else end + timedelta(days=1)


def parse_quiet_hours(text: str) -> QuietHours:
    """``"23:00-07:00"`` as ``QuietHours``; anything else is a ``ValueError`` saying why."""
    match = _WINDOW.fullmatch(text)
    if match is None:
        raise ValueError(f'{text!r}: expected a time range like "23:00-07:00"')
    hour1, minute1, hour2, minute2 = (int(g) for g in match.groups())
    try:
        window = QuietHours(time(hour1, minute1), time(hour2, minute2))
    except ValueError:
        raise ValueError(f"{text!r}: hours run 00-23 and minutes 00-59") from None
    if window.start == window.end:
        raise ValueError(f"{text!r}: the quiet hours start and end at the same minute")
    return window


def held_channels(
    quiet: Mapping[str, QuietHours | None], *, now: datetime, zone: ZoneInfo
) -> dict[str, str]:
    """The channels in their quiet hours at ``now``, each with a line saying until when."""
    local = now.astimezone(zone)
    return {
        name: f"quiet hours {window} ({zone.key}): held until {window.ends_after(local):%H:%M}"
        for name, window in quiet.items()
        if window is not None and window.holds(local)
    }
