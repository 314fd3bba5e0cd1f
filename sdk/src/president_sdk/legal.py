"""Helpers on an observation's legal actions, for bot authors.

The engine lists the legal actions in a fixed order (weakest play first,
``PASS`` last; give-backs worst cards first; requests: nothing first, then
fewer cards, best cards first).  These functions only filter and pick from
that list, so a bot built on them never needs to know the rules in detail::

    play = lowest_play(obs)
    return play if play is not None else PASS
"""

from __future__ import annotations

from president_engine import PASS, Action, GiveBack, Observation, Play, Rank


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
    return tuple(p for p in plays(obs) if obs.rules.wild_count(p.cards) == 0)


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


def resolve(obs: Observation, action: object) -> Action | None:
    """The legal action `action` stands for, or None when it is not legal now.

    A listed action is returned as is.  An action of other cards that the
    rules make the same choice (`Rules.interchangeable`: without a suit order,
    the same number of cards of each rank) is returned with the listed play's
    rank and declaration filled in, keeping the cards the bot chose.  A play
    may give its `rank` instead of `declared` for a follow of wild cards
    alone, as the wire protocol does.
    """
    if action in obs.legal_actions:
        return action
    interchangeable = obs.rules.interchangeable
    if isinstance(action, Play) and action.cards <= obs.hand:
        for listed in plays(obs):
            if not interchangeable(action.cards, listed.cards) or action.rank not in (None, listed.rank):
                continue
            if action.declared is listed.declared or (action.declared is None and action.rank is listed.declared):
                return Play(action.cards, listed.declared, rank=listed.rank)
        return None
    if isinstance(action, GiveBack) and action.cards <= obs.hand and any(
            interchangeable(action.cards, g.cards) for g in give_backs(obs)):
        return action
    return None
