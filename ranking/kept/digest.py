"""What a listing's price depended on, as digests: a priced row stays valid while they match.

- ``pricing_basis``: what every listing's price reads (the ranking rules and data files shipped
  with rigscout, the settings with their FX rates, the catalog, what the user ignores). Any
  change prices every listing again.
- ``MarketDigests``: the markets one listing reads. A card or board reads its SKU's market and
  its smaller siblings' (``smaller_siblings``: one of theirs explains a price far under its
  own); one whose SKU has no market of sales yet reads its family's (the nearest sibling's
  market stands in for a missing one: ``nearest_sibling_market``). A server that comes
  without GPUs reads its family's markets (its own is its chassis market), the priced parts'
  markets, the sales of its own configurations and its pool's sale counts
  (``ServerReferences``); a listing that comes with GPUs reads the GPUs' markets too: every
  market. An auction also reads the fitted auction model.

Digests are SHA-256 of a canonical text (sorted, so that neither the order rows came from the
store nor Python's string hashing changes them between processes).
"""

from __future__ import annotations

import hashlib
from importlib import resources
from typing import TYPE_CHECKING

from core.models import Category
from ranking.market import smaller_siblings

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path

    from core.settings import RankSettings
    from ranking.catalog import Sku
    from ranking.ignores import Ignores
    from ranking.market import Market, ServerReferences

# The packages whose code and data files decide a listing's price.
RULE_PACKAGES = ("ranking", "core")


def pricing_basis(
    settings: RankSettings,
    skus: Mapping[str, Sku],
    ignores: Ignores | None,
    *,
    code: Iterable[Path] = (),
) -> str:
    """The digest of what every listing's price reads besides the listing and the markets.
    ``code``: further source files that shape a kept price (the caller's own)."""
    ignored = (
        (sorted(ignores.items), sorted(ignores.sellers), sorted(ignores.words)) if ignores else ()
    )
    callers = [hashlib.sha256(path.read_bytes()).hexdigest() for path in code]
    return _digest(
        rules_digest(), *callers, repr(settings), repr(sorted(skus.items())), repr(ignored)
    )


def rules_digest() -> str:
    """The digest of the ranking rules as installed: every source and data file of
    ``RULE_PACKAGES`` (an upgrade, or a changed ``flags.toml``, prices everything again)."""
    found: list[str] = []
    for package in RULE_PACKAGES:
        found += _files(resources.files(package), package)
    return _digest(*found)


class MarketDigests:
    """The digest of the markets a listing of each SKU reads (see the module's docstring)."""

    def __init__(
        self,
        markets: Mapping[str, Market],
        servers: ServerReferences,
        skus: Mapping[str, Sku],
        model: object,
    ) -> None:
        self._markets = markets
        self._servers = servers
        self._skus = skus
        self._model = _digest(repr(model))
        self._every = _digest(
            repr(sorted(markets.items())),
            repr(sorted(servers.valuer.parts.items())),
            repr(sorted(servers.valuer.part_sales.items())),
            repr(sorted((repr(k), sorted(map(repr, v))) for k, v in servers.twins.items())),
            repr(sorted(servers.sold.items())),
        )
        self._families: dict[str, str] = {}
        self._cards: dict[str, str] = {}
        self._server_digests: dict[str, str] = {}

    def of(self, sku: str, *, auction: bool, includes: bool) -> str:
        """The digest a listing of ``sku`` is priced against."""
        card = self._skus.get(sku)
        if card is None or includes:
            found = self._every
        elif card.category is Category.SERVER:
            found = self._server(card)
        else:
            found = self._card(card)
        return _digest(found, self._model) if auction else found

    def accepts(self, sku: str, *, auction: bool) -> frozenset[str]:
        """The digests a current row of ``sku`` may carry (with or without included GPUs)."""
        return frozenset(
            self.of(sku, auction=auction, includes=includes) for includes in (False, True)
        )

    def _server(self, card: Sku) -> str:
        """What a server's reference reads besides its family's markets (``composite``,
        ``ServerReferences.too_few``): the parts' markets, the sales of its configurations,
        the sale counts of its pool."""
        if card.sku not in self._server_digests:
            servers = self._servers
            twins = sorted(
                (repr(k), sorted(map(repr, v)))
                for k, v in servers.twins.items()
                if k[0] == card.sku
            )
            pool = servers.valuer.table.pool_of(card.sku)
            self._server_digests[card.sku] = _digest(
                self._family(card),
                repr(sorted(servers.valuer.parts.items())),
                repr(sorted(servers.valuer.part_sales.items())),
                repr(twins),
                repr([(code, servers.sold.get(code, 0)) for code in pool]),
            )
        return self._server_digests[card.sku]

    def _card(self, card: Sku) -> str:
        """What a card's or board's price reads of the markets (``Pricer``): its own market and
        its smaller siblings' where it has a market of sales, else its family's (with no market,
        or an asking one that the listing's own price, taken out, may leave too thin, the
        nearest sibling's stands in). A sale of its 32 GB sibling does not price a 16 GB card
        again while the 16 GB card has sales of its own."""
        if card.sku not in self._cards:
            own = self._markets.get(card.sku)
            if own is None or own.source == "asking":
                self._cards[card.sku] = self._family(card)
            else:
                read = [card.sku, *(s.sku for s in smaller_siblings(card, self._skus))]
                self._cards[card.sku] = _digest(repr([(c, self._markets.get(c)) for c in read]))
        return self._cards[card.sku]

    def _family(self, card: Sku) -> str:
        key = card.family or card.sku
        if key not in self._families:
            members = sorted(
                code
                for code, s in self._skus.items()
                if code == card.sku or (card.family and s.family == card.family)
            )
            self._families[key] = _digest(repr([(c, self._markets.get(c)) for c in members]))
        return self._families[key]


def _files(root: object, prefix: str) -> Iterable[str]:
    """``prefix/path:sha256`` of every .py and .toml file under ``root``, sorted."""
    entries = sorted(root.iterdir(), key=lambda e: e.name)  # type: ignore[attr-defined]
    for entry in entries:
        name = f"{prefix}/{entry.name}"
        if entry.is_dir() and not entry.name.startswith(("__pycache__", ".")):
            yield from _files(entry, name)
        elif entry.name.endswith((".py", ".toml", ".csv")):
            yield f"{name}:{hashlib.sha256(entry.read_bytes()).hexdigest()}"


def _digest(*parts: str) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(part.encode())
        hasher.update(b"\0")
    return hasher.hexdigest()
