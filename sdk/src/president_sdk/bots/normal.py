"""The `normal` level (RULES section 4): keeps its strongest cards to win back the lead.

It holds back the top rank of the current order (2s, or 3s after a
revolution), high jokers, wild cards and fours of a kind; it plays whole
groups only, so it never breaks a pair or a triple without need; and it
spends what it kept only near the end of its hand or when an opponent is
about to go out.
"""

from __future__ import annotations

from president_engine import PASS, Action, Observation, Play, Rank

from president_sdk.bot import Bot
from president_sdk.legal import give_backs, going_out, plays

FIGHT_GROUPS = 2
"""Spend kept cards once the hand is down to this many groups (or an opponent to this many cards)."""


class NormalBot(Bot):
    """Lowest whole group first; keeps top cards and fours for when it needs the lead."""

    def play(self, obs: Observation) -> Action:
        options = plays(obs)
        if not options:
            return PASS
        out = going_out(obs)
        if out is not None:
            return out
        groups = [p for p in options if whole(obs, p)]
        spare = [p for p in groups if not kept(obs, p)]
        if spare:
            return spare[0]
        if obs.table is None or fight(obs):
            return groups[0] if groups else options[0]
        return PASS

    def give_back(self, obs: Observation) -> Action:
        """The worst cards that are singles in hand and not kept; else the worst cards."""
        top = obs.top_rank
        for give in give_backs(obs):
            if all(obs.hand.count_rank(c.rank) == give.cards.count_rank(c.rank) and c.rank is not top
                   and obs.rules.wild_count(give.cards) == 0 for c in give.cards.distinct()):
                return give
        return obs.legal_actions[0]


def whole(obs: Observation, play: Play) -> bool:
    """A play of all the natural cards of its rank, no wild card: breaks nothing."""
    rules = obs.rules
    if rules.wild_count(play.cards):
        return False
    if play.rank is Rank.JOKER:
        return play.size == rules.plain_joker_count(obs.hand)
    return play.rank is not None and play.size == obs.hand.count_rank(play.rank)


def kept(obs: Observation, play: Play) -> bool:
    if play.size >= 4 or play.rank is obs.top_rank or obs.rules.wild_count(play.cards):
        return True
    return play.rank is Rank.JOKER and obs.strength(Rank.JOKER) > obs.strength(obs.top_rank)


def fight(obs: Observation) -> bool:
    rules = obs.rules
    ranks = {c.rank for c in obs.hand.distinct()} - set(rules.wild_ranks)
    if rules.joker_wild:
        ranks.discard(Rank.JOKER)
    groups = len(ranks) + (1 if rules.wild_count(obs.hand) else 0)
    others = [size for p, size in enumerate(obs.hand_sizes) if p != obs.player and size]
    return groups <= FIGHT_GROUPS or min(others, default=99) <= FIGHT_GROUPS


