"""OpenSkill ratings (Plackett-Luce) from each deal's finishing order.

Every deal is one game whose ranking is its finishing order.  Updates are
applied in schedule order (match index, then deal), never in the order
matches happened to finish, so a ladder run in parallel, on Ray or resumed
gives the same ratings as one run in sequence.  The ordinal mu - 3 sigma is
the rating the table shows and is ordered by, as every leaderboard
(`president_service.league.arena_ratings.rank_key`).  The model is the arena's
(`rating_model`), without drift: a ladder's bots are fixed programs
(benchmarks/ladder_formats.py measures the ordering).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from president_service.league.arena_ratings import ordinal, rate_deals, rating_model

from president_harness.ladder.outcome import Outcome


@dataclass(frozen=True, kw_only=True, slots=True)
class Rating:
    """One bot's rating after the ladder."""

    name: str
    mu: float
    sigma: float
    deals: int

    @property
    def ordinal(self) -> float:
        """The rating shown (`president_service.league.arena_ratings.ordinal`)."""
        return ordinal(self.mu, self.sigma)


def rate(names: Sequence[str], outcomes: Iterable[Outcome]) -> list[Rating]:
    """Ratings of `names` from `outcomes`, best ordinal first."""
    model = rating_model(skill_drifts=False)
    current = {name: model.rating(name=name) for name in names}
    orders = [order for outcome in sorted(outcomes, key=lambda o: o.index) for order in outcome.orders()]
    rate_deals(model, current, orders)
    deals = dict.fromkeys(names, 0)
    for order in orders:
        for name in order:
            deals[name] += 1
    ratings = [Rating(name=n, mu=current[n].mu, sigma=current[n].sigma, deals=deals[n]) for n in names]
    return sorted(ratings, key=lambda r: r.ordinal, reverse=True)
