"""OpenSkill ratings: order from finishing orders, independent of the order results arrive in."""

from __future__ import annotations

import random

from president_harness.ladder.outcome import Outcome
from president_harness.ladder.ratings import rate


def test_consistent_winner_rates_highest_and_arrival_order_does_not_matter() -> None:
    rng = random.Random(3)
    bots = ("w", "x", "y", "z")
    outcomes = []
    for index in range(60):
        rest = ["x", "y", "z"]
        rng.shuffle(rest)
        order = ("w", *rest) if index % 4 else (rest[0], "w", *rest[1:])
        outcomes.append(Outcome(index=index, board=index, seating=0, bots=bots,
                                places=(tuple(bots.index(n) for n in order),), scores=(0, 0, 0, 0)))
    ratings = rate(bots, outcomes)
    assert ratings[0].name == "w" and ratings[0].deals == 60
    assert all(r.ordinal == r.mu - 3 * r.sigma for r in ratings)
    assert ratings[0].sigma < 25 / 3
    shuffled = outcomes[:]
    rng.shuffle(shuffled)
    assert rate(bots, shuffled) == ratings
