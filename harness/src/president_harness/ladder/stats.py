"""Confidence intervals for places, and the paired comparison behind the CI gate.

The *unit* of every interval is what makes results independent enough to
count: a board (all its seatings) in duplicate format, a match in plain
format.  A bot's score in a unit is its mean finishing place there (1 =
first) over every deal it played.  Two bots are compared on the units both
played in: d = place(B) - place(A), so d > 0 means A finished ahead.  In
duplicate format both played the same cards from the same seats, so the
luck of the deal cancels in d.  Intervals are the 95% intervals of a mean of
bounded values (`president_engine.intervals`: a place is 1..players, a
difference of places +-(players - 1)), told how many deals a unit holds;
with fewer than 2 units an interval is all a place (or a difference) can be.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable

from president_engine.intervals import Interval, mean_interval

from president_harness.ladder.config import Format
from president_harness.ladder.outcome import Outcome

Units = list[dict[str, float]]
"""Per unit: each bot's mean place in it."""


def _groups(outcomes: Iterable[Outcome], fmt: Format, board_size: int) -> list[list[Outcome]]:
    """The outcomes of each unit, in unit order; in duplicate only complete boards."""
    groups: dict[int, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        groups[outcome.board if fmt is Format.DUPLICATE else outcome.index].append(outcome)
    return [groups[key] for key in sorted(groups) if fmt is not Format.DUPLICATE or len(groups[key]) >= board_size]


def units(outcomes: Iterable[Outcome], fmt: Format, board_size: int) -> Units:
    """Each unit's mean place per bot; in duplicate only complete boards count (in board order)."""
    out: Units = []
    for group in _groups(outcomes, fmt, board_size):
        places: dict[str, list[int]] = defaultdict(list)
        for outcome in group:
            for order in outcome.orders():
                for place, name in enumerate(order, 1):
                    places[name].append(place)
        out.append({name: statistics.fmean(p) for name, p in places.items()})
    return out


def deals_per_unit(outcomes: Iterable[Outcome], fmt: Format, board_size: int) -> float:
    """How many deals a bot plays in a unit, on average (every bot of a unit plays all of its deals)."""
    counts = [sum(len(outcome.places) for outcome in group) for group in _groups(outcomes, fmt, board_size)]
    return statistics.fmean(counts) if counts else 1.0


def mean_place(table: Units, bot: str, players: int, *, per_unit: float = 1.0) -> Interval:
    """A bot's mean place over the units it played in, within 1..players (`per_unit`: deals in a unit)."""
    values = [unit[bot] for unit in table if bot in unit]
    return mean_interval(values, low=1, high=players, observations=per_unit * len(values))


def paired_difference(table: Units, a: str, b: str, players: int, *, per_unit: float = 1.0) -> Interval:
    """How many places A finishes ahead of B on average, over the units both played (> 0: A better).

    The interval stays within what a difference of places can be: +-(players - 1); `per_unit`: deals in a unit.
    """
    values = [unit[b] - unit[a] for unit in table if a in unit and b in unit]
    return mean_interval(values, low=1 - players, high=players - 1, observations=per_unit * len(values))


def ahead_share(outcomes: Iterable[Outcome], a: str, b: str) -> tuple[int, int]:
    """(deals A finished ahead of B, deals both played)."""
    ahead = total = 0
    for outcome in outcomes:
        for order in outcome.orders():
            if a in order and b in order:
                total += 1
                ahead += order.index(a) < order.index(b)
    return ahead, total
