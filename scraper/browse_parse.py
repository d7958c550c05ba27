"""Turn eBay Browse API ``itemSummary`` JSON into ``Listing`` records (pure, no I/O).

Accepts a whole ``item_summary/search`` response envelope or a bare list of itemSummary
objects. A summary without an id, title or readable price raises ``ParseError`` naming it.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import urlsplit

from core.errors import ParseError
from core.marketplaces import item_url
from core.models import BuyingFormat, Listing

Summary = dict[str, Any]
CENT = Decimal("0.01")


def parse_item_summaries(payload: dict[str, Any] | list[Any], *, marketplace: str) -> list[Listing]:
    """Every listing in ``payload``, in eBay's order."""
    return [parse_item_summary(item, marketplace=marketplace) for item in _summaries(payload)]


def parse_item_summary(item: Summary, *, marketplace: str) -> Listing:
    """One itemSummary object as a ``Listing``."""
    if not isinstance(item, dict):
        raise ParseError(f"itemSummary is a {type(item).__name__}, not an object")
    item_id = _item_id(item)
    title = " ".join(str(item.get("title") or "").split())
    if not title:
        raise ParseError(f"item {item_id}: no title")
    buying, price, currency = _format_and_price(item, item_id)
    shipping, note = _shipping(item, item_id)
    seller = item.get("seller") or {}
    return Listing(
        item_id=item_id,
        title=title,
        url=_url(item, item_id, marketplace),
        price=price,
        currency=currency,
        buying_format=buying,
        marketplace=marketplace,
        shipping=shipping,
        shipping_note=note,
        best_offer="BEST_OFFER" in _options(item),
        bids=_int(item.get("bidCount")) if buying is BuyingFormat.AUCTION else None,
        end_time=_datetime(item.get("itemEndDate"), item_id),
        condition=item.get("condition"),
        seller=seller.get("username"),
        seller_feedback=_int(seller.get("feedbackScore")),
        seller_positive_pct=_decimal_or_none(seller.get("feedbackPercentage")),
        location=(item.get("itemLocation") or {}).get("country"),
        image_url=(item.get("image") or {}).get("imageUrl"),
        category_id=_category(item),
    )


def _summaries(payload: dict[str, Any] | list[Any]) -> list[Any]:
    if isinstance(payload, list):
        return payload
    if not isinstance(payload, dict):
        raise ParseError(f"Browse payload is a {type(payload).__name__}, not an object or list")
    items = payload.get("itemSummaries")
    if isinstance(items, list):
        return items
    total, offset = _int(payload.get("total")) or 0, _int(payload.get("offset")) or 0
    # eBay leaves the key out of an empty page; it is only an error when results were promised
    if items is None and offset >= total:
        return []
    raise ParseError(f"Browse response says {total} results but holds no itemSummaries")


def _item_id(item: Summary) -> str:
    legacy = item.get("legacyItemId")
    if legacy and str(legacy).isdigit():
        return str(legacy)
    parts = str(item.get("itemId") or "").split("|")
    if len(parts) == 3 and parts[0] == "v1" and parts[1].isdigit():
        return parts[1]
    raise ParseError(f"itemSummary without a usable id: itemId={item.get('itemId')!r}")


def _options(item: Summary) -> list[str]:
    options = item.get("buyingOptions") or []
    return [str(o) for o in options] if isinstance(options, list) else []


def _format_and_price(item: Summary, item_id: str) -> tuple[BuyingFormat, Decimal, str]:
    options = _options(item)
    if "AUCTION" in options:
        # an auction's Buy It Now price disappears at the first bid; the bid is what it costs now
        amount = item.get("currentBidPrice") or item.get("price")
        return BuyingFormat.AUCTION, *_money(amount, item_id)
    if "BEST_OFFER" in options:
        return BuyingFormat.BEST_OFFER, *_money(item.get("price"), item_id)
    if "FIXED_PRICE" in options:
        return BuyingFormat.BUY_IT_NOW, *_money(item.get("price"), item_id)
    raise ParseError(f"item {item_id}: no buying option we know in {options!r}")


def _money(amount: object, item_id: str) -> tuple[Decimal, str]:
    if not isinstance(amount, dict) or not amount.get("currency"):
        raise ParseError(f"item {item_id}: no price")
    value = _decimal_or_none(amount.get("value"))
    if value is None or value < 0:
        raise ParseError(f"item {item_id}: unreadable price {amount.get('value')!r}")
    return _whole_cents(value, item_id), str(amount["currency"])


def _shipping(item: Summary, item_id: str) -> tuple[Decimal | None, str | None]:
    """The cheapest fixed shipping cost; None with a note when eBay does not state one."""
    options = [o for o in item.get("shippingOptions") or [] if isinstance(o, dict)]
    costs = [
        _decimal_or_none((o.get("shippingCost") or {}).get("value"))
        for o in options
        if o.get("shippingCostType") == "FIXED"
    ]
    known = [c for c in costs if c is not None]
    if known:
        return _whole_cents(min(known), item_id), None
    if any(o.get("shippingCostType") == "CALCULATED" for o in options):
        return None, "calculated"
    if not options and item.get("pickupOptions"):
        return None, "local pickup only"
    return None, "not specified"


def _whole_cents(amount: Decimal, item_id: str) -> Decimal:
    """Money is stored in whole cents and never rounded silently (db/types.py)."""
    if amount != amount.quantize(CENT):
        raise ParseError(f"item {item_id}: amount {amount} has digits under a cent")
    return amount


def _url(item: Summary, item_id: str, marketplace: str) -> str:
    web = urlsplit(str(item.get("itemWebUrl") or ""))
    if web.scheme and web.netloc:
        return f"{web.scheme}://{web.netloc}/itm/{item_id}"
    return item_url(marketplace, item_id)


def _category(item: Summary) -> str | None:
    leaf = item.get("leafCategoryIds") or []
    if leaf:
        return str(leaf[0])
    categories = item.get("categories") or []
    return str(categories[0].get("categoryId")) if categories else None


def _datetime(value: object, item_id: str) -> datetime | None:
    if value is None:
        return None
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError as exc:
        raise ParseError(f"item {item_id}: unreadable date {value!r}") from exc


def _decimal_or_none(value: object) -> Decimal | None:
    if value is None:
        return None
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def _int(value: object) -> int | None:
    if isinstance(value, bool) or value is None:
        return None
    try:
        return int(str(value))
    except ValueError:
        return None
