"""Reading the public history: the cards this player has not seen.

Everything here is computed from an `Observation` alone, so a bot that uses
it sees no more than the server would show it.  The rule facts it builds on
(which cards are wild, where a rank stands) are the engine's: `obs.rules`
(`is_wild`, `wild_count`, `natural_ranks`, `strength`) and `obs.strength`,
`obs.top_rank` for the current order.
"""

from __future__ import annotations

from president_engine import CardSet, Observation


def unseen(obs: Observation) -> CardSet:
    """Cards this player has not seen: held by the others (nobody else holds any card)."""
    return obs.rules.deck - obs.played - obs.hand
