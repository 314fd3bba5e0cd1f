"""The `easy` level (RULES section 4): always the lowest legal play."""

from __future__ import annotations

from president_engine import PASS, Action, Observation

from president_sdk.bot import Bot
from president_sdk.legal import lowest_play


class EasyBot(Bot):
    """Plays the lowest legal play, passes only when it cannot play; default exchange hooks."""

    def play(self, obs: Observation) -> Action:
        play = lowest_play(obs)
        return PASS if play is None else play
