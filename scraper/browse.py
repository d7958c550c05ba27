"""The eBay Browse API collector: OAuth token, ``item_summary/search`` paging, a daily call budget.

Settings (``[ebay_api]``): ``base_url`` (production, sandbox or a local stand-in) and
``daily_budget`` (calls per day, reset at midnight US Pacific). The token and the budget live
in the database ``state`` table, so every process sharing the database shares them.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import ROUND_DOWN, Decimal
from typing import TYPE_CHECKING, Any, Protocol
from zoneinfo import ZoneInfo

import httpx

from core.deadline import DeadlineExceeded, fetch_within
from core.errors import BudgetError, FetchError, ParseError, RateLimitedError
from core.marketplaces import marketplace
from core.retry import RetryPolicy, Transient, call_with_retries, parse_retry_after, policy_for
from scraper.browse_parse import parse_item_summaries

if TYPE_CHECKING:
    from collections.abc import Callable

    from core.models import Listing, SavedSearch
    from core.settings import ApiSettings

log = logging.getLogger(__name__)

OAUTH_PATH = "/identity/v1/oauth2/token"
SEARCH_PATH = "/buy/browse/v1/item_summary/search"
SCOPE = "https://api.ebay.com/oauth/api_scope"
PAGE_LIMIT = 200
RESULT_CAP = 10_000  # eBay pages through at most this many results of one search
TOKEN_MARGIN = timedelta(minutes=5)  # tokens are reused from the database: minting is capped
PACIFIC = ZoneInfo("America/Los_Angeles")
CALL_DEADLINE = 60.0  # seconds for one whole call (token or search), connect to last byte
MAX_BANDS = 64
OPEN_CEILING = Decimal(100_000)  # where an open-ended price range is first cut
CENT = Decimal("0.01")
CONDITION_IDS = {
    "new": "1000|1500",
    "used": "2000|2010|2020|2030|2500|2750|3000|4000|5000|6000",
    "for_parts": "7000",
}
# Browse returns only listings with a Buy It Now price unless auctions are asked for:
# https://developer.ebay.com/api-docs/buy/browse/resources/item_summary/methods/search
BUYING_OPTIONS = {"all": "AUCTION|FIXED_PRICE", "auction": "AUCTION", "buy_it_now": "FIXED_PRICE"}


class StateStore(Protocol):
    """Where the token and the call budget persist (``db.state.SessionStateStore``)."""

    def load(self, key: str, *, lock: bool = False) -> dict[str, object] | None: ...

    def save(self, key: str, value: dict[str, object], now: datetime) -> None: ...

    def release(self) -> None: ...


@dataclass(frozen=True, slots=True)
class PriceBand:
    """A price range searched on its own; None is an open end."""

    low: Decimal | None = None
    high: Decimal | None = None


@dataclass(frozen=True, slots=True)
class BrowseResult:
    """What one saved search returned: ``total`` is eBay's count for the whole search,
    ``calls`` the API calls spent (token included), ``truncated`` whether some price band
    still held more than eBay pages through."""

    listings: tuple[Listing, ...]
    calls: int
    total: int
    bands: tuple[PriceBand, ...]
    truncated: bool = False


class BrowseClient:
    """Searches the Browse API for saved searches; one instance per run is enough."""

    def __init__(
        self,
        client: httpx.Client,
        api: ApiSettings,
        state: StateStore,
        *,
        now: Callable[[], datetime],
        sleep: Callable[[float], None] = time.sleep,
        policies: tuple[RetryPolicy, RetryPolicy] | None = None,
        call_deadline: float = CALL_DEADLINE,
    ) -> None:
        """``policies``: the (search, token) retry policies; by default ``core.retry``'s.

        ``call_deadline``: seconds for one whole call, token or search, connect to last byte.
        """
        self._client = client
        self._deadline = call_deadline
        self._policy, self._token_policy = policies or (policy_for("browse"), policy_for("token"))
        self._api = api
        self._state = state
        self._now = now
        self._sleep = sleep
        self._base = api.base_url.rstrip("/")
        app = hashlib.sha256(f"{self._base}|{api.client_id}".encode()).hexdigest()[:16]
        self._token_key = f"browse:token:{app}"
        self._budget_key = f"browse:budget:{app}"
        self.calls = 0

    def __repr__(self) -> str:
        return f"BrowseClient(base_url={self._base!r}, calls={self.calls})"

    def fetch_item_summaries(self, search: SavedSearch, *, max_pages: int) -> BrowseResult:
        """Every listing of ``search``, newest first, up to ``max_pages`` pages per price band."""
        start = self.calls
        pages, total, bands, truncated = self._fetch_bands(search, max_pages)
        listings: dict[str, Listing] = {}
        for page in pages:
            for listing in parse_item_summaries(page, marketplace=search.marketplace):
                listings.setdefault(listing.item_id, listing)
        return BrowseResult(
            listings=tuple(listings.values()),
            calls=self.calls - start,
            total=total,
            bands=tuple(bands),
            truncated=truncated,
        )

    def _fetch_bands(
        self, search: SavedSearch, max_pages: int
    ) -> tuple[list[dict[str, Any]], int, list[PriceBand], bool]:
        todo = [PriceBand(search.min_price, search.max_price)]
        pages: list[dict[str, Any]] = []
        done: list[PriceBand] = []
        total: int | None = None
        truncated = False
        while todo:
            band = todo.pop(0)
            first = self._fetch_page(search, band, offset=0)
            band_total = _int(first.get("total"))
            if total is None:
                total = band_total
                if total > RESULT_CAP:
                    log.warning(
                        "search %r: eBay reports %d results, more than the %d it pages through;"
                        " splitting it into price bands",
                        search.name,
                        total,
                        RESULT_CAP,
                    )
            halves = split_band(band) if band_total > RESULT_CAP else None
            if halves and len(done) + len(todo) + 2 <= MAX_BANDS:
                todo[0:0] = halves
                continue
            if band_total > RESULT_CAP:
                truncated = True
                log.warning(
                    "search %r: price band %s still holds %d results", search.name, band, band_total
                )
            done.append(band)
            pages.append(first)
            pages.extend(self._fetch_more(search, band, first, max_pages))
        return pages, total or 0, done, truncated

    def _fetch_more(
        self, search: SavedSearch, band: PriceBand, first: dict[str, Any], max_pages: int
    ) -> list[dict[str, Any]]:
        pages: list[dict[str, Any]] = []
        page = first
        while page.get("next") and len(pages) + 1 < max_pages:
            offset = (len(pages) + 1) * PAGE_LIMIT
            if offset + PAGE_LIMIT > RESULT_CAP:
                break
            page = self._fetch_page(search, band, offset=offset)
            pages.append(page)
        return pages

    def _fetch_page(self, search: SavedSearch, band: PriceBand, *, offset: int) -> dict[str, Any]:
        url = self._base + SEARCH_PATH
        params = search_params(search, band, offset=offset)
        response = self._authorized_get(url, params, search)
        try:
            payload = response.json()
        except ValueError as exc:
            raise ParseError(
                "Browse API answered with invalid JSON", url=url, search=search.name
            ) from exc
        if not isinstance(payload, dict):
            raise ParseError("Browse API answered with a non-object", url=url, search=search.name)
        return payload

    def _authorized_get(
        self, url: str, params: dict[str, str], search: SavedSearch
    ) -> httpx.Response:
        headers = {"X-EBAY-C-MARKETPLACE-ID": search.marketplace, "Accept": "application/json"}

        def send(token: str) -> Callable[[], httpx.Response]:
            auth = {"Authorization": f"Bearer {token}", **headers}
            return lambda: fetch_within(
                self._client, "GET", url, seconds=self._deadline, params=params, headers=auth
            )

        response = self._send(send(self._token(search, force=False)), url, search, self._policy)
        if response.status_code == 401:
            # a token can be revoked before its stated expiry: mint once, try once more
            token = self._token(search, force=True)
            response = self._send(send(token), url, search, self._policy)
        if response.status_code != 200:
            raise FetchError(
                _describe(response), url=url, search=search.name, status=response.status_code
            )
        return response

    def _token(self, search: SavedSearch, *, force: bool) -> str:
        now = self._now()
        if not force:
            cached = self._state.load(self._token_key)
            self._state.release()
            if cached and datetime.fromisoformat(str(cached["expires_at"])) > now:
                return str(cached["access_token"])
        return self._mint_token(search, now)

    def _mint_token(self, search: SavedSearch, now: datetime) -> str:
        url = self._base + OAUTH_PATH
        auth = httpx.BasicAuth(self._api.client_id or "", self._api.client_secret or "")
        data = {"grant_type": "client_credentials", "scope": SCOPE}
        response = self._send(
            lambda: fetch_within(
                self._client, "POST", url, seconds=self._deadline, data=data, auth=auth
            ),
            url,
            search,
            self._token_policy,
        )
        if response.status_code != 200:
            message = "eBay refused the OAuth token request (check the client id and secret): "
            raise FetchError(
                message + _describe(response),
                url=url,
                search=search.name,
                status=response.status_code,
            )
        try:
            body = response.json()
            token, lifetime = str(body["access_token"]), int(body["expires_in"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ParseError(
                "unreadable OAuth token response", url=url, search=search.name
            ) from exc
        expires = now + timedelta(seconds=lifetime) - TOKEN_MARGIN
        self._state.save(
            self._token_key, {"access_token": token, "expires_at": expires.isoformat()}, now
        )
        return token

    def _send(
        self,
        request: Callable[[], httpx.Response],
        url: str,
        search: SavedSearch,
        policy: RetryPolicy,
    ) -> httpx.Response:
        """One call under ``policy``: 429, 5xx and network errors are retried, each try budgeted.

        When the tries run out, the last answer is returned for the caller to describe.
        """
        last: list[httpx.Response] = []

        def attempt() -> httpx.Response:
            self._spend(search)
            try:
                response = request()
            except DeadlineExceeded as exc:
                raise Transient(str(exc)) from exc
            except httpx.TransportError as exc:
                raise Transient(f"network error: {type(exc).__name__}") from exc
            if _retryable(response):
                last[:] = [response]
                log.info("%s: HTTP %d, retrying", url, response.status_code)
                raise Transient(
                    f"HTTP {response.status_code}",
                    status=response.status_code,
                    retry_after=parse_retry_after(response.headers, now=self._now()),
                )
            return response

        try:
            return call_with_retries(attempt, policy, sleep=self._sleep)
        except Transient as exc:
            defer = exc.defer_for(policy)
            if defer is not None:
                until = self._now() + timedelta(seconds=defer)
                raise RateLimitedError(
                    f"{exc.reason}: eBay asks us to wait {defer:g}s (Retry-After); deferred until "
                    f"{until:%Y-%m-%d %H:%M:%S} UTC",
                    until=until,
                    url=url,
                    search=search.name,
                    status=exc.status,
                ) from exc
            if exc.status is None or not last:
                raise FetchError(exc.reason, url=url, search=search.name) from exc
            return last[0]

    def _spend(self, search: SavedSearch) -> None:
        """Count one call against today's budget, or refuse before it is made."""
        now = self._now()
        day = now.astimezone(PACIFIC).date().isoformat()
        record = self._state.load(self._budget_key, lock=True) or {}
        used = _int(record.get("used")) if record.get("day") == day else 0
        if used >= self._api.daily_budget:
            self._state.release()
            raise BudgetError(
                f"the daily Browse API budget of {self._api.daily_budget} calls is spent;"
                " it resets at midnight US Pacific",
                search=search.name,
            )
        self._state.save(self._budget_key, {"day": day, "used": used + 1}, now)
        self.calls += 1


def search_params(search: SavedSearch, band: PriceBand, *, offset: int) -> dict[str, str]:
    """The query string of one ``item_summary/search`` page."""
    params = {
        "q": search.query,
        "sort": "newlyListed",
        "limit": str(PAGE_LIMIT),
        "offset": str(offset),
    }
    if search.category_id:
        params["category_ids"] = search.category_id
    filters = search_filters(search, band)
    if filters:
        params["filter"] = ",".join(filters)
    return params


def search_filters(search: SavedSearch, band: PriceBand) -> list[str]:
    filters: list[str] = []
    if band.low is not None or band.high is not None:
        low = "" if band.low is None else format(band.low, "f")
        high = "" if band.high is None else ".." + format(band.high, "f")
        currency = marketplace(search.marketplace).currency
        filters += [f"price:[{low}{high}]", f"priceCurrency:{currency}"]
    if search.condition in CONDITION_IDS:
        filters.append(f"conditionIds:{{{CONDITION_IDS[search.condition]}}}")
    filters.append(f"buyingOptions:{{{BUYING_OPTIONS.get(search.buying, BUYING_OPTIONS['all'])}}}")
    if search.location == "domestic":
        filters.append(f"itemLocationCountry:{search.marketplace.removeprefix('EBAY_')}")
    return filters


def split_band(band: PriceBand) -> tuple[PriceBand, PriceBand] | None:
    """Two halves of ``band`` that do not overlap, or None when it is one cent wide."""
    low = band.low if band.low is not None else Decimal(0)
    if band.high is None:
        if low >= OPEN_CEILING:
            return None
        return PriceBand(low, OPEN_CEILING), PriceBand(OPEN_CEILING + CENT, None)
    if band.high - low < 2 * CENT:
        return None
    middle = ((low + band.high) / 2).quantize(CENT, rounding=ROUND_DOWN)
    return PriceBand(low, middle), PriceBand(middle + CENT, band.high)


def _describe(response: httpx.Response) -> str:
    """``HTTP 400: <eBay's first error message>``; never echoes the request."""
    detail = ""
    try:
        errors = response.json().get("errors") or []
        detail = str(errors[0].get("message") or "") if errors else ""
    except (ValueError, AttributeError, IndexError):
        detail = ""
    text = f"HTTP {response.status_code} {response.reason_phrase}"
    return f"{text}: {detail[:200]}" if detail else text


def _retryable(response: httpx.Response) -> bool:
    return response.status_code == 429 or response.status_code >= 500


def _int(value: object) -> int:
    try:
        return int(str(value))
    except ValueError:
        return 0
