"""Price active listings: pure rules over plain rows, no database, no profile.

``price_rows`` is the half of ranking every profile shares: each listing's landed unit price
(a running auction at its predicted end, an unknown shipping cost at an estimated freight), its
market (a card's own sales, a server's chassis with its parts priced), how far under it the
price is, and the risk flags (a price too far under the market says why to check first). The
profile's half is ``ranking.rank.rank_priced``; a listing is priced again alone by ``Pricer``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import timedelta
from decimal import Decimal
from functools import lru_cache
from typing import TYPE_CHECKING

from core.models import EXCLUDE, VERIFY, BuyingFormat, Category, Kind
from ranking.landed import landed_unit_price, landed_with_freight
from ranking.market import (
    ServerReferences,
    chassis_of,
    load_scam_rules,
    nearest_sibling_market,
    new_accounts,
    predict_final,
    prediction_until,
    scam_reason,
    server_valuer,
    smaller_siblings,
    sold_side,
    with_asking,
    without_own,
)
from ranking.profiles import load_profiles
from ranking.records import Priced, PricedRows
from ranking.titles import (
    check_title_under,
    describe_unread,
    flag_listing,
    load_signals,
    unread_words,
)
from ranking.value import score_sku_value

if TYPE_CHECKING:
    from collections.abc import Container, Iterable, Mapping, Sequence
    from datetime import datetime

    from core.models import Flag
    from core.settings import RankSettings
    from ranking.catalog import Sku
    from ranking.ignores import Ignores
    from ranking.landed import Landed
    from ranking.market import AuctionPrediction, Chassis, Market, Reference, SoldSide, Valuer
    from ranking.records import AuctionPredictor, RankFilters
    from ranking.rows import ActiveRow, SoldRow
    from ranking.titles import Signals

AUCTION = BuyingFormat.AUCTION.value  # enum member access is slow in the per-listing loops
ITEM, PARTS = Kind.ITEM.value, (Kind.ACCESSORY.value, Kind.FOR_PARTS.value)
PARTS_WORDING = frozenset({"read_description", "as_is", "untested", "no_display", "locked"})
ZERO = Decimal(0)
NO_END = timedelta(days=30)  # an auction whose end time is unknown is treated as far from it


def eligible_skus(
    skus: Mapping[str, Sku], settings: RankSettings, filters: Iterable[RankFilters]
) -> frozenset[str]:
    """The SKUs some of ``filters``' profiles rank (the others are below a profile's minimum)."""
    profiles = load_profiles()
    wanted: set[str] = set()
    for f in filters:
        profile = profiles.get(f.profile or settings.profile)
        wanted.update(c for c, s in skus.items() if score_sku_value(s, profile, profiles).eligible)
    return frozenset(wanted)


def price_rows(
    active: Sequence[ActiveRow],
    sales: Iterable[SoldRow],
    skus: Mapping[str, Sku],
    settings: RankSettings,
    *,
    now: datetime,
    predict: AuctionPredictor = predict_final,
    only: Container[str] | None = None,
    ignores: Ignores | None = None,
) -> PricedRows:
    """The profile-independent half of ranking: landed prices, auction ends, markets, flags.

    Rank one ``PricedRows`` under several profiles or filters with ``rank_priced``. ``only``:
    the SKUs worth pricing (``eligible_skus``); the others are counted below the profile's
    minimum without the work (their asking prices still make their market). ``ignores``: what
    the user asked never to see; those listings carry the ``ignored`` flag (kept out).
    """
    skipped: dict[str, int] = {}
    items: list[tuple[ActiveRow, Landed]] = []
    parts: list[tuple[Decimal, ActiveRow]] = []
    for row in active:
        landing = land_row(row, skus, settings, now)
        if landing.landed is not None:
            items.append((row, landing.landed))
        elif landing.part_price is not None:
            parts.append((landing.part_price, row))
        else:
            skipped[landing.outcome] = skipped.get(landing.outcome, 0) + 1
    sales = sales if isinstance(sales, list | tuple) else list(sales)
    markets, servers = price_markets(sales, asking_prices(items), skus, settings, now)
    accounts = new_accounts(
        (
            (row.seller, row.seller_feedback, row.quantity, landed.unit_price)
            for row, landed in items
        ),
        settings,
        load_scam_rules(),
    )
    pricer = Pricer(skus, markets, servers, settings, now, predict, accounts, ignores)
    priced = []
    unpriced: dict[str, int] = {}
    for row, landed in items:
        code = str(row.sku)
        if only is None or code in only:
            priced.append(pricer.price(row, landed))
        else:
            unpriced[code] = unpriced.get(code, 0) + 1
    return PricedRows(tuple(priced), tuple(parts), skipped, markets, unpriced)


@dataclass(frozen=True, slots=True)
class Landing:
    """A listing before its market: its landed unit price, a part's price, or why it is left
    out (``outcome``: "priced", "part" or the reason, as ``Ranking.skipped`` counts it)."""

    outcome: str
    landed: Landed | None = None
    part_price: Decimal | None = None


def land_row(
    row: ActiveRow, skus: Mapping[str, Sku], settings: RankSettings, now: datetime
) -> Landing:
    """The first step of pricing a listing: it reads only the listing, the catalog, the
    settings and the time (an auction past its end), not the markets."""
    reason = _skip_reason(row, skus, now)
    if reason == "parts":
        part = landed_unit_price(row.price, row.shipping, row.quantity, row.currency, settings)
        return Landing("part", part_price=part.unit_price) if part else Landing("no_fx_rate")
    if reason is not None:
        return Landing(reason)
    landed = _landed(row, skus, settings)
    return Landing("priced", landed) if landed is not None else Landing("no_fx_rate")


@dataclass(frozen=True, slots=True)
class Pricer:
    """Prices one listing against the markets: what ``price_rows`` does for each, kept apart
    so that a listing can be priced again alone (``rigscout/jobs/priced.py``)."""

    skus: Mapping[str, Sku]
    markets: Mapping[str, Market]
    servers: ServerReferences
    settings: RankSettings
    now: datetime
    predict: AuctionPredictor
    accounts: Mapping[str, str]  # ``new_accounts``
    ignores: Ignores | None
    signals: Signals = field(default_factory=load_signals)

    def price(self, row: ActiveRow, landed: Landed) -> Priced:
        p = self._priced(row, landed)
        if self.accounts:
            p = _with_account_flag(p, self.accounts, self.signals)
        if self.ignores:
            p = _with_ignored_flag(p, self.ignores, self.signals)
        return p

    def _priced(self, row: ActiveRow, landed: Landed) -> Priced:
        sku = self.skus[str(row.sku)]
        basis = self._basis(row, sku, landed.unit_price)
        price, auction, current = self._auction_end(row, landed.unit_price, basis)
        discount = None
        if basis.baseline is not None and basis.baseline > 0:
            discount = round(float(1 - price / basis.baseline), 4)
        settings = self.settings
        flags = flag_listing(
            row,
            self.signals,
            family=sku.family,
            headless=sku.headless,
            cpu_heatsinks=sku.category is Category.SERVER and not sku.takes_sxm,
            min_seller_feedback=settings.min_seller_feedback,
            min_seller_positive_pct=settings.min_seller_positive_pct,
        )
        check, flags = self._checked(row, sku, price, discount, basis=basis, flags=flags)
        flags = self._unread(row, sku, discount, flags)
        if check is None:  # a title to verify: its discount is no claim until checked
            check = next((f.label for f in flags if f.severity == VERIFY), None)
        return Priced(
            row=row,
            sku=sku,
            landed=price,
            shipping_known=landed.shipping_known,
            freight_estimated=landed.freight_estimated,
            market=basis.market,
            baseline=basis.baseline,
            included_value=basis.included_value,
            reference=basis.composed,
            too_few_sales=basis.too_few,
            discount=discount,
            chassis=_value_price(price, basis.included_value),
            flags=flags,
            auction=auction,
            current_bid=current,
            check=check,
            excluded=excluded(flags),
            penalty=self.signals.penalty(flags),
        )

    def _unread(
        self, row: ActiveRow, sku: Sku, discount: float | None, flags: tuple[Flag, ...]
    ) -> tuple[Flag, ...]:
        """A listing far under its market whose title has words no data file names is not a
        confident deal: the "check the title" flag, naming them (issue #32)."""
        if discount is None or discount < check_title_under() or excluded(flags):
            return flags
        words = unread_words(row.title, sku)
        if not words:
            return flags
        return (*flags, self.signals.flag("check_title", describe_unread(words)))

    def _basis(self, row: ActiveRow, sku: Sku, own: Decimal) -> _Basis:
        """What the listing is judged against: its market, and the baseline price (a server's:
        its composite, chassis plus parts, or its class's sales; else the market plus the
        GPUs it comes with). An asking market is the other listings' asking prices: the
        listing's own price ``own`` never enters its own reference."""
        market = self.markets.get(sku.sku)
        if market is not None and market.source == "asking" and asks(row):
            market = without_own(market, own, self.settings)
        included_value, unvalued = _included_value(row, self.markets)
        baseline = composed = too_few = None
        if sku.category is Category.SERVER:
            composed = self.servers.reference(sku, row.config, row.includes, market, self.settings)
            if composed is not None:
                baseline, market = composed.total, composed.market
            else:
                too_few = self.servers.too_few(sku.sku, self.settings)
        elif market is not None and not unvalued:
            baseline = market.median + (included_value or ZERO)
        return _Basis(market, baseline, included_value, unvalued, composed, too_few)

    def _auction_end(
        self, row: ActiveRow, price: Decimal, basis: _Basis
    ) -> tuple[Decimal, AuctionPrediction | None, Decimal | None]:
        """The price ranked (a running auction's predicted end, never under its current bid),
        the prediction and the current bid."""
        if row.buying_format != AUCTION:
            return price, None, None
        time_left = (row.end_time - self.now) if row.end_time else None
        market, baseline = basis.market, basis.baseline
        auction = self.predict(
            current_bid=price,
            bids=row.bids,
            time_left=time_left if time_left is not None else NO_END,
            market=baseline,
            spread=market.known_spread if baseline is not None and market is not None else None,
        )
        return max(auction.mid, price), auction, price

    def _checked(
        self,
        row: ActiveRow,
        sku: Sku,
        price: Decimal,
        discount: float | None,
        *,
        basis: _Basis,
        flags: tuple[Flag, ...],
    ) -> tuple[str | None, tuple[Flag, ...]]:
        """Why to check before buying (a price far under its reference, or a scam pattern),
        and the flags with that one added."""
        under, reference = self._under_reference(sku, price, basis, discount)
        if under is None:
            return None, flags
        scam = scam_reason(
            row,
            sku,
            under=under,
            reference=reference,
            settings=self.settings,
            rules=load_scam_rules(),
            flags=flags,
        )
        if scam is not None:
            check = scam.removeprefix("check before buying: ")
            return check, (*flags, self.signals.flag("scam_pattern", scam))
        if under <= self.settings.check_discount:
            return None, flags
        if discount is not None:
            check = self._check_reason(sku, price, flags)
        else:
            check = f"{round(under * 100)} % under {reference}, and no market of its own yet"
        return check, (
            *flags,
            self.signals.flag("check_before_buying", f"check before buying: {check}"),
        )

    def _under_reference(
        self, sku: Sku, price: Decimal, basis: _Basis, discount: float | None
    ) -> tuple[float | None, str]:
        """How far under its reference the price is (0.73 = 73 %), and the reference in words:
        the card's own market, else, for a card with no market yet, its nearest sibling's."""
        market = basis.market
        if discount is not None and market is not None:
            return discount, f"the {sku.name} {_evidence_words(market)}"
        if market is not None or basis.unvalued:
            return None, ""
        sibling = nearest_sibling_market(sku, self.skus, self.markets)
        if sibling is None or sibling[1].median <= 0:
            return None, ""
        other, its = sibling
        return float(1 - price / its.median), f"{other.name} {_evidence_words(its)}"

    def _check_reason(self, sku: Sku, price: Decimal, flags: Sequence[Flag]) -> str:
        """The likeliest reason a price is far under the market, as a buyer would word it."""
        for sibling in smaller_siblings(sku, self.skus):
            market = self.markets.get(sibling.sku)
            if market is not None and market.median * Decimal("0.6") <= price <= market.median * 2:
                return f"the price fits the {sibling.name} (capacity mislabelled?)"
        wording = [f.label for f in flags if f.code in PARTS_WORDING]
        if wording:
            return f"parts wording in the title ({', '.join(wording)})"
        if any(f.code == "ships_from_abroad" for f in flags):
            return "a distant seller, price far under the market"
        return "far under the market: read the listing and the seller's feedback first"


@dataclass(frozen=True, slots=True)
class _Basis:
    market: Market | None
    baseline: Decimal | None
    included_value: Decimal | None
    unvalued: bool  # it comes with a GPU that has no market
    composed: Reference | None
    too_few: tuple[int, int] | None


def priced_until(row: ActiveRow, now: datetime) -> datetime | None:
    """Until when a listing's price made at ``now`` holds (an auction's moves with its time
    left, and it ends); None: until the listing or its market changes."""
    if row.buying_format != AUCTION or row.end_time is None:
        return None
    return prediction_until(row.end_time, now)


def asks(row: ActiveRow) -> bool:
    """Whether the listing's price is one of its SKU's asking prices: a fixed price, alone,
    from a listing nothing keeps out (a fault or scam wording in its title, a seller without
    feedback): a flagged listing never enters anyone's reference (issue #33)."""
    if row.buying_format == AUCTION or row.includes:
        return False
    if row.seller_feedback is not None and row.seller_feedback <= 0:
        return False
    if row.reading is not None:
        return not load_signals().keeps_out(row.reading)
    return not _title_keeps_out(row.title)


@lru_cache(maxsize=65_536)
def _title_keeps_out(title: str) -> bool:
    """``Signals.keeps_out`` of the title (read once per title: a ranking asks it of a listing
    when its SKU's asking prices are gathered and again when its own reference is taken out
    of them)."""
    signals = load_signals()
    return signals.keeps_out(signals.read(title))


def asking_prices(items: Iterable[tuple[ActiveRow, Landed]]) -> dict[str, list[Decimal]]:
    """Landed unit asking prices of fixed-price listings without included GPUs, per SKU."""
    asking: dict[str, list[Decimal]] = {}
    for row, landed in items:
        if asks(row):
            asking.setdefault(str(row.sku), []).append(landed.unit_price)
    return asking


def price_markets(
    sales: Sequence[SoldRow],
    asking: Mapping[str, Sequence[Decimal]],
    skus: Mapping[str, Sku],
    settings: RankSettings,
    now: datetime,
) -> tuple[dict[str, Market], ServerReferences]:
    """Each SKU's market: a card's or board's own; a server's chassis (its sales with their
    parts taken out, pooled where thin). A server with any sale never uses asking prices.
    (``rigscout/jobs/priced.py`` makes them of the same steps, some of them kept.)"""
    side = sold_side(sales, settings, now=now)
    valuer = server_valuer(side, with_asking(side.cards, asking, settings), skus)
    return markets_of(side, valuer, chassis_of(sales, valuer, settings, now=now))


def markets_of(
    side: SoldSide, valuer: Valuer, chassis: Chassis
) -> tuple[dict[str, Market], ServerReferences]:
    """The markets ``price_markets`` returns, from its steps: the sales' part, the valuer of
    today's card markets (``server_valuer``), the chassis markets (``chassis_of``)."""
    markets = dict(valuer.markets)
    servers = [
        c for c in markets if c in valuer.skus and valuer.skus[c].category is Category.SERVER
    ]
    for code in servers:
        if code in chassis.markets or markets[code].source != "asking" or code in side.sold:
            del markets[code]
    markets.update(chassis.markets)
    return markets, ServerReferences(valuer, side.twins, side.sold)


def _with_account_flag(p: Priced, accounts: Mapping[str, str], signals: Signals) -> Priced:
    """Every listing of a new account with many high-value listings says so."""
    label = accounts.get(p.row.seller or "")
    if label is None:
        return p
    flags = (*p.flags, signals.flag("new_account_pattern", label))
    return replace(p, flags=flags, excluded=excluded(flags), penalty=signals.penalty(flags))


def _with_ignored_flag(p: Priced, ignores: Ignores, signals: Signals) -> Priced:
    label = ignores.reason(p.row.item_id, p.row.seller, p.row.title)
    if label is None:
        return p
    flags = (*p.flags, signals.flag("ignored", label))
    return replace(p, flags=flags, excluded=True, penalty=signals.penalty(flags))


def _skip_reason(row: ActiveRow, skus: Mapping[str, Sku], now: datetime) -> str | None:
    if row.sku is None:
        return "unmatched"
    if row.kind in PARTS:
        return "parts" if row.sku in skus else "not_in_catalog"
    if row.kind != ITEM:
        return "not_hardware"
    if row.sku not in skus:
        return "not_in_catalog"
    if row.quantity <= 0 or row.price <= 0:
        return "no_price"
    if row.buying_format == AUCTION and row.end_time and row.end_time <= now:
        return "auction_ended"
    return None


def _landed(row: ActiveRow, skus: Mapping[str, Sku], settings: RankSettings) -> Landed | None:
    """The landed unit price, with the category's estimated freight for unknown shipping."""
    category = skus[str(row.sku)].category.value
    return landed_with_freight(
        row.price,
        row.shipping,
        row.quantity,
        row.currency,
        category=category,
        settings=settings,
        marketplace=row.marketplace,
        location=row.location,
    )


def _included_value(row: ActiveRow, markets: Mapping[str, Market]) -> tuple[Decimal | None, bool]:
    """Market value of the GPUs a server comes with; (None, True) when one has no market."""
    if not row.includes:
        return None, False
    total = ZERO
    for item in row.includes:
        market = markets.get(item.sku)
        if market is None:
            return None, True
        total += market.median * item.quantity
    return total, False


def _value_price(landed: Decimal, included_value: Decimal | None) -> Decimal:
    """A server's value is judged on what its chassis costs once included GPUs are priced."""
    if included_value is None:
        return landed
    return max(landed - included_value, ZERO)


def _evidence_words(market: Market) -> str:
    return "sales" if market.source == "sold" else "asking prices"


def excluded(flags: Sequence[Flag]) -> bool:
    """Whether a flag keeps the listing out of the deals."""
    return any(f.severity == EXCLUDE for f in flags)
