"""The bounded mean interval: never of zero width on a few values, the plain t-interval on many, and it covers."""

from __future__ import annotations

import math
import random
import statistics

from hypothesis import given, settings
from hypothesis import strategies as st
from president_engine.intervals import interval_from_sums, mean_interval, t_quantile
from president_service.league.arena_ratings import AccountRecord

PLACES = st.lists(st.integers(1, 4), min_size=2, max_size=40)


@settings(max_examples=200, deadline=None)
@given(values=PLACES, per_value=st.integers(1, 48))
def test_an_interval_of_two_or_more_values_is_never_of_zero_width(values: list[int], per_value: int) -> None:
    found = mean_interval([float(v) for v in values], low=1, high=4, observations=per_value * len(values))
    assert 1 <= found.low <= found.mean <= found.high <= 4
    assert found.high - found.low > 0


@settings(max_examples=100, deadline=None)
@given(values=st.lists(st.floats(-3, 3), min_size=2, max_size=30), per_value=st.integers(1, 24))
def test_the_running_sums_give_the_same_interval(values: list[float], per_value: int) -> None:
    direct = mean_interval(values, low=-3, high=3, observations=per_value * len(values))
    summed = interval_from_sums(len(values), sum(values), sum(v * v for v in values), low=-3, high=3,
                                observations=per_value * len(values))
    assert math.isclose(direct.low, summed.low, abs_tol=1e-6) and math.isclose(direct.high, summed.high, abs_tol=1e-6)


def test_three_last_places_leave_most_places_possible() -> None:
    """The issue's case: `mean place 4.00 [4.00, 4.00]  3 matches` claimed a certainty three matches cannot give."""
    standing = AccountRecord(account="new", mu=20.0, sigma=7.0, matches=3, deals=3, place_sum=12.0, place_squares=48.0)
    place = standing.place(4)
    assert place.mean == 4 and place.high == 4 and place.low < 2.5


def test_a_large_sample_keeps_the_plain_t_interval() -> None:
    rng = random.Random(5)
    values = [float(rng.choice((1, 2, 2, 3, 3, 4))) for _ in range(2000)]
    found = mean_interval(values, low=1, high=4)
    plain = t_quantile(0.975, len(values) - 1) * statistics.stdev(values) / math.sqrt(len(values))
    assert math.isclose(found.high - found.mean, plain, rel_tol=0.01)


def test_boards_of_many_deals_are_barely_widened() -> None:
    """A board's value averages its deals, so one pseudo-deal weighs little beside a few boards' spread."""
    rng = random.Random(9)
    boards = [1.0 + rng.gauss(0, 0.15) for _ in range(6)]
    found = mean_interval(boards, low=-3, high=3, observations=24 * len(boards))
    plain = t_quantile(0.975, len(boards) - 1) * statistics.stdev(boards) / math.sqrt(len(boards))
    assert plain < found.high - found.mean < 1.5 * plain


def test_the_interval_covers_the_mean_of_skewed_places() -> None:
    """Single places drawn from lopsided distributions: the 95% interval covers the true mean nearly that often
    even at two or three matches, where the plain t-interval is often a point."""
    rng = random.Random(11)
    for weights in ((0.25, 0.25, 0.25, 0.25), (0.05, 0.05, 0.1, 0.8), (0.02, 0.0, 0.0, 0.98), (0.5, 0.0, 0.0, 0.5)):
        truth = sum(place * w for place, w in zip((1, 2, 3, 4), weights, strict=True))
        for n in (2, 3, 5, 10, 30):
            covered = 0
            for _ in range(400):
                sample = [float(p) for p in rng.choices((1, 2, 3, 4), weights, k=n)]
                found = mean_interval(sample, low=1, high=4)
                covered += found.low <= truth <= found.high
            assert covered / 400 >= 0.85, (weights, n, covered)
