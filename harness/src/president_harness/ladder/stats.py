"""Confidence intervals for places, and the paired comparison behind the CI gate.

The *unit* of every interval is what makes results independent enough to
count: a board (all its seatings) in duplicate format, a match in plain
format.  A bot's score in a unit is its mean finishing place there (1 =
first) over every deal it played.  Two bots are compared on the units both
played in: d = place(B) - place(A), so d > 0 means A finished ahead.  In
duplicate format both played the same cards from the same seats, so the
luck of the deal cancels in d.  Intervals are Student-t 95% intervals of a
mean; with fewer than 2 units an interval is unbounded.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable

from president_service.intervals import Interval, mean_interval

from president_harness.ladder.config import Format
from president_harness.ladder.outcome import Outcome

Units = list[dict[str, float]]
"""Per unit: each bot's mean place in it."""


def units(outcomes: Iterable[Outcome], fmt: Format, board_size: int) -> Units:
    """Each unit's mean place per bot; in duplicate only complete boards count (in board order)."""
    groups: dict[int, list[Outcome]] = defaultdict(list)
    for outcome in outcomes:
        groups[outcome.board if fmt is Format.DUPLICATE else outcome.index].append(outcome)
    out: Units = []
    for key in sorted(groups):
        group = groups[key]
        if fmt is Format.DUPLICATE and len(group) < board_size:
            continue
        places: dict[str, list[int]] = defaultdict(list)
        for outcome in group:
            for order in outcome.orders():
                for place, name in enumerate(order, 1):
                    places[name].append(place)
        out.append({name: statistics.fmean(p) for name, p in places.items()})
    return out


def mean_place(table: Units, bot: str, players: int) -> Interval:
    """A bot's mean place over the units it played in, its interval within 1..players."""
    return mean_interval([unit[bot] for unit in table if bot in unit]).within(1, players)


def paired_difference(table: Units, a: str, b: str, players: int) -> Interval:
    """How many places A finishes ahead of B on average, over the units both played (> 0: A better).

    The interval stays within what a difference of places can be: +-(players - 1).
    """
    values = [unit[b] - unit[a] for unit in table if a in unit and b in unit]
    return mean_interval(values).within(1 - players, players - 1)


def ahead_share(outcomes: Iterable[Outcome], a: str, b: str) -> tuple[int, int]:
    """(deals A finished ahead of B, deals both played)."""
    ahead = total = 0
    for outcome in outcomes:
        for order in outcome.orders():
            if a in order and b in order:
                total += 1
                ahead += order.index(a) < order.index(b)
    return ahead, total
