"""Helpers on an observation's legal actions, for bot authors.

The engine lists the legal actions in a fixed order (weakest play first,
``PASS`` last; give-backs worst cards first; requests: nothing first, then
fewer cards, best cards first).  These functions only filter and pick from
that list, so a bot built on them never needs to know the rules in detail::

    play = lowest_play(obs)
    return play if play is not None else PASS
"""

from __future__ import annotations

from president_engine import PASS, Action, CardSet, GiveBack, Observation, Play, Rank, Request

from president_sdk.counting import is_wild, wild_count


def plays(obs: Observation) -> tuple[Play, ...]:
    """The legal plays (no pass), weakest first in the current rank order."""
    return tuple(a for a in obs.legal_actions if isinstance(a, Play))


def can_pass(obs: Observation) -> bool:
    """True when passing is legal now (never for the leader of a trick)."""
    return PASS in obs.legal_actions


def lowest_play(obs: Observation) -> Play | None:
    """The weakest legal play (fewest cards among equals), or None when there is none."""
    return next((a for a in obs.legal_actions if isinstance(a, Play)), None)


def highest_play(obs: Observation) -> Play | None:
    """The strongest legal play, or None when there is none."""
    found = plays(obs)
    return found[-1] if found else None


def plays_of_rank(obs: Observation, rank: Rank) -> tuple[Play, ...]:
    """Legal plays that stand for `rank` (jokers alone stand for `Rank.JOKER`)."""
    return tuple(p for p in plays(obs) if p.rank is rank)


def plays_of_size(obs: Observation, size: int) -> tuple[Play, ...]:
    """Legal plays of exactly `size` cards."""
    return tuple(p for p in plays(obs) if p.size == size)


def natural_plays(obs: Observation) -> tuple[Play, ...]:
    """Legal plays that use no wild card."""
    return tuple(p for p in plays(obs) if wild_count(obs.rules, p.cards) == 0)


def whole_group_plays(obs: Observation) -> tuple[Play, ...]:
    """Legal plays that use no wild card and play every card of their rank in hand (break no pair)."""
    return tuple(p for p in natural_plays(obs) if p.rank is not None and p.size == obs.hand.count_rank(p.rank))


def going_out(obs: Observation) -> Play | None:
    """A legal play of the whole hand, when there is one."""
    size = len(obs.hand)
    return next((p for p in plays(obs) if p.size == size), None)


def give_backs(obs: Observation) -> tuple[GiveBack, ...]:
    """The legal give-backs, worst cards first."""
    return tuple(a for a in obs.legal_actions if isinstance(a, GiveBack))


def requests(obs: Observation) -> tuple[Request, ...]:
    """The legal requests: nothing first, then fewer cards, best cards first."""
    return tuple(a for a in obs.legal_actions if isinstance(a, Request))


def best_request(obs: Observation) -> Request:
    """Ask for the best cards this player does not hold, as many as it is owed (or nothing)."""
    found = requests(obs)
    if not found:
        return Request(CardSet())
    most = max(len(r.cards) for r in found)
    return next(r for r in found if len(r.cards) == most)


def safe_action(obs: Observation) -> Action:
    """An always-legal fallback: pass when allowed, else the first listed action.

    That is the lowest play for a leader, the worst cards for a give-back and
    an empty request.
    """
    if PASS in obs.legal_actions:
        return PASS
    if not obs.legal_actions:
        raise ValueError("no legal action: it is not this player's turn")
    return obs.legal_actions[0]


def uses_wild(obs: Observation, play: Play) -> bool:
    """True when the play contains a wild card."""
    return any(is_wild(obs.rules, card) for card in play.cards.distinct())


def resolve(obs: Observation, action: object) -> Action | None:
    """The legal action `action` stands for, or None when it is not legal now.

    A listed action is returned as is.  Without a suit order, a play or a
    give-back of other cards of the same ranks from the hand is equivalent to
    a listed one (suits change nothing then); it is returned with the listed
    play's rank filled in, keeping the cards the bot chose.
    """
    if action in obs.legal_actions:
        return action
    if isinstance(action, Play) and action.cards <= obs.hand:
        key = _rank_counts(action.cards)
        for listed in plays(obs):
            if action.rank in (None, listed.rank) and _rank_counts(listed.cards) == key and (
                    obs.rules.suit_order is None or listed.cards == action.cards):
                return Play(action.cards, listed.rank)
        return None
    if isinstance(action, GiveBack) and action.cards <= obs.hand and obs.rules.suit_order is None:
        key = _rank_counts(action.cards)
        if any(_rank_counts(g.cards) == key for g in give_backs(obs)):
            return action
    return None


def _rank_counts(cards: CardSet) -> tuple[int, ...]:
    return tuple(cards.count_rank(rank) for rank in Rank)
