"""Playing a scheduled match in this process through the engine, with no server (Python bots only).

For measuring the formats (benchmarks/ladder_formats.py), testing the
ladder's bookkeeping fast, and measuring Python bots such as a trained policy
(examples/learning/evaluate.py): the same schedule, cards and seats as over
the network, without the network.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from president_engine import CardSet, Rules
from president_sdk.bot import Bot
from president_sdk.bots import builtin_bot
from president_sdk.local import play_local

from president_harness.ladder.outcome import Outcome
from president_harness.ladder.schedule import MatchSpec


@dataclass(frozen=True, kw_only=True)
class InProcess:
    """A `MatchPlaying` for built-in levels (``levels``: bot name -> level) and Python bots (``bots``: name ->
    factory)."""

    rules: Rules
    levels: Mapping[str, str]
    bots: Mapping[str, Callable[[int], Bot]] = field(default_factory=dict)
    """Bots that are not built-in levels: a new one for each match, given the match's bot seed."""

    def __call__(self, spec: MatchSpec) -> Outcome:
        hands = [[CardSet(hand) for hand in deal] for deal in spec.hands] or None
        bots = [self.bots[name](spec.seed) if name in self.bots else builtin_bot(self.levels[name], seed=spec.seed)
                for name in spec.bots]
        result = play_local(bots, self.rules, seed=spec.seed, hands=hands)
        return Outcome(index=spec.index, board=spec.board, seating=spec.seating, bots=spec.bots,
                       places=result.places, scores=result.scores,
                       moves=sum(len(deal) for deal in result.match.actions_by_deal()))
