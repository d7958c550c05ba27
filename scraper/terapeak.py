"""Read sold listings from a CSV of eBay Terapeak "Product Research" results (pure, no I/O).

The columns are those of Terapeak's Sold table in Seller Hub (Listing, Avg sold price, Avg
shipping, Total sold, Bids, Date last sold), plus an item id or URL; a few spellings of each
are accepted (``COLUMNS``). A file missing a required column, or a row missing a required
value, raises ``ParseError`` naming it: nothing is dropped quietly.
"""

from __future__ import annotations

import csv
import io
import re
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from urllib.parse import urlsplit

from core.errors import ParseError
from core.marketplaces import ITEM_IN_URL, item_url
from core.marketplaces import marketplace as _market
from core.models import BuyingFormat, Listing
from scraper.money import clean_text, parse_price, parse_shipping

COLUMNS: dict[str, tuple[str, ...]] = {
    "title": ("listing", "title", "listing title", "item title"),
    "item_id": ("item id", "item number", "listing id", "item no"),
    "url": ("url", "listing url", "item url", "link"),
    "price": ("avg sold price", "average sold price", "sold price", "price"),
    "shipping": ("avg shipping", "average shipping", "shipping"),
    "sold_date": ("date last sold", "last sold", "sold date", "date sold"),
    "bids": ("bids",),
    "format": ("format", "listing type", "buying format"),
    "condition": ("condition",),
}
REQUIRED = ("title", "price", "sold_date")
DOLLARS = ("USD", "CAD", "AUD")  # what a bare "$" means: the marketplace's dollar, else USD
DATE_FORMATS = ("%b %d, %Y", "%Y-%m-%d", "%m/%d/%Y", "%d %b %Y")
NO_VALUE = {"", "-", "--", "—", "n/a"}
PLAIN_NUMBER = re.compile(r"\d[\d,]*(?:\.\d{1,2})?")


def parse_terapeak_csv(text: str, *, marketplace: str = "EBAY_US") -> list[Listing]:
    """Every sold listing in a Terapeak-style CSV export, in file order."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    columns = _map_columns(list(reader.fieldnames or []))
    listings = []
    for line, row in enumerate(reader, start=2):
        if not any(isinstance(value, str) and value.strip() for value in row.values()):
            continue
        fields = {name: (row.get(header) or "").strip() for name, header in columns.items()}
        try:
            listings.append(_listing(fields, marketplace))
        except ParseError as exc:
            raise ParseError(f"Terapeak CSV line {line}: {exc}") from exc
    return listings


def expected_columns() -> str:
    """The accepted column names, for error messages and the README."""
    return "; ".join(f"{name}: {' | '.join(names)}" for name, names in COLUMNS.items())


def _map_columns(headers: list[str]) -> dict[str, str]:
    by_name = {" ".join(h.strip().lower().split()): h for h in headers if h}
    found = {
        field: next(by_name[a] for a in aliases if a in by_name)
        for field, aliases in COLUMNS.items()
        if any(a in by_name for a in aliases)
    }
    missing = [f for f in REQUIRED if f not in found]
    if "item_id" not in found and "url" not in found:
        missing.append("item_id or url")
    if missing:
        raise ParseError(
            f"not a Terapeak sold-listings CSV: missing {', '.join(missing)}"
            f" (found {', '.join(headers) or 'no header'}; expected columns: {expected_columns()})"
        )
    return found


def _listing(fields: dict[str, str], marketplace: str) -> Listing:
    for name in REQUIRED:
        if fields.get(name, "").lower() in NO_VALUE:
            raise ParseError(f"no {name.replace('_', ' ')}")
    item_id = _item_id(fields)
    price, currency = _price(fields["price"], marketplace)
    shipping, note = _shipping(fields.get("shipping", ""), currency, marketplace)
    bids = _count(fields.get("bids", ""))
    return Listing(
        item_id=item_id,
        title=clean_text(fields["title"]),
        url=_url(fields.get("url", ""), item_id, marketplace),
        price=price,
        currency=currency,
        buying_format=_format(fields.get("format", ""), bids),
        marketplace=marketplace,
        shipping=shipping,
        shipping_note=note,
        bids=bids,
        sold_date=_date(fields["sold_date"]),
        condition=fields.get("condition") or None,
    )


def _item_id(fields: dict[str, str]) -> str:
    item_id = fields.get("item_id", "")
    if item_id.isdigit():
        return item_id
    found = ITEM_IN_URL.search(fields.get("url", ""))
    if found:
        return found.group(1)
    raise ParseError(f"no item id (item id {item_id!r}, url {fields.get('url', '')!r})")


def _dollar(code: str) -> str:
    currency = _market(code).currency
    return currency if currency in DOLLARS else "USD"


def _price(text: str, marketplace: str) -> tuple[Decimal, str]:
    dollar = _dollar(marketplace)
    if PLAIN_NUMBER.fullmatch(text):
        return _number(text), _market(marketplace).currency
    price = parse_price(text, dollar=dollar)
    return price.low, price.currency


def _shipping(text: str, currency: str, marketplace: str) -> tuple[Decimal | None, str | None]:
    if text.lower() in NO_VALUE:
        return None, "not specified"
    if PLAIN_NUMBER.fullmatch(text):
        return _number(text), None
    shipping = parse_shipping(text, currency, dollar=_dollar(marketplace))
    return shipping.amount, shipping.note


def _format(text: str, bids: int | None) -> BuyingFormat:
    lowered = text.lower()
    if "auction" in lowered:
        return BuyingFormat.AUCTION
    if "offer" in lowered:
        return BuyingFormat.BEST_OFFER
    if not lowered and bids:
        return BuyingFormat.AUCTION  # no format column: only auctions take bids
    return BuyingFormat.BUY_IT_NOW


def _date(text: str) -> date:
    for fmt in DATE_FORMATS:
        try:
            return datetime.strptime(text, fmt).date()
        except ValueError:
            continue
    raise ParseError(f"unreadable sold date {text!r}")


def _count(text: str) -> int | None:
    digits = text.replace(",", "")
    return int(digits) if digits.isdigit() else None


def _number(text: str) -> Decimal:
    try:
        return Decimal(text.replace(",", "")).quantize(Decimal("0.01"))
    except InvalidOperation as exc:
        raise ParseError(f"not a number: {text!r}") from exc


def _url(url: str, item_id: str, marketplace: str) -> str:
    """The canonical ``/itm/<id>`` link, on the export's own host when it gives one."""
    given = urlsplit(url)
    if given.scheme in {"http", "https"} and given.netloc:
        return f"{given.scheme}://{given.netloc}/itm/{item_id}"
    return item_url(marketplace, item_id)
