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

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from president_harness.ladder.config import Format
from president_harness.ladder.outcome import Outcome

CONFIDENCE = 0.95

Units = list[dict[str, float]]
"""Per unit: each bot's mean place in it."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Interval:
    """A mean with its two-sided 95% confidence interval over `n` units."""

    mean: float
    low: float
    high: float
    n: int

    def within(self, low: float, high: float) -> Interval:
        """The interval cut to what the quantity can be (a place is 1..N): an unbounded end becomes the bound."""
        return Interval(mean=self.mean, low=min(max(self.low, low), high), high=max(min(self.high, high), low),
                        n=self.n)


def t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t with `df` degrees of freedom (p in (0.5, 1))."""
    low, high = 0.0, 1e4
    for _ in range(200):
        mid = (low + high) / 2
        if _t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def mean_interval(values: Sequence[float]) -> Interval:
    """Mean and t-interval of `values` (unbounded with fewer than two)."""
    n = len(values)
    if n == 0:
        return Interval(mean=math.nan, low=-math.inf, high=math.inf, n=0)
    mean = statistics.fmean(values)
    if n < 2:
        return Interval(mean=mean, low=-math.inf, high=math.inf, n=n)
    half = t_quantile(0.5 + CONFIDENCE / 2, n - 1) * statistics.stdev(values) / math.sqrt(n)
    return Interval(mean=mean, low=mean - half, high=mean + half, n=n)


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


def _t_cdf(t: float, df: int) -> float:
    x = df / (df + t * t)
    tail = 0.5 * _betainc(df / 2, 0.5, x)
    return 1 - tail if t >= 0 else tail


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b) (continued fraction, Lentz's method)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    if x > (a + 1) / (a + b + 2):
        return 1 - _betainc(b, a, 1 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 300):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return front * result / a
