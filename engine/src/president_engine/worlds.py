"""Determinized worlds: the state a view shows, with the cards it hides filled in, for search.

A search bot sees an observation, guesses the hidden hands (and hidden
Norwegian requests), and plays the guess out; `World` computes the state
that `Match.from_view` builds a match from, which goes on from there exactly
as the real match would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from president_engine.actions import Play
from president_engine.cards import CardSet, Rank
from president_engine.deal_flow import ExchangeStep
from president_engine.errors import DealError
from president_engine.events import Played
from president_engine.exchange import ExchangePair, exchange_pairs
from president_engine.observation import Observation, PublicObservation
from president_engine.phase import Phase
from president_engine.roles import Role
from president_engine.tables import ALL_PASS, ONE_ORBIT, single_run, tables_for, trick_state


class World:
    """The state a view shows, with `hands[p]` as player p's hand: a deal in progress, seats by index as in `Match`.

    Everything public comes from the view (a spectator's or a player's own);
    the cards it hides are `hands`, and, in a Norwegian exchange, `requests`:
    receiver -> the cards named in requests already made that the view does
    not show.  Passes of earlier tricks are not in a view: a world counts the
    pass limit from this trick.  Hands that do not fit the view raise DealError.
    A plain class whose constructor computes it, which mypyc compiles (a frozen
    dataclass's constructor runs interpreted).
    """

    __slots__ = ("back", "deal", "direction", "hands", "last", "leader", "lock", "mask", "out", "passes",
                 "requests", "rev", "roles", "run_len", "run_rank", "scores", "seats", "sizes", "steps", "table",
                 "table_strength", "tributes", "turn")

    def __init__(self, view: PublicObservation, hands: Sequence[CardSet], requests: Mapping[int, CardSet]) -> None:
        if view.phase is Phase.OVER:
            raise ValueError("the match is over: there is nothing to search")
        rules = view.rules
        n = rules.players
        t = tables_for(rules)
        if len(hands) != n:
            raise DealError(f"{len(hands)} hands for {n} players")
        for p, hand in enumerate(hands):
            if len(hand) != view.hand_sizes[p]:
                raise DealError(f"player {p} holds {view.hand_sizes[p]} cards, not {len(hand)}")
        if isinstance(view, Observation) and hands[view.player] != view.hand:
            raise DealError(f"player {view.player}'s hand is {view.hand}, not {hands[view.player]}")
        if not sum(hands, view.played) <= t.deck:
            raise DealError("the hands and the cards played hold more copies of a card than the deck has")
        seat_of = [0] * n
        for seat, player in enumerate(view.seats):
            seat_of[player] = seat
        self.deal = view.deal
        self.scores = list(view.scores)
        self.roles: list[Role] = list(view.roles)
        self.seats: tuple[int, ...] = tuple(view.seats)
        """The player at each seat."""
        self.hands = [hands[p].bits for p in view.seats]
        """Card bits by seat."""
        self.sizes = [view.hand_sizes[p] for p in view.seats]
        self.out = [seat_of[p] for p in view.places]
        """Seats out in this deal, in order."""
        self.direction = view.direction
        self.rev = 1 if view.reversed else 0
        self.steps: list[ExchangeStep] = []
        """The exchange steps still to come (none in the play phase)."""
        self.tributes: list[ExchangePair] = []
        """The pairs whose tributes are still to pay."""
        self.requests: dict[int, int] = {}
        """Receiver -> the card bits it named in requests already made."""
        leader = turn = 0
        if view.phase is not Phase.PLAY:
            self.steps, self.tributes, self.requests = _exchange_left(view, requests)
        else:
            actor = view.to_act
            assert actor is not None
            leader = seat_of[view.trick[0].player if view.trick else actor]
            turn = seat_of[actor]
        self.leader = leader
        self.turn = turn
        mask = (1 << leader) if t.trick_mode == ONE_ORBIT else 0
        run_rank: Rank | None = None
        run_len = passes = 0
        for entry in view.trick:
            bit = 1 << seat_of[entry.player]
            if isinstance(entry, Played):
                if t.trick_mode == ALL_PASS:
                    mask = 0
                elif t.trick_mode == ONE_ORBIT:
                    mask |= bit
                run_rank, run_len, _ = single_run(run_rank, run_len, entry.play.size, entry.play.rank or Rank.JOKER)
                passes = 0
            else:
                mask |= bit
                if not entry.skipped:
                    run_rank, run_len = None, 0
                    passes += 1
                else:
                    passes = 0
        self.mask = mask
        self.run_rank = run_rank if t.revolution_singles else None
        self.run_len = run_len if t.revolution_singles else 0
        self.passes = passes if t.pass_limit else 0
        self.lock, self.back = trick_state(t, [entry.play for entry in view.trick if isinstance(entry, Played)])
        self.table: Play | None = None
        self.table_strength = -2
        self.last = -1
        """The seat of the play to beat, and of the deal's last play (-1: none)."""
        if view.table is not None and view.table.rank is not None:
            table = self.table = t.interned(view.table)
            self.table_strength = t.facts[id(table)].strength[self.rev ^ self.back]
            self.last = seat_of[view.table_player] if view.table_player is not None else -1


def _exchange_left(view: PublicObservation, requests: Mapping[int, CardSet],
                   ) -> tuple[list[ExchangeStep], list[ExchangePair], dict[int, int]]:
    """The exchange steps still to come at `view` (REQUEST or GIVE_BACK), the tributes still to pay, and the
    requests made before it."""
    pairs = list(exchange_pairs(view.roles))
    if view.phase is Phase.REQUEST:
        done = next(i for i, pair in enumerate(pairs) if pair.receiver == view.to_act)
        asked = {pair.receiver: requests[pair.receiver].bits if pair.receiver in requests else 0
                 for pair in pairs[:done]}
        steps: list[ExchangeStep] = [(Phase.REQUEST, r, g, o) for r, g, o in pairs[done:]]
        steps += [(Phase.GIVE_BACK, r, g, o) for r, g, o in pairs]
        return steps, pairs, asked
    done = sum(1 for given in view.exchange if not given.tribute)
    return [(Phase.GIVE_BACK, r, g, o) for r, g, o in pairs[done:]], [], {}
