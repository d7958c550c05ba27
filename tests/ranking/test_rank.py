"""rank_rows: the shortlist a buyer who follows the guides can act on, from plain rows."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from core.errors import ConfigError
from core.settings import RankSettings
from ranking.catalog import load_catalog
from ranking.market.auction import AuctionPrediction
from ranking.pricing import price_rows
from ranking.rank import rank_priced, rank_rows
from ranking.records import RankFilters
from tests.support.rows import NOW, active, sales

CATALOG = {s.sku: s for s in load_catalog()}
CATALOG_ROOT = Path(__file__).resolve().parents[2] / "ranking"
USD = RankSettings()
V100 = "nvidia-tesla-v100-sxm2-16gb"
V100_PCIE = "nvidia-tesla-v100-pcie-16gb"
P40 = "nvidia-tesla-p40"
P100 = "nvidia-tesla-p100-pcie-16gb"
K80 = "nvidia-tesla-k80"
M40 = "nvidia-tesla-m40-24gb"
RTX3090 = "nvidia-rtx-3090"
A100_40 = "nvidia-a100-sxm4-40gb"
A100_80 = "nvidia-a100-sxm4-80gb"
TRT = "supermicro-sys-4028gr-trt"
TRT2 = "supermicro-sys-4028gr-trt2"
X9 = "supermicro-sys-4027gr-tr"
V100_MARKET = sales(V100, "190", "195", "200", "201", "205", "210", "220", "240")  # strong


def rank(active_rows, sold_rows=(), settings=USD, **filters):
    return rank_rows(
        active_rows, sold_rows, CATALOG, settings, now=NOW, filters=RankFilters(**filters)
    )


def test_a_listing_under_a_strong_market_is_a_deal_with_its_numbers():
    cheap = active(V100, "129", shipping="10")
    dear = active(V100, "215")

    deals = rank([cheap, dear], V100_MARKET, profile="training").deals

    best = deals[0]
    assert best.listing_id == cheap.listing_id
    assert (best.landed_unit_price, best.baseline, best.baseline_count) == (
        Decimal("139.00"), Decimal("203.00"), 8,
    )  # fmt: skip
    assert best.discount == pytest.approx(1 - 139 / 203, abs=1e-4)
    assert (best.evidence, best.needs_host) == ("strong", "SXM2")
    assert [f.code for f in best.flags] == ["software_support"]  # Volta: CUDA 12.x at most
    assert best.reason.startswith(
        "NVIDIA Tesla V100 SXM2 16GB at $139.00 landed, 32% under the 30-day sold median of $203.00 "
        "(8 sales in 30 days, spread ±"
    )
    assert "strong evidence" in best.reason
    assert "needs an SXM2 server" in best.reason
    assert best.score > deals[1].score


@pytest.mark.parametrize(
    ("row", "reason"),
    [
        (active(None, "100"), "unmatched"),
        (active("nvidia-h999-unknown", "100"), "not_in_catalog"),
        (active(V100, "100", currency="JPY"), "no_fx_rate"),
        (
            active(V100, "100", buying_format="auction", ends_in=timedelta(hours=-1)),
            "auction_ended",
        ),
        (active(K80, "40"), "below_profile_minimum"),  # llm-inference: 16 GB per GPU
    ],
)
def test_what_cannot_be_ranked_is_left_out_and_counted(row, reason):
    ranking = rank([row], V100_MARKET)

    assert ranking.deals == ()
    assert ranking.skipped == {reason: 1}


def test_parts_and_accessories_are_a_separate_view_and_never_score():
    heatsink = active(V100, "40", kind="accessory")
    broken = active(V100, "30", kind="for_parts")

    ranking = rank([heatsink, broken, active(V100, "150")], V100_MARKET)

    assert [d.listing_id for d in ranking.parts] == [broken.listing_id, heatsink.listing_id]
    assert all(d.score == 0 for d in ranking.parts)
    assert "not ranked as a deal" in ranking.parts[0].reason
    assert len(ranking.deals) == 1


@pytest.mark.parametrize(
    ("condition", "note"),
    [
        ("Als Ersatzteil / defekt", "for parts (eBay: Als Ersatzteil / defekt): not ranked"),
        ("For parts or not working", "for parts (eBay: For parts or not working): not ranked"),
        ("Pre-Owned", "for parts: not ranked"),  # the title said it; the condition did not
    ],
)
def test_a_part_says_when_ebays_condition_is_why(condition, note):
    broken = replace(active(V100, "30", kind="for_parts"), condition=condition)

    ranking = rank([broken, active(V100, "150")], V100_MARKET)

    assert note in ranking.parts[0].reason


def test_a_running_auction_is_ranked_at_its_predicted_end_not_its_current_bid():
    lone = active(V100, "20", buying_format="auction", bids=1, ends_in=timedelta(days=5))
    fixed = active(V100, "150")

    ranking = rank([lone, fixed], V100_MARKET)

    auction = next(d for d in ranking.deals if d.listing_id == lone.listing_id)
    assert auction.price_basis == "predicted"
    assert auction.current_bid == Decimal("20.00")
    assert auction.landed_unit_price > Decimal(150)  # five days out it ends near the market
    assert ranking.deals[0].listing_id == fixed.listing_id  # no longer 100 points on a $20 bid
    assert "current bid $20.00" in auction.reason and "likely to end near" in auction.reason
    assert "5d 0h left" in auction.reason


def test_auctions_and_fixed_prices_compete_and_filter_by_buying_format():
    def predict(*, current_bid, bids, time_left, market, spread=None):
        return AuctionPrediction(current_bid * 2, current_bid * 2, current_bid * 3, "test")

    bid = active(V100, "60", buying_format="auction", bids=3, ends_in=timedelta(hours=2))
    fixed = active(V100, "180")
    rows = [bid, fixed]

    ranking = rank_rows(rows, V100_MARKET, CATALOG, USD, now=NOW, predict=predict)
    auctions = rank(rows, V100_MARKET, buying="auction").deals
    fixed_only = rank(rows, V100_MARKET, buying="buy_it_now").deals

    assert ranking.deals[0].listing_id == bid.listing_id  # $120 predicted beats $180 fixed
    assert (ranking.deals[0].predicted_low, ranking.deals[0].predicted_high) == (
        Decimal("120.00"), Decimal("180.00"),
    )  # fmt: skip
    assert [d.listing_id for d in auctions] == [bid.listing_id]
    assert [d.listing_id for d in fixed_only] == [fixed.listing_id]


def test_read_description_is_kept_out_but_shown_with_its_flag():
    # The issue's #2: a V100 SXM2 at $35 "Read Description" scored 100.
    bait = active(V100, "35", title="NVIDIA Tesla V100 SXM2 16GB GPU Read Description")

    ranking = rank([bait, active(V100, "180")], V100_MARKET)

    assert bait.listing_id not in [d.listing_id for d in ranking.deals]
    (flagged,) = ranking.flagged
    assert flagged.listing_id == bait.listing_id
    assert {f.code for f in flagged.flags} >= {"read_description", "check_before_buying"}
    assert ranking.skipped["flagged"] == 1


def test_a_price_far_under_a_strong_market_is_checked_not_put_on_top():
    a100_40 = sales(A100_40, "4300", "4400", "4500", "4550", "4600", "4700", "4800", "4900")
    a100_80 = sales(A100_80, "10500", "10600", "10800", "11000")
    suspicious = active(A100_80, "4539", title="NVIDIA Tesla A100 80G Deep Learning GPU")
    fair = active(A100_80, "10200")

    deals = rank([suspicious, fair], a100_40 + a100_80).deals

    flagged = next(d for d in deals if d.listing_id == suspicious.listing_id)
    (check,) = [f for f in flagged.flags if f.code == "check_before_buying"]
    assert check.severity == "warn"
    assert "fits the NVIDIA A100 SXM4 40GB (capacity mislabelled?)" in check.label
    assert deals[0].listing_id == fair.listing_id  # no discount credit until checked
    assert flagged.discount == pytest.approx(1 - 4539 / 10700, abs=1e-3)


def test_weak_evidence_lowers_the_score_of_the_same_discount():
    strong = rank([active(V100, "150")], V100_MARKET).deals[0]
    asking = rank(
        [active(V100, "150"), *(active(V100, p) for p in ("200", "203", "210"))],
        sales(V100, "180"),
    ).deals
    weak = next(d for d in asking if d.landed_unit_price == Decimal("150.00"))

    assert (strong.evidence, weak.evidence) == ("strong", "asking")
    assert weak.discount == pytest.approx(strong.discount, abs=0.02)
    assert weak.score < strong.score
    assert "asking prices, too few sales: weak evidence" in weak.reason


def test_without_a_market_there_is_no_discount_and_it_says_so():
    (deal,) = rank([active(P40, "200")]).deals

    assert (deal.discount, deal.evidence) == (None, "none")
    assert "no market price yet (no discount counted)" in deal.reason


def test_a_k80_is_two_12_gb_devices_so_a_24_gb_m40_beats_it_for_capacity():
    k80 = active(K80, "45")
    m40 = active(M40, "85")

    deals = rank([k80, m40], profile="capacity").deals

    assert deals[0].listing_id == m40.listing_id
    k80_deal = next(d for d in deals if d.listing_id == k80.listing_id)
    assert "each is its own device, VRAM is not pooled" in k80_deal.reason


def test_cards_without_usable_fp16_never_outrank_tensor_cards_in_training():
    rows = [active(K80, "35"), active(P40, "150"), active(M40, "80")]
    rows += [active(P100, "110"), active(V100_PCIE, "300"), active(RTX3090, "700")]

    ranking = rank(rows, profile="training")

    assert {d.sku for d in ranking.deals} == {P100, V100_PCIE, RTX3090}
    assert ranking.skipped["below_profile_minimum"] == 3


def test_a_server_without_shipping_lands_with_an_estimated_freight():
    barebone = active(TRT2, "906", shipping=None, title="Supermicro 4028GR-TRT2 Freight Only")

    (deal,) = rank([barebone], profile="training").deals

    assert deal.landed_unit_price == Decimal("1106.00")  # $200 default server freight
    assert (deal.freight_estimated, deal.shipping_known) == (True, False)
    assert "landed with estimated freight" in deal.reason
    assert "freight only" in [f.label for f in deal.flags]
    assert "single-root PCIe" in deal.reason


def test_freight_is_configurable_per_category():
    settings = RankSettings(
        freight={"server": Decimal(350), "board": Decimal(0), "gpu": Decimal(0)}
    )

    (deal,) = rank([active(TRT2, "906", shipping=None)], settings=settings).deals

    assert deal.landed_unit_price == Decimal("1256.00")


def test_a_dual_root_server_names_its_split_topology():
    (deal,) = rank([active(X9, "400")]).deals

    assert "split (dual-root) PCIe" in deal.reason


def test_a_server_with_gpus_is_compared_with_buying_the_parts():
    p40_market = sales(P40, "180", "190", "200", "200", "210", "215", "220", "230")
    trt_market = sales(TRT, "700", "750", "800")
    bundle = active(TRT, "2000", includes=((P40, 8),))

    (deal,) = rank([bundle], p40_market + trt_market).deals

    assert deal.baseline == Decimal("750.00") + 8 * Decimal("205.00")
    assert "under chassis $750.00 + 8x P40 24GB $1,640 = $2,390" in deal.reason


def test_a_lot_is_priced_per_unit():
    (deal,) = rank([active(V100, "600", shipping="40", quantity=4)], V100_MARKET).deals

    assert deal.landed_unit_price == Decimal("160.00")
    assert "each (lot of 4)" in deal.reason


def test_foreign_listings_are_converted_at_the_configured_rate():
    settings = RankSettings(
        fx_rates={"USD": Decimal(1), "EUR": Decimal("1.10")}, fx_date=NOW.date()
    )

    (deal,) = rank([active(V100, "100", shipping="10", currency="EUR")], settings=settings).deals

    assert deal.landed_unit_price == Decimal("121.00")
    assert "converted from EUR at 1.10 of 2026-11-20" in deal.reason


@pytest.mark.parametrize(
    ("seller", "kept_out", "label"),
    [
        ({"seller_feedback": 0}, True, "seller has no feedback"),
        ({"seller_feedback": 3}, False, "seller has only 3 feedback"),
        (
            {"location": "Hong Kong"},
            False,
            "ships from Hong Kong (overseas: customs or import duty may apply)",
        ),
        ({"location": "Toronto, Canada"}, False, "ships from Toronto, Canada"),
        ({"location": "Dallas, TX"}, False, None),
    ],
)
def test_seller_and_location_signals_are_visible(seller, kept_out, label):
    ranking = rank([active(V100, "180", **seller)], V100_MARKET)

    shown = ranking.flagged if kept_out else ranking.deals
    (deal,) = shown
    labels = [f.label for f in deal.flags if f.code != "software_support"]  # a V100's CUDA
    assert (label in labels) if label else labels == []


def test_a_warning_costs_points_but_keeps_the_listing():
    clean = rank([active(V100, "180")], V100_MARKET).deals[0]
    untested = rank([active(V100, "180", title="Tesla V100 SXM2 untested")], V100_MARKET).deals[0]

    assert clean.score - untested.score == pytest.approx(15)


def test_filters_narrow_the_view_without_changing_scores():
    rows = [active(V100, "150"), active(V100, "190"), active(TRT2, "900")]
    every = {d.listing_id: d.score for d in rank(rows, V100_MARKET).deals}

    cheap = rank(rows, V100_MARKET, sku=V100, max_price=Decimal("170")).deals
    servers = rank(rows, V100_MARKET, category="server").deals
    top = rank(rows, V100_MARKET, limit=1).deals

    assert [d.landed_unit_price for d in cheap] == [Decimal("150.00")]
    assert [d.sku for d in servers] == [TRT2]
    assert len(top) == 1
    assert all(every[d.listing_id] == d.score for d in (*cheap, *servers, *top))


@pytest.mark.parametrize(
    "filters",
    [{"buying": "buy_now"}, {"category": "toaster"}],
)
def test_bad_options_are_clear_errors(filters):
    with pytest.raises(ConfigError):
        rank([], **filters)


@pytest.mark.parametrize(
    ("profile", "winner"),
    [("capacity", P40), ("llm-inference", P100), ("training", P100)],
)
def test_at_one_price_a_p40_wins_on_vram_and_a_p100_on_bandwidth_and_fp16(profile, winner):
    # osmarks' guide: the P40 has 24 GB but crippled FP16; the P100 has 16 GB of HBM2.
    ranking = rank([active(P40, "150"), active(P100, "150")], profile=profile)

    assert ranking.deals[0].sku == winner


def test_listings_priced_once_rank_under_every_profile_as_if_ranked_alone():
    rows = [
        active(P40, "150"),
        active(P100, "150"),
        active(K80, "60"),
        active(V100, "120", buying_format="auction", bids=3, ends_in=timedelta(hours=5)),
        active(V100, "20", title="NVIDIA Tesla V100 SXM2 16GB read description"),
    ]
    priced = price_rows(rows, V100_MARKET, CATALOG, USD, now=NOW)
    for profile in ("capacity", "llm-inference", "training"):
        filters = RankFilters(profile=profile)
        alone = rank_rows(rows, V100_MARKET, CATALOG, USD, now=NOW, filters=filters)
        shared = rank_priced(priced, CATALOG, USD, now=NOW, filters=filters)
        assert shared == alone
        assert [d.sku for d in shared.deals]  # something is ranked in every profile


def test_one_ranking_explains_the_page_and_lists_every_listing_for_the_planner():
    rows = [active(P40, str(150 + i)) for i in range(5)] + [active(P100, "160")]
    page = rank(rows, limit=2)
    every = rank(rows, limit=10**6, explain_top=2)
    planner = rank(rows, limit=10**6, explain=False)

    assert every.deals[:2] == page.deals
    assert all(d.reason for d in every.deals[:2])
    assert [d.reason for d in every.deals[2:]] == [""] * 4
    assert [d.listing_id for d in planner.deals] == [d.listing_id for d in every.deals]
    assert {d.reason for d in planner.deals} == {""}


def test_a_board_named_in_the_title_decides_the_topology_shown():
    """Guide 001: an X10DRG-O-PCIE board makes a 4028GR single-root, whatever its suffix."""
    upgraded = active(
        TRT, "1800", title="Supermicro SYS-4028GR-TRT 8x GPU w/ X10DRG-O-PCIE Single Root Upgrade"
    )
    plain = active(TRT, "1800", title="Supermicro SYS-4028GR-TRT 8x GPU server")
    reasons = {d.listing_id: d.reason for d in rank([upgraded, plain]).deals}
    assert (
        "title claims single-root PCIe: every GPU talks peer-to-peer (X10DRG-O-PCIE)"
        in (reasons[upgraded.listing_id])
    )
    assert "verify (`nvidia-smi topo -m`, photos)" in reasons[upgraded.listing_id]
    assert "split (dual-root)" not in reasons[upgraded.listing_id]
    assert "split (dual-root) PCIe" in reasons[plain.listing_id]
    assert "title claims" not in reasons[plain.listing_id]


def test_no_video_output_on_a_data_center_card_is_normal_not_a_fault():
    """A Tesla P40 has no display output: "No Video Output (Compute Only)" is how it is."""
    market = sales(P40, "220", "225", "230", "235", "240", "245", "250", "255")
    compute_only = active(
        P40, "199", title="NVIDIA Tesla P40 24GB GPU No Video Output (Compute Only)"
    )
    gaming = active(RTX3090, "500", title="NVIDIA GeForce RTX 3090 24GB No Video Output")
    ranking = rank([compute_only, gaming], market)
    assert compute_only.listing_id in {d.listing_id for d in ranking.deals}
    assert gaming.listing_id not in {d.listing_id for d in ranking.deals}


def test_a_profile_may_prefer_cards_current_software_supports():
    """Default: no points off a Volta V100 for being stuck on CUDA 12 (the guides build on it);
    a profile with ``unsupported_penalty`` scores it that much lower."""
    import tomllib

    from ranking.profiles import parse_profiles

    shipped = tomllib.loads((CATALOG_ROOT / "profiles.toml").read_text(encoding="utf-8"))
    shipped["profile"]["llm-inference"]["unsupported_penalty"] = 10
    strict = parse_profiles(shipped)
    v100 = active(V100, "180")
    default = rank([v100], V100_MARKET).deals[0].score
    stricter = (
        rank_rows(
            [v100], V100_MARKET, CATALOG, USD, now=NOW, filters=RankFilters(), profiles=strict
        )
        .deals[0]
        .score
    )
    assert stricter == pytest.approx(default - 10.0)


P40_MARKET = sales(P40, "150", "155", "160", "160", "165", "170", "175", "180")


@pytest.mark.parametrize(
    ("wording", "verify"),
    [
        ("no signal", True),
        ("NO OUTPUT", True),
        ("kein Signal", True),
        ("no video output", False),
        ("headless compute only", False),
    ],
)
def test_no_signal_on_a_headless_card_is_to_verify_not_a_strong_deal(wording: str, verify: bool):
    """On a card without display outputs "no video output" is how it is made, but "no signal"
    more often means it is not detected: the listing stays, flagged, and its discount earns
    neither score nor a min_discount alert until the buyer has checked."""
    from alerts.rules import rule_matches
    from alerts.settings import AlertRule

    listing = active(P40, "110", title=f"NVIDIA Tesla P40 24GB GPU {wording}")
    plain = active(P40, "110", title="NVIDIA Tesla P40 24GB GPU")
    ranking = rank([listing, plain], P40_MARKET, profile="llm-inference")
    by_id = {d.listing_id: d for d in ranking.deals}
    deal, clean = by_id[listing.listing_id], by_id[plain.listing_id]
    codes = [f.code for f in deal.flags]
    assert "no_display" not in codes and "for_parts" not in codes
    assert ("verify_fault" in codes) is verify
    assert (deal.score < clean.score) is verify
    rule = AlertRule(name="cheap", channels=("mail",), min_discount=0.2)
    assert rule_matches(clean, rule)
    assert rule_matches(deal, rule) is not verify


def test_no_signal_on_a_card_with_display_outputs_is_a_broken_card():
    listing = active(RTX3090, "300", title="NVIDIA GeForce RTX 3090 24GB no signal")
    ranking = rank([listing], profile="llm-inference")
    assert ranking.deals == ()
    assert [f.code for f in ranking.flagged[0].flags][:1] == ["no_display"]


@pytest.mark.parametrize(
    ("wording", "unread"),
    [
        ("Attrappe", ("attrappe",)),  # a dummy, in a word no file names
        ("réplica de exhibición", ("replica", "exhibicion")),
        ("tested working", ()),
        ("getestet, voll funktionsfähig", ()),
    ],
)
def test_a_deal_far_under_its_market_with_words_nothing_reads_is_to_check(wording, unread):
    """What the reader did not understand, it says: 32 % under the P40's market with a word
    no data file names is no confident deal (no discount credit, no min_discount alert); the
    flag names the words. With every word read, the same price is a deal as usual."""
    from alerts.rules import rule_matches
    from alerts.settings import AlertRule

    listing = active(P40, "110", title=f"NVIDIA Tesla P40 24GB GPU {wording}")
    (deal,) = rank([listing], P40_MARKET, profile="llm-inference").deals
    flag = next((f for f in deal.flags if f.code == "check_title"), None)
    rule = AlertRule(name="cheap", channels=("mail",), min_discount=0.2)
    if not unread:
        assert flag is None and rule_matches(deal, rule)
        return
    assert flag is not None and flag.severity == "verify"
    assert all(f"'{word}'" in flag.label for word in unread)
    assert not rule_matches(deal, rule)


def test_words_nothing_reads_are_no_matter_close_to_the_market():
    listing = active(P40, "150", title="NVIDIA Tesla P40 24GB GPU Attrappe")  # 8 % under
    (deal,) = rank([listing], P40_MARKET, profile="llm-inference").deals
    assert "check_title" not in [f.code for f in deal.flags]


L40S = "nvidia-l40s"


def test_a_listing_s_own_asking_price_never_enters_its_own_reference():
    """No sales, four asking prices: the $5,000 listing is judged against the three others
    ($7,000–7,400, median $7,200), not a median its own price pulls down."""
    asks = [active(L40S, p, title="NVIDIA L40S 48GB GPU") for p in ("5000", "7000", "7200", "7400")]
    deals = {d.listing_id: d for d in rank(asks, profile="llm-inference").deals}
    cheap = deals[asks[0].listing_id]
    assert cheap.evidence == "asking"
    assert cheap.baseline == Decimal("7200.00")
    assert cheap.discount is not None and cheap.discount > 0.3


def test_a_flagged_listing_never_enters_anyone_s_reference():
    """A "for parts" L40S at $6,000 and a no-feedback seller's at $6,100 are no asking prices
    of an L40S: the $7,600 listing is judged against the three other clean ones (median
    $7,200), not against a median the two pull down to $7,000."""
    clean = [
        active(L40S, p, title="NVIDIA L40S 48GB GPU") for p in ("7000", "7200", "7400", "7600")
    ]
    broken = active(L40S, "6000", title="NVIDIA L40S 48GB GPU for parts not working")
    unknown = active(L40S, "6100", title="NVIDIA L40S 48GB GPU", seller_feedback=0)
    ranking = rank([*clean, broken, unknown], profile="llm-inference")
    top = next(d for d in ranking.deals if d.listing_id == clean[-1].listing_id)
    assert top.baseline == Decimal("7200.00"), top.reason


@pytest.mark.parametrize(
    ("sku", "flagged"),
    [("supermicro-sys-4028gr-trt", False), ("gigabyte-t181-g20", True)],
)
def test_no_heatsinks_on_a_pcie_server_means_cpu_coolers_not_a_gpu_warning(sku, flagged):
    """A PCIe server's heatsinks are its CPU coolers (a bill-of-materials line); an SXM2
    server without its GPU heatsinks cannot run its modules: only that one is flagged."""
    listing = active(sku, "900", title="GPU Server Barebone 2x E5-2680 v4 256GB no heatsinks")
    ranking = rank([listing], profile="llm-inference")
    (entry,) = ranking.deals or ranking.flagged
    assert ("no_heatsink" in [f.code for f in entry.flags]) is flagged
