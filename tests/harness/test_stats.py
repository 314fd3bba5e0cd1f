"""Intervals, units and paired differences on synthetic results."""

from __future__ import annotations

import math

import pytest
from president_engine.intervals import interval_from_sums, mean_interval, t_quantile
from president_harness.ladder.config import Format
from president_harness.ladder.outcome import Outcome
from president_harness.ladder.stats import ahead_share, mean_place, paired_difference, units


def outcome(index: int, order: tuple[str, ...], *, players: int = 3) -> Outcome:
    bots = tuple(sorted(order))
    return Outcome(index=index, board=index // players, seating=index % players, bots=bots,
                   places=(tuple(bots.index(name) for name in order),), scores=(0,) * players)


@pytest.mark.parametrize(("df", "expected"), [(1, 12.7062), (4, 2.7764), (9, 2.2622), (29, 2.0452), (200, 1.9719)])
def test_t_quantile_matches_tables(df: int, expected: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)


def test_mean_interval() -> None:
    interval = mean_interval([1.0, 2.0, 3.0, 4.0, 5.0], low=0, high=6)
    assert interval.mean == 3.0 and interval.n == 5
    shrunk = (5 * 2.5 + 6 ** 2 / 4) / 6  # the sample variance 2.5 shrunk toward the widest in [0, 6]
    assert interval.high - 3.0 == pytest.approx(2.7764 * math.sqrt(shrunk) / math.sqrt(5), abs=1e-4)
    one, none = mean_interval([1.0], low=1, high=5), mean_interval([], low=1, high=5)
    assert (one.low, one.high, none.low, none.high) == (1, 5, 1, 5) and math.isnan(none.mean)


def test_duplicate_units_are_complete_boards_and_differences_are_paired() -> None:
    orders = [("a", "b", "c"), ("a", "c", "b"), ("b", "a", "c"),  # board 0: a 4/3, b 2, c 8/3
              ("a", "b", "c"), ("b", "a", "c"), ("a", "b", "c"),  # board 1: a 4/3, b 5/3, c 3
              ("c", "b", "a")]                                     # board 2: incomplete, ignored
    outcomes = [outcome(i, o) for i, o in enumerate(orders)]
    table = units(outcomes, Format.DUPLICATE, 3)
    assert len(table) == 2
    assert table[0] == pytest.approx({"a": 4 / 3, "b": 2, "c": 8 / 3})
    diff = paired_difference(table, "a", "b", 3)
    assert diff.n == 2 and diff.mean == pytest.approx((2 / 3 + 1 / 3) / 2)
    assert -2 <= diff.low <= diff.high <= 2  # a difference of places in a 3-player game
    assert len(units(outcomes, Format.PLAIN, 3)) == 7
    assert ahead_share(outcomes, "a", "b") == (4, 7)


def test_intervals_stay_within_what_places_can_be() -> None:
    """One unit gives an unbounded t-interval; a place is 1..N and a difference of places +-(N-1)."""
    table = [{"a": 1.0, "b": 3.0}]
    assert (mean_place(table, "a", 3).low, mean_place(table, "a", 3).high) == (1, 3)
    diff = paired_difference(table, "a", "b", 3)
    assert (diff.low, diff.high, diff.mean) == (-2, 2, 2.0)
    wide = [{"a": 1.0, "b": 3.0}, {"a": 3.0, "b": 1.0}, {"a": 1.0, "b": 3.0}]
    assert paired_difference(wide, "a", "b", 3).low >= -2


def test_an_interval_from_running_sums_is_the_same() -> None:
    values = [1.0, 2.5, 3.0, 1.5, 2.0]
    direct = mean_interval(values, low=1, high=4, observations=15)
    summed = interval_from_sums(len(values), sum(values), sum(v * v for v in values), low=1, high=4, observations=15)
    assert summed.mean == pytest.approx(direct.mean) and summed.low == pytest.approx(direct.low)
    assert summed.high == pytest.approx(direct.high) and summed.n == direct.n
