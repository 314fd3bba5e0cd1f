"""What a deal is worth to each player: the same two choices in every environment of this package.

Both are zero-sum, so OpenSpiel can treat the game as ZERO_SUM and a learner
sees a bad place as a loss whatever the rules' points are.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum

from president_engine import Rules


class Reward(Enum):
    """PLACES: first +1, last -1, even steps between; POINTS: the rules' points for the place minus their mean."""

    PLACES = "places"
    POINTS = "points"

    @classmethod
    def parse(cls, text: str) -> Reward:
        try:
            return cls(text.lower())
        except ValueError:
            raise ValueError(f"unknown reward {text!r} (known: {', '.join(r.value for r in cls)})") from None

    def for_place(self, rules: Rules, place: int) -> float:
        """The reward of finishing in `place` (0 = first) of one deal."""
        n = rules.players
        if self is Reward.PLACES:
            return (n - 1 - 2 * place) / (n - 1)
        return rules.points[place] - sum(rules.points) / n

    def deal(self, rules: Rules, places: Sequence[int]) -> tuple[float, ...]:
        """Each player's reward for a deal whose finishing order (players, first to last) is `places`."""
        out = [0.0] * rules.players
        for place, player in enumerate(places):
            out[player] = self.for_place(rules, place)
        return tuple(out)

    def bounds(self, rules: Rules) -> tuple[float, float]:
        """The lowest and highest reward of one deal."""
        values = [self.for_place(rules, place) for place in range(rules.players)]
        return min(values), max(values)
