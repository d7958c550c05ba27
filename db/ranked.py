"""Which stored listings the ranker reads: one rule for the full ranking and the kept rows.

A listing is ranked while it is active and names a SKU, and while no other active listing
of the same item number was seen more recently: eBay shows an item on every marketplace that
ships to it, so a search on ebay.com and one on ebay.de can store the same item twice (each
row keeps its own price history, in its own currency). The ranking, the plans, the report and
the alerts see it once, as last seen (issue #32, "one listing, one row").
"""

from __future__ import annotations

from sqlalchemy import and_, exists, or_
from sqlalchemy.orm import aliased

from db.models import ListingRow

_OTHER = aliased(ListingRow, name="same_item")

# Another active row of the same item, seen later (or at the same moment, with a higher id)
SHADOWED = exists().where(
    _OTHER.item_id == ListingRow.item_id,
    _OTHER.id != ListingRow.id,
    _OTHER.status == "active",
    or_(
        _OTHER.last_seen > ListingRow.last_seen,
        and_(_OTHER.last_seen == ListingRow.last_seen, _OTHER.id > ListingRow.id),
    ),
)

# A listing the ranker reads: active, matched to a SKU, the item's newest row
RANKED = (ListingRow.status == "active") & ListingRow.sku.is_not(None) & ~SHADOWED
