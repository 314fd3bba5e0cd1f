"""Reading a hand and the public history: strengths, wild cards, cards still out.

Everything here is computed from an `Observation` (or its rules) alone, so a
bot that uses it sees no more than the server would show it.
"""

from __future__ import annotations

from collections.abc import Sequence

from president_engine import Card, CardSet, JokerAlone, Observation, Rank, Rules
from president_engine.cards import full_deck

JOKER_HIGH = 13
"""Strength of jokers played alone when they rank high (above every position 0..12)."""
JOKER_LOW = -1


def joker_strength(rules: Rules) -> int:
    """Where a play of jokers alone stands: above or below every rank."""
    return JOKER_LOW if rules.joker_alone is JokerAlone.LOW else JOKER_HIGH


def strengths(order: Sequence[Rank], rules: Rules) -> dict[Rank, int]:
    """Position of each rank in `order` (0 = weakest), jokers at their fixed place."""
    out = {rank: position for position, rank in enumerate(order)}
    out[Rank.JOKER] = joker_strength(rules)
    return out


def strength(obs: Observation, rank: Rank) -> int:
    """Position of `rank` in the current order (0 = weakest, 12 = the top rank)."""
    if rank is Rank.JOKER:
        return joker_strength(obs.rules)
    return obs.rank_order.index(rank)


def top_rank(obs: Observation) -> Rank:
    """The highest rank of the current order (2 normally, 3 after a revolution)."""
    return obs.rank_order[-1]


def is_wild(rules: Rules, card: Card) -> bool:
    """True for a card that stands for the rank of the cards it is played with."""
    if card.is_joker:
        return rules.joker_wild
    return card.rank in rules.wild_ranks


def wild_count(rules: Rules, cards: CardSet) -> int:
    """How many wild cards `cards` holds."""
    total = cards.count_rank(Rank.JOKER) if rules.joker_wild else 0
    return total + sum(cards.count_rank(rank) for rank in rules.wild_ranks)


def plain_joker_count(rules: Rules, cards: CardSet) -> int:
    """Jokers that are not wild (played only alone, at the joker rank)."""
    return 0 if rules.joker_wild else cards.count_rank(Rank.JOKER)


def natural_ranks(rules: Rules) -> tuple[Rank, ...]:
    """The ranks whose cards stand for themselves, low to high in the normal order."""
    return tuple(r for r in rules.rank_order if r not in rules.wild_ranks)


def deck(rules: Rules) -> CardSet:
    """Every card of the match's deck."""
    return full_deck(rules.decks, rules.jokers)


def unseen(obs: Observation) -> CardSet:
    """Cards this player has not seen: held by the others (nobody else holds any card)."""
    return deck(obs.rules) - obs.played - obs.hand


def counts_by_rank(cards: CardSet) -> dict[Rank, int]:
    """Number of cards of each rank present (jokers under `Rank.JOKER`)."""
    out: dict[Rank, int] = {}
    for card in cards:
        out[card.rank] = out.get(card.rank, 0) + 1
    return out
