"""The hidden hands the expert searches over: sampled to fit what it knows, weighted by how plausible the play was.

A world gives every other player a hand of the right size from the cards
this player has not seen, so that:

- cards this player handed over in the exchange are still with the receiver,
  unless the receiver has handed them back or played them since;
- a giver of tribute to this player kept nothing better than the worst card
  given as "best" (RULES 1.4), and holds none of the cards named in a request
  it did not hand over;
- a receiver that named cards in a request held none of them then (one deck).

Each sample is then weighted by the likelihood of the opponents' decisions in
this deal under a simple model of play: a player who passed facing a play
rarely held a whole group that beats it cheaply, and a player who followed
rarely skipped a cheaper whole group of the same size.  Worlds are drawn
again in proportion to those weights, so the search spends its playouts on
the plausible ones.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from president_engine import Beat, CardSet, Observation, Rules
from president_engine.cards import (
    BUCKET_BITS,
    BUCKET_SIZE,
    SLOT_BITS,
    SLOT_COUNT,
    SLOT_MAX,
    bits_size,
    rank_bucket_shift,
)

from president_sdk.bots.expert.knowledge import DealKnowledge

ALL_SLOTS = (1 << SLOT_COUNT) - 1
BUCKET_MASK = (1 << BUCKET_BITS) - 1

PASS_OVER_WHOLE_GROUP = 0.35
"""Likelihood of passing while holding a whole group (not of the top rank) that beats the table."""
PASS_OVER_BROKEN_GROUP = 0.8
"""Likelihood of passing while able to beat the table only by breaking a group or with wild cards."""
SKIP_CHEAPER_GROUP = 0.6
"""Likelihood of following with a rank while holding a cheaper whole group of that size that beats the table."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Holdings:
    """What this player knows of the others' hands, by player."""

    must: tuple[int, ...]
    """Bits of the cards each player surely holds."""
    allowed: tuple[int, ...]
    """Slots (bit s: card slot s) each player may hold besides those; ALL_SLOTS when nothing is known."""


def holdings(obs: Observation, knowledge: DealKnowledge | None) -> Holdings:
    """The constraints of the module docstring, from the exchange this player took part in."""
    n = obs.rules.players
    must = [0] * n
    allowed = [ALL_SLOTS] * n
    if knowledge is None:
        return Holdings(must=tuple(must), allowed=tuple(allowed))
    me = obs.player
    order = [card.slot for card in obs.rules.best_first]
    position = {slot: at for at, slot in enumerate(order)}
    for move in knowledge.transfers:
        if move.giver == me and move.receiver != me:  # unless given back, or played since
            back = sum((m.cards.bits for m in knowledge.transfers if m.giver == move.receiver and m.receiver == me), 0)
            kept = minus(minus(move.cards.bits, back), knowledge.played_by.get(move.receiver, 0))
            must[move.receiver] += kept
        elif move.receiver == me and move.tribute:
            named = sum((r.cards.bits for r in knowledge.requests if r.receiver == me and r.giver == move.giver), 0)
            given_named = common(move.cards.bits, named)
            best = move.cards.bits - given_named
            if best:
                worst = max(position[slot] for slot in slots_of(best))
                allowed[move.giver] &= sum(1 << slot for slot in order[worst:])
            for slot in slots_of(minus(named, given_named)):
                allowed[move.giver] &= ~(1 << slot)
    if obs.rules.decks == 1:
        for request in knowledge.requests:
            if request.giver == me:
                for slot in slots_of(request.cards.bits):
                    allowed[request.receiver] &= ~(1 << slot)
    return Holdings(must=tuple(must), allowed=tuple(allowed))


def sample_hands(obs: Observation, known: Holdings, rng: random.Random) -> list[CardSet]:
    """One deal of the unseen cards to the others that fits `known` (a constraint that cannot be met is dropped)."""
    rules = obs.rules
    n = rules.players
    me = obs.player
    pool = rules.deck.bits - obs.played.bits - obs.hand.bits
    hands = [0] * n
    need = [0] * n
    for p in range(n):
        if p == me or not obs.hand_sizes[p]:
            continue
        sure = common(known.must[p], pool)
        if bits_size(sure) > obs.hand_sizes[p]:
            sure = 0
        hands[p] = sure
        pool -= sure
        need[p] = obs.hand_sizes[p] - bits_size(sure)
    units = slots_of(pool)
    constrained = sorted((p for p in range(n) if need[p] and known.allowed[p] != ALL_SLOTS),
                         key=lambda p: bin(known.allowed[p]).count("1"))
    for p in constrained:
        eligible = [i for i, slot in enumerate(units) if known.allowed[p] >> slot & 1]
        if len(eligible) < need[p]:
            continue  # the knowledge does not fit these cards: deal this player freely below
        chosen = set(rng.sample(eligible, need[p]))
        hands[p] += sum(1 << (units[i] * SLOT_BITS) for i in chosen)
        units = [slot for i, slot in enumerate(units) if i not in chosen]
        need[p] = 0
    rng.shuffle(units)
    at = 0
    for p in range(n):
        if need[p]:
            hands[p] += sum(1 << (slot * SLOT_BITS) for slot in units[at:at + need[p]])
            at += need[p]
    hands[me] = obs.hand.bits
    return [CardSet.from_bits(h) for h in hands]


Fact = tuple[int, tuple[tuple[int, int], ...], int, bool, tuple[int, ...] | None, int, int, int]
"""An opponent's decision as `PlayModel.weight` reads it: (player, its play's cards as (rank index, count) of each
rank it played, its wild cards, whether it played, the rank indices that beat the table weakest first or None where
the model says nothing, the rank index played or -1 for a pass, the table's size, the top rank's index)."""


class PlayModel:
    """The likelihood of the decisions of a deal given the hands (see the module docstring)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.order = list(rules.natural_ranks)
        """Natural ranks, low to high in the normal order (a count list follows it)."""
        self.index = {rank: at for at, rank in enumerate(self.order)}
        self.equal_beats = rules.beat is Beat.EQUAL_OR_HIGHER
        self._shifts = [rank_bucket_shift(rank) for rank in self.order]

    def facts(self, knowledge: DealKnowledge, me: int) -> list[Fact]:
        """The opponents' decisions, latest first; decisions the model says nothing about (leads, joker plays)
        keep only what they played.  Made once per decision: every sample is weighted by them."""
        out: list[Fact] = []
        last = len(self.order) - 1
        for decision in reversed(knowledge.decisions):
            if decision.player == me:
                continue
            play, table = decision.play, decision.table
            counts, wilds = self.counts(play.cards) if play is not None else ([], 0)
            cards = tuple((at, count) for at, count in enumerate(counts) if count)
            if table is None or table.rank not in self.index or (play is not None and play.rank not in self.index):
                out.append((decision.player, cards, wilds, play is not None, None, -1, 0, 0))
                continue
            at = self.index[table.rank]
            played = -1 if play is None or play.rank is None else self.index[play.rank]
            if decision.reversed:
                beating = tuple(range(at if self.equal_beats else at - 1, -1, -1))
            else:
                beating = tuple(range(at if self.equal_beats else at + 1, last + 1))
            out.append((decision.player, cards, wilds, play is not None, beating, played, table.size,
                        0 if decision.reversed else last))
        return out

    def counts(self, cards: CardSet) -> tuple[list[int], int]:
        """Cards of each natural rank (normal order), and wild cards."""
        bits = cards.bits
        return [BUCKET_SIZE[bits >> shift & BUCKET_MASK] for shift in self._shifts], self.rules.wild_count(cards)

    def weight(self, hands: list[CardSet], facts: list[Fact]) -> float:
        """How likely the opponents' decisions (`facts`) were, were these their hands (up to a constant)."""
        held: dict[int, tuple[list[int], int]] = {}
        weight = 1.0
        for player, cards, wild_cards, played_cards, beating, played, size, top in facts:
            found = held.get(player)
            if found is None:
                found = held[player] = self.counts(hands[player])
            counts, wilds = found
            if played_cards:  # the hand before this play held its cards
                for at, count in cards:
                    counts[at] += count
                wilds += wild_cards
                held[player] = counts, wilds
            if beating is None:
                continue
            factor = 1.0
            for at in beating:  # weakest first
                if at == played:
                    break
                if counts[at] == size and at != top:
                    factor = PASS_OVER_WHOLE_GROUP if played < 0 else SKIP_CHEAPER_GROUP
                    break
            else:
                if played < 0 and any(counts[at] and counts[at] + wilds >= size for at in beating):
                    factor = PASS_OVER_BROKEN_GROUP
            weight *= factor
        return weight


class Sampler:
    """Samples of everyone's hands for one decision, each with its weight (all alike without knowledge of play)."""

    def __init__(self, obs: Observation, knowledge: DealKnowledge | None, model: PlayModel,
                 rng: random.Random) -> None:
        self._obs = obs
        self._known = holdings(obs, knowledge)
        self._model = model
        self._facts = model.facts(knowledge, obs.player) if knowledge is not None else []
        self._rng = rng

    def sample(self) -> tuple[list[CardSet], float]:
        hands = sample_hands(self._obs, self._known, self._rng)
        return hands, self._model.weight(hands, self._facts) if self._facts else 1.0


def minus(a: int, b: int) -> int:
    """Per card slot, the count in `a` less the count in `b`, never below zero."""
    out = 0
    shift = 0
    while a:
        left = (a & SLOT_MAX) - (b & SLOT_MAX)
        if left > 0:
            out |= left << shift
        a >>= SLOT_BITS
        b >>= SLOT_BITS
        shift += SLOT_BITS
    return out


def common(a: int, b: int) -> int:
    """Per card slot, the smaller count of `a` and `b`."""
    return a - minus(a, b)


def slots_of(bits: int) -> list[int]:
    """The slot of each card in `bits` (a slot repeated for each copy)."""
    out = []
    slot = 0
    while bits:
        out.extend([slot] * (bits & SLOT_MAX))
        bits >>= SLOT_BITS
        slot += 1
    return out

