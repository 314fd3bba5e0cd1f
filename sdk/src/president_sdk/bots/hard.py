"""The `hard` level (RULES section 4): counts the cards still out and plans its whole hand.

It plays whole groups, lowest first, like `normal`, but reads the public
history (`plan.Plan`: deck - played - own hand) to know which groups the
others can no longer beat, and uses that to:

- run out: when a trick-winning group leaves a hand of unbeatable groups and
  at most one other, it takes the lead with it and plays the rest out;
- keep unbeatable pairs and triples, not just the top rank, to win back the
  lead (a play wins for sure when it is unbeatable, or when nobody is left to
  answer it in this trick);
- with wild cards in the deck, keep the top rank only while counting says it
  will probably hold (wild cards can copy it), else shed it;
- use wild cards to complete a group when following;
- when an opponent could go out on a lead of some size, lead another size;
- start a revolution with a four of a kind when the rest of its hand plans
  better in the reversed order;
- give back the cards that leave the best-planned hand.
"""

from __future__ import annotations

from president_engine import PASS, Action, Observation, Play, Rank, RevolutionTrigger, TrickEnd
from president_engine.events import Passed

from president_sdk.bot import Bot
from president_sdk.bots.normal import fight, kept, whole
from president_sdk.bots.plan import Plan, Weights
from president_sdk.legal import give_backs, going_out, plays


class HardBot(Bot):
    """Card counting and hand planning; see the module docstring."""

    def __init__(self, weights: Weights | None = None) -> None:
        self.weights = weights or Weights()

    def play(self, obs: Observation) -> Action:
        options = plays(obs)
        if not options:
            return PASS
        out = going_out(obs)
        if out is not None:
            return out
        plan = Plan(obs, self.weights)
        leading = obs.table is None
        unanswered = not leading and _nobody_left(obs)
        groups = [p for p in options if _group(obs, p)]

        def wins(play: Play) -> bool:
            assert play.rank is not None
            return unanswered or plan.is_boss(play.rank, play.size, _revolts(obs, play))

        for play in groups:
            if wins(play) and plan.runs_out(obs.hand - play.cards, flipped=_revolts(obs, play)):
                return play
        for play in groups:
            if _revolts(obs, play) and plan.better_reversed(obs.hand - play.cards):
                return play

        def keep(play: Play) -> bool:
            assert play.rank is not None
            if (obs.rules.is_wild_possible and play.rank is obs.top_rank and play.size < 4
                    and not obs.rules.wild_count(play.cards)):
                return plan.safe(play.rank, play.size) >= self.weights.keep_safe
            return kept(obs, play)

        spare = [p for p in groups if not keep(p) and not (p.size > 1 and not unanswered and wins(p))]
        spare = spare or [p for p in groups if not keep(p)]
        if leading:
            if not spare:
                return groups[0] if groups else options[0]
            if any(plan.exposed(p.size) for p in spare) and not all(plan.exposed(p.size) for p in spare):
                return max(spare[:3], key=lambda p: (not plan.exposed(p.size), plan.safe(p.rank or Rank.JOKER, p.size)))
            return spare[0]
        if spare:
            return spare[0]
        if fight(obs):
            return groups[0] if groups else options[0]
        return PASS

    def give_back(self, obs: Observation) -> Action:
        plan = Plan(obs, self.weights)
        return max(give_backs(obs), key=lambda g: plan.value(obs.hand - g.cards, lead=False))


def _group(obs: Observation, play: Play) -> bool:
    """All the natural cards of the play's rank (wild cards may join), or wild cards only."""
    rank = play.rank
    natural = play.cards.count_rank(rank) if rank is not None and rank is not Rank.JOKER else 0
    if natural == 0:
        return obs.rules.wild_count(play.cards) == play.size or whole(obs, play)
    return rank is not None and natural == obs.hand.count_rank(rank)


def _revolts(obs: Observation, play: Play) -> bool:
    rules = obs.rules
    return rules.revolution and RevolutionTrigger.FOUR_OF_A_KIND in rules.revolution_triggers and play.size >= 4


def _nobody_left(obs: Observation) -> bool:
    """No other player can answer a play now: it wins the trick."""
    rules = obs.rules
    holders = {p for p, size in enumerate(obs.hand_sizes) if size and p != obs.player}
    if rules.trick_end is TrickEnd.ONE_ORBIT:
        holders -= {e.player for e in obs.trick}
    elif rules.pass_is_final:
        holders -= {e.player for e in obs.trick if isinstance(e, Passed)}
    return not holders
