"""Map an eBay title to what it really is: a catalog SKU, its kind, how many, which GPUs ride along.

One tokenizer pass and one phrase scan extract the features (model family, memory size, form
factor, lot size, accessory and for-parts words); dict lookups then pick the SKU. Pure: no I/O
after the Normalizer is built. Phrases live in ranking/catalog/aliases.toml and vocabulary.toml.
An accessory comes back with ``sku`` None: it is not the SKU it fits, and is never ranked.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cache, lru_cache
from typing import TYPE_CHECKING, TypeGuard

from core.models import Category, Included, Kind, Normalized
from ranking.catalog import load_catalog
from ranking.titles.facts import NO, condition_broken
from ranking.titles.features import Features, extract_features
from ranking.titles.lots import count_near, find_lot_cues
from ranking.titles.parts import sells_a_part
from ranking.titles.server_config import load_parts, parse_part, parse_server_config
from ranking.titles.vocab import load_vocabulary

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ranking.catalog import Catalog, Sku
    from ranking.titles.facts import TitleFacts
    from ranking.titles.tokens import TokenMatch, Tokens
    from ranking.titles.vocab import Family, Vocabulary

# eBay category ids of whole computers: a listing there is never a loose card
_COMPUTER_CATEGORIES = frozenset({"175672", "179", "111418"})
_SUBJECTS = frozenset({"family", "not_carried"})
# match kinds that cannot change what a title naming one card is
_PLAIN = frozenset({"family", "unit", "form", "watt", "part"})
FOUND, AMBIGUOUS, NOT_CARRIED = "found", "ambiguous", "not carried"
Resolution = tuple[str | None, float, str]
_MEMO_LIMIT = 4096


class Normalizer:
    """Normalizes titles against one catalog; build once, call ``normalize`` per title."""

    def __init__(self, catalog: Catalog, vocabulary: Vocabulary | None = None) -> None:
        self.catalog = catalog
        self.vocabulary = vocabulary or load_vocabulary(catalog)
        self._words = self.vocabulary.words
        # _resolve is a pure function of a few features; titles repeat them endlessly
        self._resolved: dict[tuple[object, ...], Resolution] = {}
        self._last_facts: tuple[Tokens, TitleFacts] | None = None
        self._gpu_families = frozenset(
            name
            for name, family in self.vocabulary.families.items()
            if family.category is Category.GPU
        )
        # a title with one of these may say its card is missing: not the plain-card path
        facts = self.vocabulary.facts
        self._absence_words = frozenset(p[0] for p in (*facts.absent_before, *facts.absent_after))
        # families whose every card has no display output (the catalog's display_outputs)
        gpus = [s for s in catalog if s.category is Category.GPU and s.family]
        self._headless = frozenset(s.family for s in gpus if s.headless) - frozenset(
            s.family for s in gpus if not s.headless
        )
        # the memory sizes a title may give each family's cards: each GPU's and the board's
        # ("Tesla K80 24GB": two GPUs of 12 GB), and those of the cards it does not carry
        self._sizes: dict[str, frozenset[float]] = {
            name: family.vrams | {s.vram_gb * s.gpus_per_board for s in family.skus if s.vram_gb}
            for name, family in self.vocabulary.families.items()
        }

    def normalize(
        self,
        title: str,
        *,
        category_id: str | None = None,
        specifics: Mapping[str, str] | None = None,
        condition: str | None = None,
    ) -> Normalized:
        """What ``title`` sells. Never raises on odd text; unknown things come back as OTHER.

        A server or board also says what else it comes with (``config``); an accessory that
        is a priced part (``parts.toml``) says which, and how many (``part``, ``quantity``).
        ``condition`` is eBay's condition of the listing, in the marketplace's language ("For
        parts or not working", "Als Ersatzteil / defekt"): a broken one makes the item a part.
        """
        f = extract_features(title, self.vocabulary, specifics)
        if "family" in f.by_kind:
            f = self._without_bare_numbers(f)
        norm = self._classify(title, f, category_id, specifics)
        if norm.kind is Kind.ITEM and self._broken_condition(condition, specifics):
            norm = replace(norm, kind=Kind.FOR_PARTS)
        if norm.category in (Category.SERVER, Category.BOARD):
            host = self.catalog.get(norm.sku) if norm.sku else None
            sxm = bool(norm.includes) and (host is None or host.takes_sxm)
            config = parse_server_config(
                title, sxm_gpus_included=sxm, specifics=specifics, facts=self._facts(f)
            )
            return replace(norm, config=config)
        if norm.kind is Kind.ACCESSORY:
            part = parse_part(title, load_parts().parts.values(), self._facts(f))
            if part is not None:
                return replace(norm, part=part, quantity=self._quantity(f))
        return norm

    def _classify(
        self,
        title: str,
        f: Features,
        category_id: str | None,
        specifics: Mapping[str, str] | None,
    ) -> Normalized:
        by_kind = f.by_kind
        if self._one_plain_card(f, category_id, specifics):
            # the common case, one card and nothing else: skip the checks that cannot apply
            match = by_kind["family"][0]
            family = self.vocabulary.families[match.value]
            if self._sized_unlike(f, match):
                return Normalized(title, None, None, Kind.OTHER, confidence=0.7)
            part = self.catalog.get(f.part) if f.part else None
            sku, confidence, status = self._resolve(family, f, part)
            if status == NOT_CARRIED:
                return Normalized(title, None, None, Kind.OTHER, confidence=confidence)
            quantity = self._quantity(f) if sku else 1
            return Normalized(title, sku, Category.GPU, Kind.ITEM, quantity, (), confidence)
        if category_id in _COMPUTER_CATEGORIES or (
            ("other" in by_kind or "other.oem_lines" in by_kind) and self._other_phrase(f)
        ):
            return Normalized(title, None, None, Kind.OTHER, confidence=0.8)
        subject = self._subject(f)
        if "other.boxes" in by_kind and not (
            subject and subject.kind == "family" and subject.value in self._gpu_families
        ):
            return Normalized(title, None, None, Kind.OTHER, confidence=0.75)
        if self._sold_in_a_system(f, subject):
            return Normalized(title, None, None, Kind.OTHER, confidence=0.75)
        if self._sells_no_card(f, subject):
            return Normalized(title, None, None, Kind.ACCESSORY, confidence=0.85)
        if ("accessory.strong" in by_kind or "accessory.weak" in by_kind) and sells_a_part(
            f,
            subject.start if subject else _server_named(f),
            self._words,
            lambda: self._facts(f).absent_tokens,
            host=subject is not None
            and subject.kind == "family"
            and subject.value not in self._gpu_families,
        ):
            return Normalized(title, None, None, Kind.ACCESSORY, confidence=0.85)
        if subject is None:
            part = self.catalog.get(f.part) if f.part else None
            if part is None:
                return Normalized(title, None, None, Kind.OTHER, confidence=0.7)
            return self._gpu(title, f, [])
        if subject.kind == "not_carried" and subject.value in ("gpu", "server"):
            return Normalized(title, None, None, Kind.OTHER, confidence=0.75)
        if subject.kind == "family" and subject.value in self._gpu_families:
            families = f.of("family")
            hosts = [m for m in families if m.value not in self._gpu_families]
            in_host = hosts or "server_words" in by_kind or "not_carried" in by_kind
            # cards counted in a title that names a machine: the machine may be what is sold
            if (in_host or "other.server_makers" in by_kind) and (
                count_near(f.tokens, subject.start, subject.end) or 1
            ) > 1:
                if hosts:
                    return self._host(title, f)
                if in_host and self._is_server(f):
                    return self._unknown_server(title, f)
                if self._made_by_a_server_maker(f, subject):
                    return Normalized(title, None, None, Kind.OTHER, confidence=0.6)
            return self._gpu(title, f, self._gpu_mentions(f, families))
        return self._host(title, f)

    # --- what the title is about ---------------------------------------------------------

    def _facts(self, f: Features) -> TitleFacts:
        """What the title states (``title_facts``), read once per title: the accessory rule,
        the kind and a server's configuration all ask."""
        last = self._last_facts
        if last is not None and last[0] is f.tokens:
            return last[1]
        facts = self.vocabulary.facts.read_tokens(f.tokens)
        self._last_facts = (f.tokens, facts)
        return facts

    def _without_bare_numbers(self, f: Features) -> Features:
        """``f`` less the card models it names by a number alone ("3070") when nothing else in
        the title says a card is meant: no maker, card word or product line (aliases.toml
        [number_context]), no host it sits in, no part number, no memory size of that card
        right after it. "Dell OptiPlex 3070 Micro" is an office PC, not an RTX 3070."""
        words = f.tokens.words
        families = f.by_kind["family"]
        if (
            f.part
            or "server_words" in f.by_kind
            or not self.vocabulary.number_context.isdisjoint(words)
            or any(m.value not in self._gpu_families for m in families)
        ):
            return f
        bare = [
            m
            for m in families
            if all(w.isdigit() for w in words[m.start : m.end]) and not self._sized_after(f, m)
        ]
        if not bare:
            return f
        by_kind = dict(f.by_kind)
        kept = [m for m in families if m not in bare]
        if kept:
            by_kind["family"] = kept
        else:
            del by_kind["family"]
        matches = tuple(m for m in f.matches if m not in bare)
        return f._replace(matches=matches, by_kind=by_kind)

    def _sized_unlike(self, f: Features, m: TokenMatch) -> bool:
        """A memory size right after the model that no card of the family has ("RTX 3060 6GB",
        "RTX 4090 16GB": laptop chips; "Tesla P40 12GB"): another card than the ones carried,
        which the buyer could not be sold at the carried card's price."""
        size = _size_after(f, m)
        return size is not None and size not in self._sizes[m.value]

    def _sized_after(self, f: Features, m: TokenMatch) -> bool:
        """A memory size of the family right after the model ("3090 24GB")."""
        size = _size_after(f, m)
        return size is not None and size in self.vocabulary.families[m.value].vrams

    def _one_plain_card(
        self, f: Features, category_id: str | None, specifics: Mapping[str, str] | None
    ) -> bool:
        families = f.by_kind.get("family")
        return (
            families is not None
            and len(families) == 1
            and families[0].value in self._gpu_families
            and _PLAIN.issuperset(f.by_kind)
            and not specifics
            and category_id not in _COMPUTER_CATEGORIES
            and self._absence_words.isdisjoint(f.tokens.words)
        )

    def _sold_in_a_system(self, f: Features, subject: TokenMatch | None) -> bool:
        """A computer, or a server maker's machine, named before the card and joined to it by
        "with" ("Dell Precision 3660 Tower mit RTX A4000", "HP ProLiant DL380 mit Tesla T4"):
        the computer is sold, the card comes in it."""
        if not self._gpu_subject(subject):
            return False
        systems = (*f.of("other.systems"), *f.of("other.server_makers"))
        before = [m.start for m in systems if m.start < subject.start]
        links = self._words["other.system_links"]
        return bool(before) and any(
            w in links for w in f.tokens.words[min(before) + 1 : subject.start]
        )

    def _made_by_a_server_maker(self, f: Features, subject: TokenMatch) -> bool:
        """A server or workstation maker named before the cards, not as where they were pulled
        from ("Supermicro 7049GP-TRT 4x RTX 3090": the machine; "Supermicro pulled 4x P40":
        the cards)."""
        words = f.tokens.words
        pulled = self._words["other.trailing_negators"]
        return any(
            m.start < subject.start and not (m.end < len(words) and words[m.end] in pulled)
            for m in f.of("other.server_makers")
        )

    def _gpu_subject(self, subject: TokenMatch | None) -> TypeGuard[TokenMatch]:
        """The first model the title names for itself is a card."""
        return (
            subject is not None and subject.kind == "family" and subject.value in self._gpu_families
        )

    def _sells_no_card(self, f: Features, subject: TokenMatch | None) -> bool:
        """An empty box (an "empty" word and a packaging word anywhere: "Leerer Karton",
        "Originalverpackung RTX 4080 leer"), or a card model's listing that says the card
        itself is missing ("ohne Grafikkarte", "sans la carte", "no GPU inside")."""
        if "accessory.empty" in f.by_kind and "accessory.packaging" in f.by_kind:
            return True
        return self._gpu_subject(subject) and self._facts(f).part("card") == NO

    def _subject(self, f: Features) -> TokenMatch | None:
        """The first model named for itself (not after "for", "from", "like"...)."""
        first = None
        for m in f.matches:
            if m.kind in _SUBJECTS:
                if not self._compat_before(f, m.start):
                    return m
                first = first or m
        return first

    def _unknown_server(self, title: str, f: Features) -> Normalized:
        # a Supermicro 8-GPU box is one of the 4028GR/4029GP family; any other maker is not ours
        if "supermicro" not in f.tokens.words:
            return Normalized(title, None, None, Kind.OTHER, confidence=0.6)
        kind = self._kind(f)
        return Normalized(title, None, Category.SERVER, kind, 1, self._includes(f, None), 0.4)

    def _gpu_mentions(self, f: Features, families: list[TokenMatch]) -> list[TokenMatch]:
        gpus = [m for m in families if m.value in self._gpu_families]
        if len(gpus) < 2:
            return gpus
        return [m for m in gpus if not self._compat_before(f, m.start)] or gpus

    # --- GPUs -----------------------------------------------------------------------------

    def _gpu(self, title: str, f: Features, gpus: list[TokenMatch]) -> Normalized:
        names = {m.value for m in gpus}
        kind = self._kind(f, headless=names <= self._headless)
        part = self.catalog.get(f.part) if f.part else None
        if len(names) > 1:
            return Normalized(title, None, Category.GPU, kind, confidence=0.4)
        sku: str | None
        if not names and part is not None:
            sku, confidence, status = part.sku, 0.75, FOUND
        elif any(self._sized_unlike(f, m) for m in gpus):
            return Normalized(title, None, None, Kind.OTHER, confidence=0.7)
        else:
            sku, confidence, status = self._resolve(self.vocabulary.families[names.pop()], f, part)
        if status == NOT_CARRIED:
            return Normalized(title, None, None, Kind.OTHER, confidence=confidence)
        quantity = self._quantity(f) if sku else 1
        return Normalized(title, sku, Category.GPU, kind, quantity, (), confidence)

    def _resolve(
        self, family: Family, f: Features, part: Sku | None, host_form: str | None = None
    ) -> Resolution:
        """Pick the family member the title means, or say why none: not carried, or ambiguous."""
        if family.simple and not (f.form or "").startswith("SXM"):
            return family.skus[0].sku, 0.95, FOUND
        if family.hinted:
            return self._pick(family, f, part, host_form)
        vram = next((v for v in f.vrams if v in family.vrams), None)
        key = (family.name, f.form, vram, part.sku if part else None, host_form, f.watts)
        found = self._resolved.get(key)
        if found is None:
            if len(self._resolved) > _MEMO_LIMIT:
                self._resolved.clear()
            found = self._resolved[key] = self._pick(family, f, part, host_form)
        return found

    def _pick(
        self, family: Family, f: Features, part: Sku | None, host_form: str | None
    ) -> Resolution:
        if part is not None and part.family != family.name:
            part = None
        form = f.form or (part.form_factor if part else None) or host_form
        if form == "SXM":
            form = next((x for x in sorted(family.forms) if x.startswith("SXM")), "SXM")
        vram = next((v for v in f.vrams if v in family.vrams), None)
        if vram is None and part is not None:
            vram = part.vram_gb
        if form not in family.forms and (
            form in family.other_forms or (form or "").startswith("SXM")
        ):
            return None, 0.7, NOT_CARRIED
        if vram in family.other_vram or (vram is None and family.default_vram in family.other_vram):
            return None, 0.7, NOT_CARRIED
        skus = list(family.skus)
        if form and len(family.forms) > 1:
            skus = [s for s in skus if s.form_factor == form]
        if vram is not None:
            skus = [s for s in skus if s.vram_gb == vram] or skus
        skus = _by_watts(_by_hints(skus, f), f)
        if len(skus) > 1 and vram is None and family.default_vram is not None:
            skus = [s for s in skus if s.vram_gb == family.default_vram] or skus
        if len(skus) != 1:
            return None, 0.5, AMBIGUOUS
        return skus[0].sku, 0.95 if vram is not None or len(family.skus) == 1 else 0.85, FOUND

    # --- servers and boards -----------------------------------------------------------------

    def _host(self, title: str, f: Features) -> Normalized:
        fitted = self._part_of_a_host(f)
        if fitted is not None:
            return Normalized(title, None, None, fitted, confidence=0.75)
        sku = self._host_sku(f)
        kind = self._kind(f)
        if sku is None and not (self._is_server(f) or self._names_server(f)):
            return Normalized(title, None, None, Kind.OTHER, confidence=0.6)
        includes = self._includes(f, sku) if kind is not Kind.OTHER else ()
        if sku is None:
            return Normalized(title, None, Category.SERVER, kind, 1, includes, 0.4)
        quantity = self._quantity(f, host=True)
        return Normalized(title, sku.sku, sku.category, kind, quantity, includes, 0.9)

    def _part_of_a_host(self, f: Features) -> Kind | None:
        """A board named before the machines the title names, with a "for" between them
        ("Supermicro X10DRG-O+-CPU motherboard for 4028GR-TRT", "Backplane for Supermicro
        SYS-4029GP-TRT"): a part of the machine is sold, not the machine. A motherboard is
        OTHER (not our hardware), any other board a part (ACCESSORY)."""
        named = [m for m in f.of("family") if m.value not in self._gpu_families]
        boards = f.of("board_words")
        if not named or not boards or boards[0].start > named[0].start:
            return None
        # "for" anywhere between the board and the machine ("pour serveur Supermicro SYS-…")
        if not self._compat_before(f, named[0].start, reach=named[0].start - boards[0].end):
            return None
        motherboard = self._words["board_words.motherboards"]
        return Kind.OTHER if boards[0].value in motherboard else Kind.ACCESSORY

    def _host_sku(self, f: Features) -> Sku | None:
        named = [m for m in f.of("family") if m.value not in self._gpu_families]
        hosts = [m for m in named if not self._compat_before(f, m.start)] or named
        systems = [m for m in hosts if self._category(m) is Category.SERVER]
        boards = [m for m in hosts if self._category(m) is Category.BOARD]
        board_named = not systems or (
            f.of("board_words")
            and not f.of("server_words")
            and not self._comes_with(f, systems[0], boards)
        )
        if boards and board_named and (systems or not self._is_server(f)):
            return self._only_sku(boards[0], f)
        if systems:
            return self._only_sku(systems[0], f)
        x9 = f.has("not_carried", "cpu_board_x9") or any(m.value == "x9drg-o-pcie" for m in boards)
        return self._only_sku_of("4027gr") if x9 and self._is_server(f) else None

    def _comes_with(self, f: Features, system: TokenMatch, boards: list[TokenMatch]) -> bool:
        """ "Supermicro 4028GR-TR with X9DRG-O-PCIE board": the board named after the system
        and a "with" (any marketplace's word) is the one in it, not the thing sold."""
        links = self._words["accessory.negators"]
        after = [b.start for b in boards if b.start > system.end]
        return bool(after) and not links.isdisjoint(f.tokens.words[system.end : after[0]])

    def _names_server(self, f: Features) -> bool:
        """A server model we carry is named, even if the title does not say which variant."""
        return any(self._category(m) is Category.SERVER for m in f.of("family"))

    def _is_server(self, f: Features) -> bool:
        words = f.tokens.words
        pulls = self._words["server_words.trailing_negators"]
        named = [
            m for m in f.of("server_words") if not (m.end < len(words) and words[m.end] in pulls)
        ] + [m for m in f.of("not_carried") if m.value == "ambiguous_server"]
        return any(not self._compat_before(f, m.start) for m in named)

    def _includes(self, f: Features, host: Sku | None) -> tuple[Included, ...]:
        if f.of("barebones"):
            return ()
        host_form = host.gpu_form_factor if host else None
        counts: dict[str, int] = {}
        for m in f.of("family"):
            if m.value not in self._gpu_families or self._compat_before(f, m.start, reach=2):
                continue
            sku, _, _ = self._resolve(self.vocabulary.families[m.value], f, None, host_form)
            if sku is not None:
                counts[sku] = counts.get(sku, 0) + (count_near(f.tokens, m.start, m.end) or 1)
        return tuple(Included(sku, n) for sku, n in counts.items())

    def _only_sku(self, match: TokenMatch, f: Features) -> Sku | None:
        skus = self.vocabulary.families[match.value].skus
        if len(skus) == 1:
            return skus[0]
        # one model sold as an SXM2 and a PCIe machine (Dell C4140): the title's GPUs tell
        form = _socket(f.form) or self._included_socket(f)
        fitting = [s for s in skus if _socket(s.gpu_form_factor) == form]
        return fitting[0] if form and len(fitting) == 1 else None

    def _included_socket(self, f: Features) -> str | None:
        sockets = set()
        for m in f.of("family"):
            if m.value in self._gpu_families:
                sku, _, _ = self._resolve(self.vocabulary.families[m.value], f, None)
                sockets.add(_socket(self.catalog[sku].form_factor) if sku else None)
        return sockets.pop() if len(sockets) == 1 else None

    def _only_sku_of(self, family: str) -> Sku | None:
        skus = self.vocabulary.families[family].skus
        return skus[0] if len(skus) == 1 else None

    # --- kind and quantity -------------------------------------------------------------------

    def _kind(self, f: Features, *, headless: bool = False) -> Kind:
        """For parts when the title says so (``title_facts``: "broken", "für Teile", not "not
        broken"). ``headless``: a card with no display output, for which "no video output" is
        how it is made, not a fault."""
        if "fault" in f.by_kind and self._facts(f).broken(headless=headless):
            return Kind.FOR_PARTS
        return Kind.ITEM

    def _broken_condition(self, condition: str | None, specifics: Mapping[str, str] | None) -> bool:
        """eBay's condition (or the item specifics' "Condition") says broken, read with the
        title's fault words in every language: "For parts or not working", "Als Ersatzteil /
        defekt", "Pour pièces détachées ou ne fonctionne pas", "Para piezas o no funciona"."""
        if not condition and specifics:
            condition = specifics.get("Condition") or specifics.get("condition")
        return bool(condition) and condition_broken(condition)

    def _quantity(self, f: Features, *, host: bool = False) -> int:
        if not host:
            cues = find_lot_cues(f.tokens)
            return cues[0][1] if cues else 1
        # in a server title, "8x", "(8)" and "8 V100" count GPUs inside it, not servers sold;
        # but a count heading the title, before the server's name, counts servers ("2x
        # Supermicro 4028GR-TRT", "(2) Gigabyte T181-G20")
        words = f.tokens.words
        gpu_starts = {m.start for m in f.of("family") if m.value in self._gpu_families}
        named = min((m.start for m in f.of("family") if m.start not in gpu_starts), default=0)
        for position, count in find_lot_cues(f.tokens):
            near_gpu = any(position < s <= position + 4 for s in gpu_starts)
            counted = words[position] == "x" or words[position].isdigit()
            heading = position <= 1 and position < named
            if not near_gpu and (not counted or heading):
                return count
        return 1

    # --- helpers -----------------------------------------------------------------------------

    def _category(self, match: TokenMatch) -> Category:
        return self.vocabulary.families[match.value].category

    def _compat_before(self, f: Features, start: int, reach: int = 3) -> bool:
        compat = self._words["compat.phrases"]
        return not compat.isdisjoint(f.tokens.words[max(0, start - reach) : start])

    def _other_phrase(self, f: Features) -> bool:
        words = f.tokens.words
        negators = self._words["other.negators"]
        trailing = self._words["other.trailing_negators"]
        fillers = self._words["other.fillers"]

        def negated(start: int) -> bool:
            if any(w in negators for w in words[max(0, start - 2) : start]):
                return True
            i = start - 1
            while i >= 0 and words[i] in fillers:  # "from a working Dell Precision 7920"
                i -= 1
            return i >= 0 and i < start - 1 and words[i] in negators

        def said(m: TokenMatch) -> bool:
            return not negated(m.start) and not any(w in trailing for w in words[m.end : m.end + 3])

        if any(said(m) for m in f.of("other")):
            return True
        # "Dell Alienware RTX 3090 OEM graphics card": the maker's card, not its computer
        return self._words["other.card_words"].isdisjoint(words) and any(
            said(m) for m in f.of("other.oem_lines")
        )


def _size_after(f: Features, m: TokenMatch) -> float | None:
    """The memory size written right after the model at ``m`` ("3090 24GB", "3090 FE 24GB")."""
    words = f.tokens.words
    for u in f.of("unit"):
        if m.end <= u.start - 1 <= m.end + 1 and words[u.start - 1].isdigit():
            return float(words[u.start - 1])
    return None


def _socket(form: str | None) -> str | None:
    """What a GPU host's slots take: "SXM" for any SXM generation, "PCIe" for cards."""
    if not form:
        return None
    return "SXM" if form.startswith("SXM") else "PCIe"


def _by_hints(skus: list[Sku], f: Features) -> list[Sku]:
    if len(skus) < 2:
        return skus
    marks = f.marks
    hinted = [s for s in skus if marks.intersection(s.hints)]
    return hinted or [s for s in skus if not s.hints] or skus


def _by_watts(skus: list[Sku], f: Features) -> list[Sku]:
    """An A100 title giving "250W" is the 40GB PCIe card; "400W" is the SXM4 module."""
    if len(skus) < 2 or not f.watts:
        return skus
    return [s for s in skus if s.tdp_w in f.watts] or skus


@cache
def default_normalizer() -> Normalizer:
    """The normalizer of the packaged catalog, built once per process."""
    return Normalizer(load_catalog())


@lru_cache(maxsize=8)
def _normalizer_for(catalog: Catalog) -> Normalizer:
    return Normalizer(catalog)


def normalize_title(
    title: str,
    catalog: Catalog | None = None,
    *,
    category_id: str | None = None,
    specifics: Mapping[str, str] | None = None,
    condition: str | None = None,
) -> Normalized:
    """Normalize one title with the default catalog, or with ``catalog`` when given."""
    normalizer = default_normalizer() if catalog is None else _normalizer_for(catalog)
    return normalizer.normalize(
        title, category_id=category_id, specifics=specifics, condition=condition
    )


def _server_named(f: Features) -> int:
    """Where a title that names no model says it sells a server ("2U Server 4x 800GB NVMe …
    7x PCI-E Rails"): the parts after that are its spec line. The title's length when it does
    not."""
    servers = f.of("server_words")
    return min(m.start for m in servers) if servers else len(f.tokens.words)
