"""Helpers for the learners' tests: the same public history with other hidden cards."""

from __future__ import annotations

import random
from collections.abc import Sequence

from president_engine import Action, Card, CardSet, Match, Rules

THREE_OF_CLUBS = Card.parse("3C")


def played_actions(m: Match) -> list[Action]:
    """The actions of deal 1 so far, in order."""
    return [action for _, action in m.actions_by_deal()[0]]


def redeal_others(m: Match, player: int, rng: random.Random) -> list[CardSet]:
    """Deal-1 hands by seat: `player`'s hand and every card played so far as in `m`, the other players'
    unplayed cards shuffled among them, each keeping their number (the three of clubs stays where it is:
    it can decide who leads)."""
    assert m.deal == 1
    others = [q for q in range(m.rules.players) if q != player]
    movable = {q: [c for c in m.hand(q) if c != THREE_OF_CLUBS] for q in others}
    pool = [c for q in others for c in movable[q]]
    rng.shuffle(pool)
    hands = list(m.deal_hands[0])
    for q in others:
        kept = m.hand(q) - CardSet(movable[q])
        new, pool = pool[:len(movable[q])], pool[len(movable[q]):]
        hands[q] = m.deal_hands[0][q] - m.hand(q) + kept + CardSet(new)
    return hands


def first_deal_positions(rules: Rules, rng: random.Random, moves: range) -> list[Match]:
    """Matches of seeds 0-3, each some random legal moves (a count drawn from `moves`) into its first deal;
    a match that left deal 1 meanwhile is skipped."""
    out = []
    for seed in range(4):
        m = Match(rules, seed=seed)
        for _ in range(rng.choice(moves)):
            if m.is_over or m.deal > 1:
                break
            m.apply(rng.choice(m.legal_actions()))
        if m.deal == 1 and not m.is_over:
            out.append(m)
    return out


def replay(rules: Rules, hands: Sequence[CardSet], actions: Sequence[Action]) -> Match:
    m = Match(rules, hands=[list(hands)])
    for action in actions:
        m.apply(action)
    return m


def dealing_order(hands: Sequence[CardSet]) -> list[int]:
    """The card slots of a deal-1 deal in the order the rules deal them: one card per seat in turn from seat 0."""
    cards = [list(hand) for hand in hands]
    order: list[int] = []
    while any(cards):
        for seat_cards in cards:
            if seat_cards:
                order.append(seat_cards.pop(0).slot)
    return order
