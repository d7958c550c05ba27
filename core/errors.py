"""The one exception hierarchy of rigscout.

    RigscoutError
    ├── ConfigError            bad or missing configuration (exit code 2)
    ├── StoreError             the database cannot be opened, migrated or written (exit code 2)
    │   └── LockedError        another run holds the run lock
    ├── CollectError           one saved search could not be collected (the run goes on)
    │   ├── FetchError         network failure or HTTP error after retries
    │   │   └── RateLimitedError  eBay asked us to wait longer than we wait in place
    │   ├── BlockedError       eBay answered with a captcha, sign-in wall or error page
    │   ├── ParseError         a page we could not read (unknown layout, zero listings on a
    │   │                      page that says it has results, truncated markup)
    │   └── BudgetError        the daily Browse API call budget is spent
    ├── NormalizeError         the catalog data files are inconsistent
    └── AlertError             a notification channel refused or failed (alerts stay pending)

Every error carries the context a user needs (``url``, ``search``, ``status``, ``channel``)
as attributes, and its ``str()`` names them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import datetime


class RigscoutError(Exception):
    """Base class of every error rigscout raises on purpose."""


class ConfigError(RigscoutError):
    """The configuration file or environment is missing, malformed or inconsistent."""


class StoreError(RigscoutError):
    """The database cannot be reached, migrated or written."""


class LockedError(StoreError):
    """Another rigscout run holds the run lock."""


class CollectError(RigscoutError):
    """One saved search could not be collected; other searches go on.

    ``requests`` is how many requests the failed collection had sent (set by the collector),
    so a run counts every request it made, failed ones included.
    """

    requests: int = 0

    def __init__(self, message: str, *, url: str | None = None, search: str | None = None) -> None:
        self.url = url
        self.search = search
        where = "".join(
            part
            for part in (
                f" [search {search!r}]" if search else "",
                f" [url {url}]" if url else "",
            )
        )
        super().__init__(message + where)


class FetchError(CollectError):
    """The network failed or eBay answered an HTTP error, after every retry."""

    def __init__(
        self,
        message: str,
        *,
        url: str | None = None,
        search: str | None = None,
        status: int | None = None,
    ) -> None:
        self.status = status
        super().__init__(message, url=url, search=search)


class UnreachableError(FetchError):
    """The site could not be reached at all (no DNS answer, connection refused) before any
    request of this run got through: the network or ``[collector] base_url`` is wrong, and
    every other search would fail the same way, after every retry. The run stops at once."""


class RateLimitedError(FetchError):
    """eBay's Retry-After asks for a longer wait than we wait in place: deferred until ``until``."""

    def __init__(
        self,
        message: str,
        *,
        until: datetime,
        url: str | None = None,
        search: str | None = None,
        status: int | None = None,
    ) -> None:
        self.until = until
        super().__init__(message, url=url, search=search, status=status)


class BlockedError(CollectError):
    """eBay served a captcha, a sign-in wall or an error page instead of results."""


class ParseError(CollectError):
    """A page could not be read: unknown layout, truncated, or no listings where it says some."""


class BudgetError(CollectError):
    """The daily eBay API call budget is spent; the search is skipped until it resets."""


class NormalizeError(RigscoutError):
    """The catalog data files are missing or inconsistent."""


class AlertError(RigscoutError):
    """A notification channel failed; its alerts stay pending for the next run."""

    def __init__(self, message: str, *, channel: str | None = None) -> None:
        self.channel = channel
        self.reason = message  # without the channel's name, for lines that print it already
        super().__init__(f"{channel}: {message}" if channel else message)
