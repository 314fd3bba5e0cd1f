"""The `easy` level (RULES section 4): always the lowest legal play.

Its every move is the engine's `fallback_action`, the one the server also
makes for a seat that ran out of time.
"""

from __future__ import annotations

from president_engine import Action, Observation, fallback_action

from president_sdk.bot import Bot


class EasyBot(Bot):
    """Plays the lowest legal play, passes only when it cannot play; default exchange hooks."""

    def play(self, obs: Observation) -> Action:
        return fallback_action(obs.legal_actions)
