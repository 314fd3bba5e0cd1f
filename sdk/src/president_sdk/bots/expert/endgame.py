"""The exact endgame: with two players left holding cards, nothing is hidden, and the deal can be solved.

The other player's hand is every card not yet seen, so the state is known
exactly.  The deal ends when one of the two goes out, so the question is
only who does first: an AND-OR search (this player needs one winning action,
the other player's every action must still lose for them), with the states
already solved remembered.  It gives up (None) at its node limit or when
its clock runs out; it also answers None when every action loses against
perfect play, leaving the choice to the Monte Carlo search, which plays for
the other player's mistakes.
"""

from __future__ import annotations

from president_engine import Action, Match, Play, RevolutionTrigger

from president_sdk.bots.expert.clock import Clock

NODES = 20_000
"""States searched at most before giving up."""


class _LimitError(Exception):
    """The node limit was reached or the clock ran out."""


def solve(world: Match, player: int, *, clock: Clock | None, nodes: int = NODES) -> Action | None:
    """An action of `player` that goes out before the other player whatever they do, or None (see above)."""
    remember = not (world.rules.revolution and RevolutionTrigger.FOUR_SINGLES in world.rules.revolution_triggers)
    solver = _Solver(player, remember, clock, nodes)  # four singles: the run so far is not in the public state
    if clock is not None and clock.left() <= 0:
        return None
    try:
        for action in solver.ordered(world):
            child = world.copy()
            child.apply(action)
            if solver.wins(child):
                return action
    except _LimitError:
        return None
    return None


class _Solver:
    def __init__(self, player: int, remember: bool, clock: Clock | None, nodes: int) -> None:
        self.player = player
        self.remember = remember
        self.clock = clock
        self.nodes = nodes
        self.known: dict[tuple[object, ...], bool] = {}

    def wins(self, world: Match) -> bool:
        """Does `player` go out before the other holder from here, with best play on both sides?"""
        if world.is_over:  # the one left holding cards took the last place
            return world.last_places[-1] != self.player
        key = self._key(world) if self.remember else None
        if key is not None:
            found = self.known.get(key)
            if found is not None:
                return found
        self.nodes -= 1
        if self.nodes < 0 or (self.clock is not None and self.nodes % 256 == 0 and self.clock.left() <= 0):
            raise _LimitError
        mine = world.to_act == self.player
        result = not mine
        for action in self.ordered(world):
            child = world.copy()
            child.apply(action)
            if self.wins(child) == mine:
                result = mine
                break
        if key is not None:
            self.known[key] = result
        return result

    @staticmethod
    def ordered(world: Match) -> list[Action]:
        """Actions to try first: a play that empties the hand, then the strongest plays, pass last."""
        legal = world.legal_actions()
        actor = world.to_act
        assert actor is not None
        held = world.hand_sizes()[actor]
        plays = [a for a in legal if isinstance(a, Play)]
        rest = [a for a in legal if not isinstance(a, Play)]
        return [p for p in plays if p.size == held] + [p for p in reversed(plays) if p.size != held] + rest

    @staticmethod
    def _key(world: Match) -> tuple[object, ...]:
        table = world.table
        return (tuple(world.hand(p).bits for p in range(world.rules.players)),
                None if table is None else (table.bits, table.rank), world.to_act, world.reversed,
                world.direction, world.passed_players(), world.table_player)
