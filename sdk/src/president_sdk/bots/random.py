"""The `random` level: any legal action, uniformly (the baseline every bot should beat)."""

from __future__ import annotations

import random

from president_engine import Action, Observation

from president_sdk.bot import Bot


class RandomBot(Bot):
    """Picks uniformly among the legal actions, in every phase."""

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def play(self, obs: Observation) -> Action:
        return self._rng.choice(obs.legal_actions)

    def give_back(self, obs: Observation) -> Action:
        return self._rng.choice(obs.legal_actions)

    def request(self, obs: Observation) -> Action:
        return self._rng.choice(obs.legal_actions)
