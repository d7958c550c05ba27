"""What changed: moves of the median sold price, new lows, today's best prices."""

from __future__ import annotations

from decimal import Decimal

from core.models import Flag
from rigscout.outputs.report.changes import score_best_prices, score_moves, score_new_lows
from tests.support.report_data import NOW, P40, V100, asking, deal, sold


def test_a_move_compares_the_last_days_median_with_the_days_before():
    points = [sold(V100, p, ago) for p, ago in (("100", 9), ("110", 10), ("105", 12))]
    points += [sold(V100, p, ago) for p, ago in (("120", 1), ("126", 2), ("130", 5))]

    (move,) = score_moves(points, now=NOW, days=7)

    assert (move.before, move.after) == (Decimal("105"), Decimal("126"))
    assert round(move.change, 3) == 0.2
    assert (move.sales_before, move.sales_after) == (3, 3)


def test_too_few_sales_on_either_side_make_no_move():
    points = [sold(V100, "100", 9), sold(V100, "110", 10), sold(V100, "300", 1)]
    points += [sold(V100, "120", 2), sold(V100, "125", 3)]

    assert score_moves(points, now=NOW, days=7) == ()


def test_the_biggest_moves_come_first_whichever_way():
    points = []
    for sku, before, after in ((V100, "100", "105"), (P40, "200", "150")):
        points += [sold(sku, before, ago) for ago in (35, 40, 45)]
        points += [sold(sku, after, ago) for ago in (1, 5, 10)]

    moves = score_moves(points, now=NOW, days=30)

    assert [m.sku for m in moves] == [P40, V100]
    assert round(moves[0].change, 2) == -0.25


def test_best_prices_skip_auctions_and_prices_to_check_first():
    cheap_but_suspect = deal(
        1,
        landed_unit_price="40",
        flags=(Flag("check_before_buying", "check before buying", "warn"),),
    )
    auction = deal(2, landed_unit_price="60", price_basis="predicted")
    fixed = deal(3, landed_unit_price="99")

    best = score_best_prices([cheap_but_suspect, auction, fixed, deal(4, landed_unit_price="110")])

    assert best[V100].listing_id == 3


def test_a_new_low_is_under_every_earlier_sold_and_asking_price():
    best = {V100: deal(1, landed_unit_price="95")}
    history = [sold(V100, "112", 4), sold(V100, "130", 20)]

    (low,) = score_new_lows(best, history, [asking(V100, "98", "150", 6)], now=NOW)
    assert (low.previous_low, low.previous_day) == (Decimal("98"), asking(V100, "1", "1", 6).day)

    assert score_new_lows(best, history, [asking(V100, "94", "150", 6)], now=NOW) == ()


def test_todays_own_asking_prices_do_not_hide_a_new_low():
    best = {V100: deal(1, landed_unit_price="95")}

    lows = score_new_lows(best, [sold(V100, "112", 4)], [asking(V100, "95", "150", 0)], now=NOW)

    assert [n.sku for n in lows] == [V100]


def test_a_move_uses_the_markets_median_a_lone_outlier_does_not_make_a_move():
    before = [sold(V100, p, ago) for p, ago in (("100", 9), ("102", 10), ("98", 11), ("101", 12))]
    # The last week: five sales near 100 and one $900 listing mislabelled as a V100.
    after = [sold(V100, p, ago) for p, ago in (("99", 1), ("100", 2), ("101", 3), ("102", 4))]
    after += [sold(V100, "103", 5), sold(V100, "900", 6)]

    (move,) = score_moves(before + after, now=NOW, days=7)

    # A plain median of the six would be 101.50; the market leaves the $900 sale out.
    assert (move.after, move.sales_after) == (Decimal("101.00"), 5)


def test_a_best_offer_counts_less_in_a_move_as_in_the_market():
    from ranking.market.sold import sale_weight

    before = [sold(V100, p, ago) for p, ago in (("100", 9), ("100", 10), ("100", 11))]
    offer = sale_weight(best_offer_accepted=True, source="page")
    after = [sold(V100, "100", 1), sold(V100, "100", 2)]
    after += [sold(V100, "130", ago)._replace(weight=offer) for ago in (3, 4, 5)]

    (move,) = score_moves(before + after, now=NOW, days=7)

    # Unweighted, the median of 100, 100, 130, 130, 130 is 130; the three best-offer upper
    # bounds weigh half each, so the market's median, and the move, stay at 100: no move.
    assert move.after == Decimal("100.00") and move.change == 0.0
