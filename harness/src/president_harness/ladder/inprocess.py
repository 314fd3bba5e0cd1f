"""Playing a scheduled match in this process through the engine, with no server (built-in bots only).

For measuring the formats (benchmarks/ladder_formats.py) and testing the
ladder's bookkeeping fast: the same schedule, cards and seats as over the
network, without the network.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from president_engine import CardSet, Rules
from president_sdk.bots import builtin_bot
from president_sdk.local import play_local

from president_harness.ladder.outcome import Outcome
from president_harness.ladder.schedule import MatchSpec


@dataclass(frozen=True, kw_only=True)
class InProcess:
    """A `Play` for built-in levels: ``levels`` maps each bot name to its level."""

    rules: Rules
    levels: Mapping[str, str]

    def __call__(self, spec: MatchSpec) -> Outcome:
        hands = [[CardSet(hand) for hand in deal] for deal in spec.hands] or None
        bots = [builtin_bot(self.levels[name], seed=spec.seed) for name in spec.bots]
        result = play_local(bots, self.rules, seed=spec.seed, hands=hands)
        return Outcome(index=spec.index, board=spec.board, seating=spec.seating, bots=spec.bots,
                       places=result.places, scores=result.scores)
