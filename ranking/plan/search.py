"""The rig planner: the cheapest complete machines for a target, built from today's listings.

``plan_rigs`` takes the priced listings (``Offer``: the ranker's landed price, its basis and
flags; ``rigscout/jobs/plans.py`` builds them from the ranker's planner view, the listings a
plan can buy: ``ranking.kept.shortlist.plannable``) and returns the best plan per
(host SKU, GPU SKU, host sold with its GPUs or not), best first: a host (a server or board
listing, or your own workstation) plus GPU listings of one SKU, plus what the rig needs to run
(``ranking/plan/bom.py``: power shelf, CPUs, RAM, heatsinks), ordered by the profile's measure
per dollar. What fits where is ``ranking/plan/fit.py``'s rule.

The search: per GPU SKU, a 0/1 knapsack (``plan_cheapest.py``) gives the cheapest way to buy
exactly ``u`` cards (lots count per unit) with at most ``a`` running auctions; only the
cheapest ``slots // lot size`` listings of each lot size can matter, so 100,000 listings
shrink to a few dozen per SKU. Per host model only its cheapest listing (and cheapest
auction) can win. ``bench/plan_exhaustive.py`` tries every combination instead, for tests
and the benchmark.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal
from typing import TYPE_CHECKING

from core.errors import ConfigError
from core.models import Category
from ranking.plan.bom import bom_total, heatsink_line, host_bom, needs_heatsink
from ranking.plan.cheapest import cheapest_sets
from ranking.plan.explain import explain_plans, plan_warnings
from ranking.plan.fit import WORKSTATION, check_rig, gpu_fits_host, listing_host, workstation_host
from ranking.plan.records import Host, Offer, PartPrices, Plan, PlanPart, Rig, Target
from ranking.profiles import load_profiles
from ranking.records import PlannerView
from ranking.titles import load_parts

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping, Sequence
    from datetime import datetime

    from ranking.catalog import Sku
    from ranking.plan.cheapest import Found
    from ranking.plan.records import BomLine
    from ranking.plan.rules import PlanRules, Workstation

ZERO = Decimal(0)
CENT = Decimal("0.01")
FORM_FACTORS = ("any", "pcie", "sxm2", "sxm4")


def check_target(target: Target) -> None:
    """A ConfigError for a target no rig can be planned for."""
    if target.vram_gb <= 0:
        raise ConfigError(f"the VRAM target must be positive, not {target.vram_gb:g} GB")
    if target.form_factor not in FORM_FACTORS:
        raise ConfigError(f"form factor must be one of {', '.join(FORM_FACTORS)}")
    for name, least in (("gpus", 1), ("max_auctions", 0), ("limit", 1)):
        value = getattr(target, name)
        if value is not None and value < least:
            raise ConfigError(f"{name.replace('_', '-')} must be at least {least}, not {value}")
    if target.budget is not None and target.budget <= 0:
        raise ConfigError(f"the budget must be positive, not {target.budget}")
    ws = target.workstation
    if ws is not None and min(ws.gpu_slots, ws.slot_width, ws.psu_watts) <= 0:
        raise ConfigError("the workstation's slots, slot width and PSU watts must be positive")


def plan_rigs(
    offers: Iterable[Offer],
    skus: Mapping[str, Sku],
    rules: PlanRules,
    target: Target,
    *,
    currency: str = "USD",
    now: datetime | None = None,
    parts: PartPrices | None = None,
) -> list[Plan]:
    """The best plan per (host, GPU SKU) pair, best first, at most ``target.limit``.

    A plan's total is everything the rig needs to run (``ranking/plan/bom.py``): a barebone's
    CPUs and RAM, a 12 V host's power shelf, heatsinks for modules sold without; ``parts``
    prices them (default: the estimates alone)."""
    check_target(target)
    parts = parts or PartPrices(load_parts())
    hosts, by_gpu = split_offers(offers, skus, rules, target)
    candidates = candidate_hosts(hosts, target, parts, rules)
    fitting = fitting_gpus(candidates, by_gpu.keys(), skus, rules, target)
    most = max((h.free_slots for h in candidates), default=0)
    best = _cheapest_rigs(
        fitting, by_gpu, most=most, skus=skus, rules=rules, target=target, parts=parts
    )
    originals = {o.listing_id: o for group in by_gpu.values() for o in group}
    plans = [
        build_plan(
            rig,
            _say_safer(
                [originals[o.listing_id] for o in bought], by_gpu.get(rig.gpu.sku, ()), rules
            ),
            rules,
            target,
            currency=currency,
            now=now,
            parts=parts,
        )
        for rig, bought, _ in best.values()
    ]
    shown = select_plans(plans, target.limit, sort=target.sort)
    return explain_plans(shown, more=len(plans) > len(shown))


def _cheapest_rigs(
    fitting: Sequence[tuple[Host, str]],
    by_gpu: Mapping[str, Sequence[Offer]],
    *,
    most: int,
    skus: Mapping[str, Sku],
    rules: PlanRules,
    target: Target,
    parts: PartPrices,
) -> dict[PlanKey, tuple[Rig, tuple[Offer, ...], Decimal]]:
    """Per plan key, the cheapest rig that fits and meets the target: the rig, the GPU
    listings bought (priced with the heatsinks they need) and its cost to run. ``most``: the
    most GPUs any candidate host takes (the knapsack tables' size)."""
    limit = target.max_auctions
    tables: dict[tuple[str, str], list[list[Found | None]]] = {}
    real: dict[tuple[str, str], dict[int, Decimal]] = {}  # what each listing costs, unweighed
    best: dict[PlanKey, tuple[Rig, tuple[Offer, ...], Decimal]] = {}
    for host, gpu_sku in fitting:
        host_auctions = 1 if limit is not None and host.offer and host.offer.auction else 0
        if limit is not None and host_auctions > limit:
            continue
        # hosts alike in which modules need a heatsink share one knapsack table
        if (gpu_sku, host.heatsinks) not in tables:
            priced = _with_heatsinks(by_gpu.get(gpu_sku, []), host, parts)
            real[gpu_sku, host.heatsinks] = {o.listing_id: o.price for o in priced}
            weighed = [_weighed_for_trust(o, rules) for o in priced]
            tables[gpu_sku, host.heatsinks] = cheapest_sets(weighed, most, limit)
        table = tables[gpu_sku, host.heatsinks][(limit - host_auctions) if limit is not None else 0]
        prices = real[gpu_sku, host.heatsinks]
        extras = host.price + bom_total(host_bom(host, parts))
        key = plan_key(host, gpu_sku)
        for added in range(min(host.free_slots + 1, len(table))):
            found = table[added]
            rig = check_rig(host, skus[gpu_sku], added, target, rules) if found else None
            if found is None or rig is None:
                continue
            paid = extras + sum((prices[o.listing_id] for o in found[1]), ZERO)
            if target.budget is not None and paid > target.budget:
                continue
            if key not in best or extras + found[0] < best[key][2]:
                best[key] = (rig, found[1], extras + found[0])
    return best


def _weighed_for_trust(offer: Offer, rules: PlanRules) -> Offer:
    """A GPU listing as the search weighs it: a risky seller's (``rules.seller_risk``) at
    ``1 + rules.trust_margin`` times its price, so it is bought only where a trusted seller's
    costs more than the margin above it; the plan pays and shows the real price."""
    if not _risky_offer(offer, rules):
        return offer
    return replace(offer, unit_price=offer.unit_price * rules.trust_weight)


def _say_safer(bought: list[Offer], offers: Sequence[Offer], rules: PlanRules) -> list[Offer]:
    """Each risky GPU listing bought, with what the cheapest trusted listing of the same SKU
    left unbought (fixed price for fixed price, auction for auction, with its heatsink or
    without as the risky one) would cost more."""
    taken = {o.listing_id for o in bought}
    said = []
    for o in bought:
        safe = (
            [
                x
                for x in offers
                if x.listing_id not in taken
                and (x.auction, x.heatsink) == (o.auction, o.heatsink)
                and not _risky_offer(x, rules)
            ]
            if _risky_offer(o, rules)
            else []
        )
        if safe:
            other = min(safe, key=lambda x: (x.unit_price, x.listing_id))
            extra = ((other.unit_price - o.unit_price) * o.units).quantize(CENT)
            note = f"the same GPU from {_seller(other)}: +${extra} (item {other.item_id})"
            o = replace(o, notes=(*o.notes, note))
        said.append(o)
    return said


def _seller(offer: Offer) -> str:
    feedback = offer.seller_feedback
    return f"a {feedback:,}-feedback seller" if feedback is not None else "a trusted seller"


def _risky_offer(offer: Offer, rules: PlanRules) -> bool:
    return bool(rules.seller_risk & set(offer.flags))


def planner_view(
    skus: Mapping[str, Sku],
    rules: PlanRules,
    parts: PartPrices,
    workstations: Iterable[Workstation] = (),
) -> PlannerView:
    """What a ranking needs to return only what a plan can buy (``RankFilters.planner``): the
    most GPUs a host takes (the catalog's hosts, ``plan.toml``'s workstation and
    ``workstations``), what one heatsink costs and the modules one may be bought for."""
    slots = [w.gpu_slots for w in (rules.workstation, *workstations)]
    slots += [s.gpu_slots for s in skus.values() if s.category is not Category.GPU and s.gpu_slots]
    modules = tuple(sorted(s.sku for s in skus.values() if s.needs_host))  # SXM: a heatsink each
    return PlannerView(
        max(slots), float(parts.heatsink()[0]), modules, trust_margin=rules.trust_margin
    )


PlanKey = tuple[str, str, bool]


def plan_key(host: Host, gpu_sku: str) -> PlanKey:
    """One plan per host model, GPU model and whether the host comes with its GPUs: a complete
    machine is shown beside the cheapest way to assemble one, and the cheaper comes first."""
    return host.sku, gpu_sku, host.included_units > 0


def rig_cost(host: Host, bought: Sequence[Offer], parts: PartPrices) -> Decimal:
    """What the rig costs to run: the host, its GPUs and its bill of materials."""
    return (
        host.price + sum((o.price for o in bought), ZERO) + bom_total(rig_bom(host, bought, parts))
    )


def rig_bom(host: Host, bought: Sequence[Offer], parts: PartPrices) -> tuple[BomLine, ...]:
    """The host's needs, then heatsinks for the modules that need them."""
    count = sum(o.units for o in bought if needs_heatsink(host, o.heatsink))
    heatsinks = heatsink_line(count, parts)
    return (*host_bom(host, parts), *([heatsinks] if heatsinks else []))


def _with_heatsinks(offers: Sequence[Offer], host: Host, parts: PartPrices) -> list[Offer]:
    """The GPU offers priced with the heatsink each unit needs in ``host`` (for the search)."""
    unit = parts.heatsink()[0]
    return [
        replace(o, unit_price=o.unit_price + unit) if needs_heatsink(host, o.heatsink) else o
        for o in offers
    ]


def split_offers(
    offers: Iterable[Offer], skus: Mapping[str, Sku], rules: PlanRules, target: Target
) -> tuple[list[Host], dict[str, list[Offer]]]:
    """The hosts (listings and your workstation) and the GPU listings by SKU."""
    hosts = [workstation_host(target.workstation or rules.workstation)]
    by_gpu: dict[str, list[Offer]] = {}
    for offer in offers:
        sku = skus.get(offer.sku)
        if sku is None or offer.units <= 0:
            continue
        if sku.category is Category.GPU:
            by_gpu.setdefault(sku.sku, []).append(offer)
        elif sku.category is Category.SERVER or target.boards:
            host = listing_host(offer, skus, rules)
            if host is not None:
                hosts.append(host)
    return hosts, by_gpu


def candidate_hosts(
    hosts: Sequence[Host], target: Target, parts: PartPrices, rules: PlanRules | None = None
) -> list[Host]:
    """Per host model, included GPUs and heatsink state, the listing cheapest to run (its price
    and its bill of materials; the cheapest auction too, when auctions are limited): a dearer
    way to the same machine never makes a better plan — unless the cheapest is from a risky
    seller (``rules.seller_risk``) and a trusted one's costs at most ``rules.trust_margin``
    more: that one is chosen, and either says what the other costs."""
    groups: dict[tuple[object, ...], list[tuple[tuple[Decimal, int], Host]]] = {}
    for host in hosts:
        offer = host.offer
        auction = target.max_auctions is not None and offer is not None and offer.auction
        key = (
            host.sku,
            host.included.sku if host.included else None,
            host.included_units,
            auction,
            host.heatsinks,
        )
        rank = (host.price + bom_total(host_bom(host, parts)), offer.listing_id if offer else 0)
        groups.setdefault(key, []).append((rank, host))
    return [_trusted_choice(sorted(group, key=lambda g: g[0]), rules) for group in groups.values()]


def _risky(host: Host, rules: PlanRules) -> bool:
    return host.offer is not None and _risky_offer(host.offer, rules)


def _trusted_choice(
    ranked: Sequence[tuple[tuple[Decimal, int], Host]], rules: PlanRules | None
) -> Host:
    """The first of ``ranked`` (cheapest to run first), or the cheapest listing of a trusted
    seller within ``rules.trust_margin`` of it when the first is risky."""
    (cost, _), cheapest = ranked[0]
    if rules is None or cheapest.offer is None or not _risky(cheapest, rules):
        return cheapest
    sure = cheapest.offer.auction  # a fixed price is not traded for an auction's guess
    safe = [
        (c, h)
        for (c, _), h in ranked
        if h.offer is not None and h.offer.auction == sure and not _risky(h, rules)
    ]
    if not safe:
        return cheapest
    safe_cost, host = safe[0]
    assert host.offer is not None  # narrowed above
    extra = (safe_cost - cost).quantize(CENT)
    if safe_cost <= cost * rules.trust_weight:
        note = (
            f"chosen over the same machine ${extra} cheaper from a riskier seller "
            f"(item {cheapest.offer.item_id})"
        )
        return replace(host, offer=replace(host.offer, notes=(*host.offer.notes, note)))
    note = f"the same machine from {_seller(host.offer)}: +${extra} (item {host.offer.item_id})"
    return replace(cheapest, offer=replace(cheapest.offer, notes=(*cheapest.offer.notes, note)))


def fitting_gpus(
    hosts: Sequence[Host],
    gpu_skus: Iterable[str],
    skus: Mapping[str, Sku],
    rules: PlanRules,
    target: Target,
) -> list[tuple[Host, str]]:
    """Every (host, GPU SKU) pair the fit rule allows, including a server's own GPUs."""
    profiles = load_profiles()
    profile = profiles.get(target.profile)
    available = set(gpu_skus)
    pairs = []
    for host in hosts:
        options = {host.included.sku} if host.included else available
        for gpu_sku in sorted(options):
            if gpu_fits_host(
                host, skus[gpu_sku], target, rules, profile=profile, profiles=profiles
            ):
                pairs.append((host, gpu_sku))
    return pairs


def build_plan(
    rig: Rig,
    bought: Sequence[Offer],
    rules: PlanRules,
    target: Target,
    *,
    currency: str,
    now: datetime | None,
    parts: PartPrices,
) -> Plan:
    """The plan a buyer reads for ``rig`` built from the ``bought`` GPU listings."""
    host = rig.host
    bom = rig_bom(host, bought, parts)
    total = host.price + sum((o.price for o in bought), ZERO) + bom_total(bom)
    auctions = sum(1 for o in bought if o.auction) + (1 if host.offer and host.offer.auction else 0)
    plan = Plan(
        total=total.quantize(CENT),
        currency=currency,
        host=_host_part(host),
        gpu_sku=rig.gpu.sku,
        gpu_name=rig.gpu.name,
        cards=rig.cards,
        gpus=tuple(_gpu_part(o, rig.gpu) for o in sorted(bought, key=_part_order)),
        vram_gb=round(rig.vram_gb, 2),
        fp16_tflops=round(rig.fp16_tflops, 2),
        bandwidth_gbs=round(rig.bandwidth_gbs, 1),
        per_vram_gb=_per(total, rig.vram_gb),
        per_fp16_tflops=_per(total, rig.fp16_tflops),
        topology=host.topology,
        auctions=auctions,
        order=plan_order(total, rig, target, rules),
        bom=bom,
        measure=rules.order_measure.get(target.profile, ""),
    )
    return replace(plan, warnings=plan_warnings(rig, bought, rules, now))


def plan_order(total: Decimal, rig: Rig, target: Target, rules: PlanRules) -> float:
    """What plans are sorted by, lowest first: the price per unit of the profile's own measure
    (``plan.toml`` [order]: training FP16 TFLOP/s, capacity GB, llm-inference GB/s), the
    measure weighed by the host's topology for the profiles named there (training: NVLink and
    a single PCIe root count). A plan with twice the compute for a fifth more money comes first.
    """
    name = rules.order_measure.get(target.profile)
    measure = float(getattr(rig, name)) if name else 1.0
    if target.profile in rules.topology_weighted:
        host = rig.host
        topology = host.topology if host.sku != WORKSTATION else "unknown"
        measure *= load_profiles().topology_factor(topology)
    return float(total) / measure if measure > 0 else float("inf")


def select_plans(plans: Iterable[Plan], limit: int, *, sort: str = "measure") -> list[Plan]:
    """The ``limit`` plans to show, best first (``sort``: "measure" or "price"): the best
    host for each GPU model before a second host for any of them, so the list compares GPUs
    the way the guides do; and never a plan while one that dominates it (``dominates``) is
    left out: the best of those is shown in its place, and it only beside all of them."""
    every = sort_plans(plans, sort=sort)
    first: list[Plan] = []
    rest: list[Plan] = []
    for plan in every:
        seen = any(p.gpu_sku == plan.gpu_sku for p in first)
        (rest if seen else first).append(plan)
    shown: list[Plan] = []
    for plan in [*first, *rest]:
        if len(shown) >= limit:
            break  # the list is full: nothing further is shown
        better = [d for d in every if dominates(d, plan)]
        best = [d for d in better if not any(dominates(e, d) for e in better)]
        for candidate in best:
            if len(shown) < limit and candidate not in shown:
                shown.append(candidate)
        if len(shown) < limit and all(d in shown for d in better):
            shown.append(plan)
    return sort_plans(shown, sort=sort)


def dominates(one: Plan, other: Plan) -> bool:
    """``one`` costs no more than ``other`` and is no worse on any measure a profile orders by
    (VRAM, FP16 TFLOP/s, bandwidth), and better on at least one of the four."""
    ours = (one.vram_gb, one.fp16_tflops, one.bandwidth_gbs)
    theirs = (other.vram_gb, other.fp16_tflops, other.bandwidth_gbs)
    no_worse = one.total <= other.total and all(a >= b for a, b in zip(ours, theirs, strict=True))
    return no_worse and (one.total < other.total or ours != theirs)


def sort_plans(plans: Iterable[Plan], *, sort: str = "measure") -> list[Plan]:
    """Best first: the order key, then the price, then fewer auctions, then the SKUs; with
    ``sort="price"`` the price first."""
    if sort == "price":
        return sorted(plans, key=lambda p: (p.total, p.order, p.auctions, p.host.sku, p.gpu_sku))
    return sorted(plans, key=lambda p: (p.order, p.total, p.auctions, p.host.sku, p.gpu_sku))


def _per(total: Decimal, amount: float) -> Decimal | None:
    if amount <= 0:
        return None
    return (total / Decimal(str(round(amount, 4)))).quantize(CENT)


def _part_order(offer: Offer) -> tuple[Decimal, int]:
    return offer.price, offer.listing_id


def _host_part(host: Host) -> PlanPart:
    if host.offer is None:
        return PlanPart(role="host", sku=WORKSTATION, name=host.name, units=1, price=ZERO)
    return _offer_part("host", host.sku, host.name, host.offer, included=host.included_units)


def _gpu_part(offer: Offer, gpu: Sku) -> PlanPart:
    return _offer_part("gpu", gpu.sku, gpu.name, offer)


def _offer_part(role: str, sku: str, name: str, offer: Offer, *, included: int = 0) -> PlanPart:
    """A part bought from one listing, with what the listing says of its price."""
    return PlanPart(
        role=role,
        sku=sku,
        name=name,
        units=offer.units,
        price=offer.price.quantize(CENT),
        item_id=offer.item_id,
        url=offer.url,
        price_basis=offer.price_basis,
        end_time=offer.end_time,
        freight_estimated=offer.freight_estimated,
        listing_id=offer.listing_id,
        marketplace=offer.marketplace,
        included=included,
    )
