"""Perft, as python-chess counts it: the distinct legal action sequences to a fixed depth from fixed deals.

A case is a position of a preset (or of a variant), dealt by the seeded
shuffle, so the numbers pin the whole engine: dealing, legal actions, their
grouping into one action per choice (RULES 1.8), and every transition.  The
count walks `legal_actions()` depth-first through `Match.copy()`; a sequence
that ends the match early counts for nothing, as a mate does in chess perft.

How the numbers were obtained: counted once by that walk, and again by brute
force (`brute_force` below): at every node `Match.check` of every candidate
built from the hand (each sub-multiset as a play, with each rank declared
when it is refused for want of a declaration; as a give-back), or from the
deck (requests), and pass; the accepted ones grouped into choices by an
independent reading of RULES 1.8; the brute force also asserts that its
choices are exactly the listed ones.  The two agreed at depth 2 for every
case and at depth 3 for cardverse seed 1, italian seed 2, norwegian seed 2,
the variant's two seeds and norwegian deal 2 from the give-backs (seed 1);
`test_brute_force_agrees` repeats the cheap part on every run.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from engine_support import perft
from president_engine import (
    PASS,
    Action,
    CardSet,
    GiveBack,
    IllegalActionError,
    IllegalReason,
    Match,
    Phase,
    Play,
    Rank,
    Request,
    Rules,
    fallback_action,
)
from president_engine.cards import SLOT_BITS, SLOT_COUNT, slot_count

VARIANT = {"jokers": 2, "suit_order": "D C H S", "equal_skip": True}
"""Italian with the seed's variants that change the most: wild jokers, suits that rank, equal-rank skip."""


@dataclass(frozen=True, kw_only=True)
class Case:
    name: str
    preset: str
    options: dict[str, Any] = field(default_factory=dict)
    seed: int
    deal: int = 1
    """Deal 2 is reached by playing deal 1 with `fallback_action`."""
    give_backs: bool = False
    """Start at the give-backs: the requests, too, made by `fallback_action`."""
    depth: int
    expected: int

    def position(self) -> Match:
        m = Match(Rules.preset(self.preset, deals=self.deal, **self.options), seed=self.seed)
        while m.deal < self.deal or (self.give_backs and m.phase is Phase.REQUEST):
            m.apply(fallback_action(m.legal_actions()))
        return m


CASES = (
    Case(name="cardverse-1", preset="cardverse", seed=1, depth=6, expected=7308),
    Case(name="cardverse-2", preset="cardverse", seed=2, depth=6, expected=6740),
    Case(name="italian-1", preset="italian", seed=1, depth=6, expected=5013),
    Case(name="italian-2", preset="italian", seed=2, depth=6, expected=5923),
    Case(name="norwegian-1", preset="norwegian", seed=1, depth=4, expected=4176),
    Case(name="norwegian-2", preset="norwegian", seed=2, depth=4, expected=8849),
    # Deal 2: both requests; then, from the give-backs, both give-backs and the first play.
    Case(name="norwegian-1-deal2", preset="norwegian", seed=1, deal=2, depth=2, expected=31240),
    Case(name="norwegian-1-deal2-give-backs", preset="norwegian", seed=1, deal=2, give_backs=True, depth=3,
         expected=9048),
    # Three players: one pair, so one sequence runs from the request through the tribute to the give-back.
    Case(name="norwegian3-1-deal2", preset="norwegian", options={"players": 3}, seed=1, deal=2, depth=2,
         expected=38480),
    Case(name="variant-1", preset="italian", options=VARIANT, seed=1, depth=5, expected=5983),
    Case(name="variant-2", preset="italian", options=VARIANT, seed=2, depth=5, expected=8826),
)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_perft(case: Case) -> None:
    assert perft(case.position(), case.depth) == case.expected


# ---------------------------------------------------------------------------- the second count


def sub_multisets(cards: CardSet, most: int | None = None) -> Iterator[CardSet]:
    """Every sub-multiset of `cards` (of at most `most` cards), the empty one included."""
    slots = [slot for slot in range(SLOT_COUNT) if slot_count(cards.bits, slot)]
    if most is None:
        ranges = [range(slot_count(cards.bits, slot) + 1) for slot in slots]
        for counts in itertools.product(*ranges):
            yield CardSet.from_bits(sum(c << (slot * SLOT_BITS) for slot, c in zip(slots, counts, strict=True)))
        return
    for size in range(most + 1):
        for combo in itertools.combinations_with_replacement(slots, size):
            if all(combo.count(slot) <= slot_count(cards.bits, slot) for slot in set(combo)):
                yield CardSet.from_bits(sum(1 << (slot * SLOT_BITS) for slot in combo))


def candidates(m: Match) -> Iterator[Action]:
    player = m.to_act
    assert player is not None
    if m.phase is Phase.PLAY:
        yield PASS
        for cards in sub_multisets(m.hand(player)):
            try:
                m.check(Play(cards))
                yield Play(cards)
            except IllegalActionError as exc:
                if exc.reason is IllegalReason.BAD_DECLARED_RANK:  # a follow of wild cards alone
                    yield from (Play(cards, rank) for rank in Rank)
    elif m.phase is Phase.GIVE_BACK:
        yield from (GiveBack(cards) for cards in sub_multisets(m.hand(player), m.owed(player)))
    else:
        yield from (Request(cards) for cards in sub_multisets(m.rules.deck, m.owed(player)))


def choice(m: Match, action: Action) -> object:
    """Equal for two actions exactly when they are one choice: without suit_order, suits do not count."""
    if isinstance(action, Request):
        return ("request", action.cards)
    if not isinstance(action, (Play, GiveBack)):
        return ("pass",)
    shape: object = action.cards
    if m.rules.suit_order is None:
        shape = tuple(action.cards.count_rank(rank) for rank in Rank)
    if isinstance(action, Play):
        return ("play", action.declared, action.rank, shape)
    return ("give", shape)


def brute_force(m: Match, depth: int) -> int:
    found: dict[object, Action] = {}
    for candidate in candidates(m):
        try:
            resolved = m.check(candidate)
        except IllegalActionError:
            continue
        found.setdefault(choice(m, resolved), resolved)
    listed = [choice(m, action) for action in m.legal_actions()]
    assert sorted(map(repr, listed)) == sorted(map(repr, found)), "the listed choices are the accepted ones"
    if depth == 1:
        return len(found)
    total = 0
    for action in found.values():
        child = m.copy()
        child.apply(action)
        total += brute_force(child, depth - 1)
    return total


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_brute_force_agrees(case: Case) -> None:
    m = case.position()
    assert brute_force(m, 1) == perft(m, 1)
    if case.preset == "italian" and not case.options:  # the cheapest second level
        assert brute_force(m, 2) == perft(m, 2)
