"""What a finishing place is worth beyond its deal: the role it gives in the next deal's exchange.

In a match of several deals a player's place gives it its role in the next deal, and the exchange moves cards by
role (RULES 1.4: the President starts the next deal with the Scum's best cards).  So a place is worth its points
now and the points its role can expect next deal.  Those expectations are measured, not assumed: the playout
policy plays SAMPLES matches of two deals from seeded deals (their own: the same numbers on every machine), and
each role's points in the second deal are averaged.  A search pays for the measuring out of its own clock, at
most SHARE of each decision's budget, and it is kept for the rule set in this process; until it is complete a
place is worth its place alone, as in a match of one deal.
"""

from __future__ import annotations

import dataclasses
import statistics
import threading

from president_engine import Match, Role, Rules
from president_engine.events import DealEnded
from president_engine.roles import roles_by_place

from president_sdk.bots.expert.clock import Clock
from president_sdk.bots.expert.rollout import Rollout

SAMPLES = 120
"""Two-deal matches played to measure a rule set's roles."""
SHARE = 0.1
"""Share of a decision's budget the measuring may take."""


class NextDeal:
    """The points each role can expect in the next deal under one rule set, measured a match at a time."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._two = dataclasses.replace(rules, deals=2, target_score=None, rank_reset_every=None)
        self._rollout = Rollout(self._two)
        self._points: dict[Role, list[int]] = {}
        self.played = 0
        """Sample matches played so far."""
        self._lock = threading.Lock()
        """Held while measuring: experts deciding in other threads of this process skip it meanwhile."""

    @property
    def measured(self) -> bool:
        return self.played >= SAMPLES

    def measure(self, clock: Clock | None, budget: float | None) -> None:
        """Play sample matches until all are played, or (with a clock) until SHARE of `budget` is spent."""
        if not self._lock.acquire(blocking=clock is None):
            return
        try:
            while not self.measured and (clock is None or budget is None or clock.left() > (1 - SHARE) * budget):
                self._play_one()
        finally:
            self._lock.release()

    def _play_one(self) -> None:
        match = Match(self._two, seed=self.played)
        second = self._rollout.finish(match)
        first = next(e.places for e in match.events if isinstance(e, DealEnded))
        roles = roles_by_place(self.rules.players)
        role_of = {player: roles[place] for place, player in enumerate(first)}
        for place, player in enumerate(second):
            self._points.setdefault(role_of[player], []).append(self.rules.points[place])
        self.played += 1

    def follows(self, deal: int) -> bool:
        """Whether an exchange in the next deal follows from the places of `deal` (else its worth is its place)."""
        rules = self.rules
        return rules.exchange and not (rules.deals is not None and deal >= rules.deals) and not rules.fresh_deal(
            deal + 1)

    def values(self, deal: int) -> tuple[float, ...] | None:
        """Each finishing place's worth (first place first), scaled to 1 (best) .. 0 (worst), in `deal` of a match
        of these rules: its points and its role's expected points next deal.  None when no exchange of a next deal
        follows from this deal's places, or while the measuring is not complete."""
        rules = self.rules
        if not self.follows(deal) or not self.measured:
            return None
        roles = roles_by_place(rules.players)
        worth = [points + statistics.fmean(self._points[role])
                 for points, role in zip(rules.points, roles, strict=True)]
        top, bottom = max(worth), min(worth)
        if top == bottom:
            return None
        return tuple((value - bottom) / (top - bottom) for value in worth)


_MEASURED: dict[Rules, NextDeal] = {}


def next_deal(rules: Rules) -> NextDeal:
    """The measure of `rules`, shared by every expert of this process."""
    found = _MEASURED.get(rules)
    if found is None:
        found = _MEASURED[rules] = NextDeal(rules)
    return found
