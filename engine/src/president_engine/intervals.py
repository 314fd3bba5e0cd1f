"""95% confidence intervals of a mean of bounded values (places, differences of places): the ladder's and the arena's.

A Student-t interval trusts the sample's spread, and a few bounded, discrete
values often have none: three matches that all ended in 4th place would give
[4.00, 4.00], a certainty three matches cannot give.  So the sample variance
is shrunk toward the largest variance a value in [low, high] can have,
(high - low)² / 4, with the weight of one pseudo-observation among the N
observations behind the interval:

    s²' = (N·s² + (high - low)² / (4m)) / (N + 1),   m = N / n

where the n values are means of m observations each (a match's deals, a
board's: N deals in all; m = 1 when a value is one observation, and then
s²' = (n·s² + (high - low)² / 4) / (n + 1)).  A mean of m independent
observations varies m times less than one, hence the 4m; and the weight of
one observation in N is what lets a large sample speak for itself: the
interval is that of Student's t with n - 1 degrees of freedom and s²', and
it is never of zero width once n >= 2 and low < high, while at large N it is
the plain t-interval.  It is cut to [low, high]; with fewer than two values
it is all of [low, high].
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

CONFIDENCE = 0.95


@dataclass(frozen=True, kw_only=True, slots=True)
class Interval:
    """A mean with its two-sided 95% confidence interval over `n` units."""

    mean: float
    low: float
    high: float
    n: int


@lru_cache(maxsize=1024)
def t_quantile(p: float, df: int) -> float:
    """The p-quantile of Student's t with `df` degrees of freedom (p in (0.5, 1)); kept, as a report asks for the
    same few again and again."""
    low, high = 0.0, 1e4
    for _ in range(200):
        mid = (low + high) / 2
        if _t_cdf(mid, df) < p:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def mean_interval(values: Sequence[float], *, low: float, high: float, observations: float | None = None) -> Interval:
    """Mean and interval of `values`, each within [low, high]; `observations`: how many single observations
    the values average in all (default: one each)."""
    n = len(values)
    mean = statistics.fmean(values) if n else math.nan
    variance = statistics.variance(values) if n >= 2 else 0.0
    return _interval(n, mean, variance, low=low, high=high, observations=observations)


def interval_from_sums(n: int, total: float, squares: float, *, low: float, high: float,
                       observations: float | None = None) -> Interval:
    """The same interval from running sums (count, sum, sum of squares), as a store keeps them."""
    mean = total / n if n else math.nan
    variance = max(0.0, (squares - n * mean * mean) / (n - 1)) if n >= 2 else 0.0
    return _interval(n, mean, variance, low=low, high=high, observations=observations)


def _interval(n: int, mean: float, variance: float, *, low: float, high: float,
              observations: float | None) -> Interval:
    if n < 2:
        return Interval(mean=mean, low=low, high=high, n=n)
    total = max(float(observations if observations is not None else n), n)  # a value is at least one observation
    shrunk = (total * variance + (high - low) ** 2 / (4 * total / n)) / (total + 1)
    half = t_quantile(0.5 + CONFIDENCE / 2, n - 1) * math.sqrt(shrunk / n)
    return Interval(mean=mean, low=max(mean - half, low), high=min(mean + half, high), n=n)


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
