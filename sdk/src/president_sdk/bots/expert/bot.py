"""The `expert` level: determinized Monte Carlo search on the engine.

For each decision (a play, a give-back, a Norwegian request) it samples the
hidden hands consistently with everything this player has seen, weighted by
how plausible the opponents' play was (worlds.py); rebuilds each sample as an
engine state (`Match.from_view`); plays every candidate action out many
times with a fast policy (rollout.py), spread over the candidates by UCB1
(search.py); and answers the candidate with the best mean place (in a match
of several deals, the best mean worth of a place with the next deal's
exchange it leads to: next_deal.py).  When only two players hold cards,
nothing is hidden any more and the deal is solved exactly (endgame.py).

It reads only its observation and the events shown to it, and it keeps to
a time budget per decision (`budget` seconds of its thread's CPU time, default
0.1, with a wall-clock backstop; clock.py), counted from the moment it is asked,
and a playout cap (`playouts`): with ``budget=None`` only the cap counts, and a
bot made with a seed then repeats every decision exactly.  With no time left
for a single evaluation (a zero budget, say) it answers the `hard` level's
choice, the anchor of every search.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable, Sequence

from president_engine import Action, CardSet, Event, Match, Observation, Play, Request
from president_engine.events import DealStarted

from president_sdk.bot import Bot
from president_sdk.bots.expert.clock import Clock, TimeUpError, collector_held
from president_sdk.bots.expert.endgame import solve
from president_sdk.bots.expert.knowledge import DealKnowledge
from president_sdk.bots.expert.next_deal import next_deal
from president_sdk.bots.expert.rollout import Rollout
from president_sdk.bots.expert.search import WorldPool, search
from president_sdk.bots.expert.worlds import PlayModel, Sampler
from president_sdk.bots.hard import HardBot
from president_sdk.bots.plan import Plan, Weights
from president_sdk.legal import give_backs, going_out, plays

BUDGET = 0.1
"""Seconds of CPU time per decision by default."""
PLAYOUTS = 10_000
"""Playouts per decision at most, by default: above what the default budget affords with the C playout, so that the
budget ends the search (docs/expert.md)."""
CANDIDATES = 10
"""At most this many actions are searched; wider choices are cut to the most promising first."""
ENDGAME_SHARE = 0.5
"""Share of the budget the exact endgame may take before the search takes over."""
REQUEST_CARDS = 4
"""Requests considered name only this many of the best cards this player does not hold."""


class ExpertBot(Bot):
    """Determinized Monte Carlo search; see the module docstring."""

    def __init__(self, seed: int | None = None, *, budget: float | None = BUDGET, playouts: int = PLAYOUTS,
                 beyond_the_deal: bool = True) -> None:
        self.budget = budget
        self.playouts = playouts
        self.beyond_the_deal = beyond_the_deal
        """In a match of several deals, value a place with the next deal's exchange it leads to (next_deal.py)."""
        self._rng = random.Random(seed)
        self._knowledge = DealKnowledge()
        self._helpers: tuple[PlayModel, Rollout] | None = None
        self._hard = HardBot()
        """The anchor of every search: the `hard` level's own choice."""
        self.last_playouts = 0
        """Playouts of the last decision (0 when it needed no search or had no time for one)."""
        self.last_searched = False
        """Whether the last decision was searched on its clock (the endgame or the Monte Carlo search ran): not
        forced, not obvious.  A benchmark times these."""

    def on_event(self, event: Event) -> None:
        if isinstance(event, DealStarted):
            self._knowledge = DealKnowledge(event.deal)
        else:
            self._knowledge.see(event)

    def play(self, obs: Observation) -> Action:
        clock = self._start()
        legal = obs.legal_actions
        if len(legal) == 1:
            return legal[0]
        out = going_out(obs)
        if out is not None:
            return out
        holders = [p for p, size in enumerate(obs.hand_sizes) if size and p != obs.player]
        hidden = obs.rules.deck - obs.played - obs.hand
        if len(holders) == 1 and len(hidden) == obs.hand_sizes[holders[0]]:  # nothing is hidden any more
            hands = [CardSet()] * obs.rules.players
            hands[obs.player], hands[holders[0]] = obs.hand, hidden
            endgame = None if self.budget is None else Clock(self.budget * ENDGAME_SHARE)
            self.last_searched = True
            solved = solve(Match.from_view(obs, hands), obs.player, clock=endgame)
            if solved is not None:
                return next(a for a in legal if a == solved)
        return self._search(obs, self._play_candidates(obs), clock)

    def give_back(self, obs: Observation) -> Action:
        clock = self._start()
        options = give_backs(obs)
        if len(options) > CANDIDATES:
            plan = Plan(obs, Weights())
            options = tuple(sorted(options, key=lambda g: -plan.value(obs.hand - g.cards, lead=False))[:CANDIDATES])
        return self._search(obs, options, clock)

    def request(self, obs: Observation) -> Action:
        clock = self._start()
        wanted = [card for card in obs.rules.best_first if obs.hand.count(card) < obs.rules.deck.count(card)]
        best = set(wanted[:REQUEST_CARDS])
        options = [a for a in obs.legal_actions
                   if isinstance(a, Request) and all(card in best for card in a.cards.distinct())]
        return self._search(obs, options[:CANDIDATES * 2], clock)

    def _play_candidates(self, obs: Observation) -> list[Action]:
        legal = list(obs.legal_actions)
        if len(legal) <= CANDIDATES:
            return legal
        natural = [p for p in plays(obs) if not obs.rules.wild_count(p.cards)]
        whole = [p for p in natural if p.rank is not None and obs.hand.count_rank(p.rank) == p.size]
        chosen: list[Action] = []
        for group in (whole, natural, legal):
            for action in group:
                if action not in chosen and len(chosen) < CANDIDATES - 1:
                    chosen.append(action)
        if not isinstance(legal[-1], Play) and legal[-1] not in chosen:
            chosen.append(legal[-1])  # pass
        return chosen

    def _tools(self, obs: Observation) -> tuple[PlayModel, Rollout]:
        if self._helpers is None or self._helpers[1].rules != obs.rules:
            self._helpers = PlayModel(obs.rules), Rollout(obs.rules)
        return self._helpers

    def _start(self) -> Clock | None:
        """A decision begins: its clock (None with no budget), started before anything else is done."""
        self.last_playouts = 0
        self.last_searched = False
        return None if self.budget is None else Clock(self.budget)

    def _search(self, obs: Observation, candidates: Sequence[Action], clock: Clock | None) -> Action:
        preferred = self._hard.decide(obs)
        if preferred not in candidates:
            candidates = [preferred, *candidates]
        if len(candidates) == 1:
            return candidates[0]
        self.last_searched = True
        with collector_held() if clock is not None else contextlib.nullcontext():
            return self._search_worlds(obs, candidates, preferred, clock)

    def _worlds(self, obs: Observation, model: PlayModel) -> Callable[[], tuple[list[CardSet], float]]:
        """Where a search's worlds come from: samples of everyone's hands that fit what this player has seen, each
        with its weight (worlds.py)."""
        knowledge = self._knowledge if self._knowledge.agrees_with(obs) else None
        return Sampler(obs, knowledge, model, self._rng).sample

    def _search_worlds(self, obs: Observation, candidates: Sequence[Action], preferred: Action,
                       clock: Clock | None) -> Action:
        """The search itself, apart so that its worlds are freed (by reference count) before the collector is back
        on: a collection that found them all still held would be a pause of its own."""
        model, rollout = self._tools(obs)
        values = None
        stakes = next_deal(obs.rules)
        if self.beyond_the_deal and stakes.follows(obs.deal):  # measured only where it will be used
            stakes.measure(clock, self.budget)
            values = stakes.values(obs.deal)
        pool = WorldPool(self._worlds(obs, model), lambda hands: Match.from_view(obs, hands), self._rng)
        try:
            first = pool.world(pool.draw(0, clock))
        except TimeUpError:  # no time even for the first worlds: the anchor, as after a search with no playout
            return preferred
        actions = [first.check(c) for c in candidates]
        anchor = candidates.index(preferred)
        result = search(actions, anchor, pool, rollout, obs.player, playouts=self.playouts, clock=clock, values=values)
        self.last_playouts = result.playouts
        return candidates[actions.index(result.action)]
