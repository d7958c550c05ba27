"""The auction-end model: prices rebuilt from proxy bids, and predictions a buyer can trust."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import pytest

from bench import SAMPLES
from bench.auction_bids import (
    BidHistory,
    ProxyBid,
    bid_increment,
    parse_bid_histories,
    visible_price,
)
from bench.auction_prior import render_prior
from core.settings import RankSettings
from ranking.market.auction import (
    AuctionSnapshot,
    fit_auction_model,
    load_prior,
    model_from_json,
    model_to_json,
    predict_final,
    prediction_until,
    step_middle,
)
from ranking.market.auction_watch import BidSeen, WatchedAuction, watched_snapshots
from ranking.rows import SoldRow
from tests.conftest import missing_shared

DAY = timedelta(days=1)
HOUR = timedelta(hours=1)
V100 = "nvidia-tesla-v100-sxm2-16gb"

# The first auction of the 2003 data set: a Cartier watch opened at $99, 3 days.
CARTIER = BidHistory(
    auction_id="1638893549",
    item="Cartier wristwatch",
    opening=Decimal(99),
    final=Decimal("177.5"),
    duration=3 * DAY,
    bids=(
        ProxyBid(Decimal(175), 2.230949 * DAY, "schadenfreud"),
        ProxyBid(Decimal(100), 2.600116 * DAY, "chuik"),
        ProxyBid(Decimal(120), 2.60081 * DAY, "kiwisstuff"),
        ProxyBid(Decimal(150), 2.601076 * DAY, "kiwisstuff"),
        ProxyBid(Decimal("177.5"), 2.909826 * DAY, "eli.flint"),
    ),
)


@pytest.mark.parametrize(
    ("price", "step"),
    [("0.50", "0.05"), ("1", "0.25"), ("24.99", "0.50"), ("99", "1"), ("100", "2.50"),
     ("120", "2.50"), ("250", "5"), ("999.99", "10"), ("1000", "25"), ("7000", "100")],
)  # fmt: skip
def test_bid_increments_follow_ebays_table(price, step):
    assert bid_increment(Decimal(price)) == Decimal(step)


@pytest.mark.parametrize(
    ("days", "shown", "bids"),
    [
        (1.0, "99", 0),  # no bid yet: the opening bid
        (2.3, "99", 1),  # one bidder at $175 max: still the opening bid
        (2.6002, "102.50", 2),  # $100 against $175: $100 + $2.50
        (2.6009, "122.50", 3),  # $120 against $175
        (2.602, "152.50", 4),  # the same bidder raises to $150: $150 + $2.50
        (2.95, "177.5", 5),  # $177.50 beats $175 by less than an increment: capped at its max
    ],
)
def test_the_price_shown_is_the_second_highest_maximum_plus_one_increment(days, shown, bids):
    assert visible_price(CARTIER, days * DAY) == (Decimal(shown), bids)


def test_raising_your_own_maximum_does_not_raise_the_price():
    history = BidHistory(
        "1", "x", Decimal(10), Decimal(31), 7 * DAY,
        (ProxyBid(Decimal(30), DAY, "a"), ProxyBid(Decimal(20), 2 * DAY, "b"),
         ProxyBid(Decimal(80), 3 * DAY, "a")),
    )  # fmt: skip

    assert visible_price(history, 2 * DAY)[0] == Decimal("20.50")  # $20 + 50¢ against a's $30
    assert visible_price(history, 4 * DAY)[0] == Decimal("20.50")  # a raised to $80: no change


def test_equal_maxima_show_that_maximum():
    history = BidHistory(
        "1", "x", Decimal(10), Decimal(50), 7 * DAY,
        (ProxyBid(Decimal(50), DAY, "a"), ProxyBid(Decimal(50), 2 * DAY, "b")),
    )  # fmt: skip

    assert visible_price(history, 3 * DAY)[0] == Decimal(50)


CSV_HEAD = "auctionid,bid,bidtime,bidder,bidderrate,openbid,price,item,auction_type\n"


def test_the_csv_reads_into_histories_in_time_order():
    text = CSV_HEAD + (
        "7,30,1.5,b,3,10,31,Xbox game console,3 day auction\n"
        "7,20,0.5,a,1,10,31,Xbox game console,3 day auction\n"
        "7,25,0.7,,1,10,31,Xbox game console,3 day auction\n"
    )

    [history] = parse_bid_histories(text)

    assert history.duration == 3 * DAY
    assert [b.amount for b in history.bids] == [Decimal(20), Decimal(25), Decimal(30)]
    assert history.bids[1].bidder != history.bids[0].bidder  # a nameless bidder stands alone


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("auctionid,bid\n1,2\n", "missing columns"),
        (CSV_HEAD + "7,abc,1.5,b,3,10,31,Xbox,3 day auction\n", "auction 7"),
        (CSV_HEAD + "7,20,1.5,b,3,10,31,Xbox,weekly\n", "auction 7"),
    ],
)
def test_a_malformed_file_names_what_is_wrong(text, message):
    with pytest.raises(ValueError, match=message):
        parse_bid_histories(text)


def test_the_rebuilt_prices_end_where_ebay_recorded_them():
    path = SAMPLES / "datasets" / "auction_bid_histories_2003.csv"
    if not path.exists():
        missing_shared(f"{path} is not on this machine")
    histories = parse_bid_histories(path.read_text("utf-8"))

    rebuilt = [visible_price(h, h.duration)[0] == h.final for h in histories]

    assert len(histories) == 628
    assert sum(rebuilt) / len(rebuilt) > 0.9  # 596 of 628 to the cent


def predict(model=None, **kw):
    args = {"current_bid": Decimal(108), "bids": 3, "time_left": 5 * DAY, "market": None}
    return (model or load_prior()).predict(**{**args, **kw})


@pytest.mark.parametrize("market", [None, Decimal(90), Decimal(132), Decimal(400)])
@pytest.mark.parametrize("bids", [0, 1, 4, 8, 30])
def test_more_time_left_never_lowers_the_prediction(market, bids):
    hours = [0.1, 0.4, 1, 3, 7, 12, 23, 30, 60, 100, 200]

    mids = [predict(time_left=h * HOUR, bids=bids, market=market).mid for h in hours]

    assert mids == sorted(mids)


@pytest.mark.parametrize("market", [None, Decimal(50), Decimal(108), Decimal(132)])
@pytest.mark.parametrize("hours", [0.05, 1, 6, 24, 130])
def test_never_under_the_current_bid(market, hours):
    p = predict(time_left=hours * HOUR, market=market)

    assert Decimal(108) <= p.low <= p.mid <= p.high


@pytest.mark.parametrize("spread", [None, 0.05, 0.3, 1.0])
@pytest.mark.parametrize("bids", [0, 5, 19])
def test_an_item_with_a_market_is_never_expected_above_one_and_a_half_times_it(spread, bids):
    # An A100 80GB bid at its (asking) market a day out once read "ranked at $23,978".
    p = predict(
        current_bid=Decimal(10743),
        time_left=25 * HOUR,
        bids=bids,
        market=Decimal(10748),
        spread=spread,
    )

    assert Decimal(10743) <= p.low <= p.mid <= Decimal("16122.00")
    assert p.high > p.mid  # the ceiling caps the likely end, not the uncertainty around it


@pytest.mark.parametrize("hours", [1, 6, 24])
def test_a_bid_already_over_the_ceiling_keeps_a_range_above_it(hours):
    """An auction bid past 1.5x its market still rises most of the time (issue #33): the
    likely end is the bid, the range is not collapsed onto it."""
    p = predict(current_bid=Decimal(300), time_left=hours * HOUR, bids=8, market=Decimal(150))

    assert p.low == p.mid == Decimal(300)
    assert p.high > Decimal(310)


def test_the_range_holds_four_fifths_of_finals_it_was_not_fitted_on():
    """Calibrated (split conformal over auctions, per time left x market x price band), the
    stated 10th-90th percentile range holds 80 % (+-3 points) of the ends of real auctions
    left out of the fit, 24 h, 6 h and 1 h before the end, overall and for each of the three
    items: not the 70-73 % the fitted auctions' own percentiles gave, nor the 76.5-83.1 % per
    item of a calibration blind to the price (#33). Bids under $100 and over $1,000 (60-160
    auctions each) are held 75-85 %, not 72-95 %."""
    from bench.bench_auction import FOLDS, HISTORIES, backtest, load_histories

    if not HISTORIES.is_file():
        missing_shared(f"{HISTORIES} is not on this machine")
    result = backtest(load_histories(), folds=FOLDS)  # as ``python -m bench auction`` does
    cells = [result["range_coverage_pct"], *result["range_coverage_pct_by_item"].values()]
    bands = result["range_coverage_pct_by_price"].values()

    assert len(cells) == 4
    assert all(77 <= share <= 83 for cell in cells for share in cell.values()), cells
    assert all(75 <= share <= 85 for band in bands for share in band.values()), bands


def test_far_from_the_end_the_market_matters_near_it_the_bid():
    far = predict(time_left=5 * DAY, market=Decimal(132), spread=0.1)
    near = predict(time_left=0.2 * HOUR, market=Decimal(132), spread=0.1)

    assert Decimal(125) <= far.mid <= Decimal(170)  # near the $132 market, not at the $108 bid
    assert near.mid < Decimal(115)  # minutes before the end the bid is most of the price
    assert near.high - near.low < far.high - far.low  # and the range narrows


def test_a_market_of_few_sales_counts_for_less_and_widens_the_range():
    """Three sales tell a median, not a spread: the market weighs less than a tight one of
    many sales, and the range is wider."""
    tight = predict(time_left=2 * DAY, market=Decimal(132), spread=0.1)
    thin = predict(time_left=2 * DAY, market=Decimal(132), spread=None)

    assert abs(thin.mid - 132) > abs(tight.mid - 132)
    assert thin.high - thin.low > tight.high - tight.low


def test_the_default_predictor_is_the_prior():
    p = predict_final(current_bid=Decimal(108), bids=3, time_left=5 * DAY, market=Decimal(132))

    assert p == predict(market=Decimal(132))
    assert p.basis == "prior"


def shots(n, ratio, *, hours=1.0, bids=4, market=None):
    return [
        AuctionSnapshot(Decimal(100), bids, hours * HOUR, Decimal(100) * Decimal(ratio), market)
        for _ in range(n)
    ]


def test_one_watched_auction_teaches_its_ratio():
    model = fit_auction_model(shots(1, "1.1", hours=1))

    assert predict(model, current_bid=Decimal(50), bids=4, time_left=HOUR).mid == Decimal("55.00")


def test_without_watched_auctions_the_prior_decides():
    model = fit_auction_model([], prior=load_prior())

    ours, prior = predict(model), predict()

    assert (ours.low, ours.mid, ours.high) == (prior.low, prior.mid, prior.high)
    assert (ours.basis, ours.examples) == ("prior", 0)


def test_a_thin_bucket_moves_only_part_way_from_the_prior():
    prior = predict(bids=4, time_left=HOUR)
    # Watched auctions that all ended 50% over the bid, an hour out, with 3–5 bids.
    few = predict(fit_auction_model(shots(5, "1.5", hours=1), prior=load_prior()), bids=4,
                  time_left=HOUR)  # fmt: skip
    many = predict(fit_auction_model(shots(2000, "1.5", hours=1), prior=load_prior()), bids=4,
                   time_left=HOUR)  # fmt: skip

    assert prior.mid < few.mid < many.mid <= Decimal(162)
    assert many.mid > Decimal(160)  # 2,000 examples outweigh the prior's 20
    assert (few.basis, few.examples) == ("watched", 5)


def test_the_prior_file_round_trips(tmp_path):
    model = fit_auction_model(shots(30, "1.2", hours=10, market=Decimal(130)))
    path = tmp_path / "prior.toml"

    path.write_text(render_prior(model, header="test prior"), "utf-8")
    loaded = load_prior(path)

    cases = [{}, {"market": Decimal(130)}, {"time_left": 10 * HOUR, "bids": 0}]
    for case in cases:
        assert predict(loaded, **case).mid == predict(model, **case).mid


def test_no_auctions_and_no_prior_is_a_clear_error():
    with pytest.raises(ValueError, match="no finished auctions"):
        fit_auction_model([])


SETTINGS = RankSettings()
END = datetime(2026, 11, 20, 18, tzinfo=UTC)


def sale(price, day, shipping="0"):
    return SoldRow(V100, 1, Decimal(price), "USD", day, Decimal(shipping), False, "page")


def test_a_watched_auction_becomes_snapshots_at_landed_prices_against_its_market():
    final = sale("150", END.date(), shipping="10")
    others = [sale(p, date(2026, 11, d)) for p, d in (("140", 10), ("150", 12), ("160", 14))]
    auction = WatchedAuction(
        listing_id=1,
        end_time=END,
        final=final,
        seen=(
            BidSeen(END - 2 * DAY, Decimal("90"), None, 2),
            BidSeen(END - HOUR, Decimal("140"), Decimal("10"), 9),
            BidSeen(END + HOUR, Decimal("150"), Decimal("10"), 12),  # after the end: not a bid
        ),
    )

    snapshots = watched_snapshots([auction], [*others, final], SETTINGS)

    spread = None  # three sales tell a median ($150), not how widely prices spread
    assert snapshots == [
        AuctionSnapshot(
            Decimal("100.00"), 2, 2 * DAY, Decimal("160.00"), Decimal(150), spread, "1"
        ),
        # On its last day its own sale is in the window, and is left out of its market.
        AuctionSnapshot(Decimal("150.00"), 9, HOUR, Decimal("160.00"), Decimal(150), spread, "1"),
    ]


def test_a_sightings_market_is_the_sales_dated_before_its_day():
    # A sale carries a date, not a time: one dated the sighting's day may have come after it.
    before = [sale(p, date(2026, 11, d)) for p, d in (("140", 10), ("150", 12), ("160", 14))]
    same_day = [sale("400", END.date()), sale("420", END.date()), sale("410", END.date())]
    auction = WatchedAuction(
        1, END, sale("150", END.date()), (BidSeen(END - HOUR, Decimal(140), None, 9),)
    )

    (shot,) = watched_snapshots([auction], [*before, *same_day, auction.final], SETTINGS)

    assert shot.market == Decimal(150)


def test_thousands_of_auctions_share_one_market_per_day():
    # A year of daily runs watches thousands of auctions of one SKU; the markets they are
    # measured against must not be recomputed (or searched) auction by auction.
    days = [END.date() - timedelta(days=d) for d in range(60)]
    sales = [sale(str(100 + i % 40), days[i % 60]) for i in range(3_000)]
    auctions = [
        WatchedAuction(
            i,
            END - timedelta(days=i % 60),
            sales[i],
            tuple(
                BidSeen(END - timedelta(days=i % 60, hours=h), Decimal(80), None, 3)
                for h in (30, 10, 2)
            ),
        )
        for i in range(3_000)
    ]

    shots = watched_snapshots(auctions, sales, SETTINGS)

    assert len(shots) == 9_000
    by_day = {}
    for auction, shot in zip((a for a in auctions for _ in a.seen), shots, strict=True):
        by_day.setdefault((auction.end_time - shot.time_left).date(), set()).add(shot.market)
    assert all(len(markets) == 1 for markets in by_day.values())


def test_a_fitted_model_survives_the_store_as_json():
    model = fit_auction_model(shots(30, "1.2", hours=10, market=Decimal(130)), prior=load_prior())

    loaded = model_from_json(json.loads(json.dumps(model_to_json(model))))

    assert loaded == model
    with pytest.raises(ValueError, match="not a stored auction model"):
        model_from_json({"cells": [[1, 2]], "blends": [], "basis": "watched"})


def test_a_tight_market_counts_for_more_than_a_wide_one():
    tight = predict(time_left=30 * HOUR, bids=1, market=Decimal(200), spread=0.1)
    wide = predict(time_left=30 * HOUR, bids=1, market=Decimal(200), spread=1.5)

    assert abs(tight.mid - 200) < abs(wide.mid - 200)
    assert tight.high - tight.low < wide.high - wide.low


def test_a_damaged_prior_file_is_named(tmp_path):
    path = tmp_path / "prior.toml"
    path.write_text("[[cells]]\ntime = 0\n", "utf-8")

    with pytest.raises(ValueError, match=r"prior\.toml: not a readable auction prior"):
        load_prior(path)


@pytest.mark.parametrize("hours", [0.1, 0.3, 0.9, 1.5, 5, 7.9, 23.5, 24.2, 50, 80, 100, 200])
def test_a_prediction_holds_until_its_step_ends_and_not_past_it(hours):
    """The kept ranking reprices an auction only when ``prediction_until`` says: every moment
    before it reads the same prediction, and 23 h 59 m reads closer to 24 h than to 8 h."""
    end = datetime(2026, 11, 30, 12, tzinfo=UTC)
    now = end - timedelta(hours=hours)
    until = prediction_until(end, now)
    args = {"current_bid": Decimal(100), "bids": 4, "market": Decimal(130), "spread": 0.2}

    first = predict(time_left=end - now, **args)
    for moment in (now + (until - now) * share for share in (0.25, 0.5, 0.999)):
        assert predict(time_left=end - moment, **args) == first
    if until < end:  # a second later the time left is in the next step
        assert step_middle(end - until - timedelta(seconds=1)) < step_middle(end - now)


def test_the_prediction_moves_between_buckets_in_small_steps():
    """No jump at a bucket's edge: a minute either side of 8 h left reads nearly alike."""
    args = {"current_bid": Decimal(100), "bids": 4, "market": None}
    before = predict(time_left=timedelta(hours=8, minutes=1), **args).mid
    after = predict(time_left=timedelta(hours=7, minutes=59), **args).mid

    assert abs(before - after) / before < Decimal("0.03")
