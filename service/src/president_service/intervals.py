"""95% confidence intervals of a mean (Student's t), for places: the ladder's and the arena's.

A place is 1..N, so an interval is cut to what the quantity can be
(`Interval.within`); with fewer than two values it is unbounded.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

CONFIDENCE = 0.95


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


def interval_from_sums(n: int, total: float, squares: float) -> Interval:
    """The same interval from running sums (count, sum, sum of squares), as a store keeps them."""
    if n == 0:
        return Interval(mean=math.nan, low=-math.inf, high=math.inf, n=0)
    mean = total / n
    if n < 2:
        return Interval(mean=mean, low=-math.inf, high=math.inf, n=n)
    variance = max(0.0, (squares - n * mean * mean) / (n - 1))
    half = t_quantile(0.5 + CONFIDENCE / 2, n - 1) * math.sqrt(variance / n)
    return Interval(mean=mean, low=mean - half, high=mean + half, n=n)


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
