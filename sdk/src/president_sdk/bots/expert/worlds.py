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
this deal under a model of play like the playout policy's (and `hard`'s and
`normal`'s): a player plays whole groups, so one who played some cards of a
rank rarely held more of it; one who led rarely held a cheaper rank (other
than the top one) it could have led instead; one who passed facing a play
rarely held a whole group that beats it cheaply; and one who followed rarely
skipped a cheaper whole group of the same size.  Worlds are drawn again in
proportion to those weights, so the search spends its playouts on the
plausible ones.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from president_engine import Beat, CardSet, Observation, Rank, Rules, Suit
from president_engine.cards import (
    BUCKET_BITS,
    BUCKET_SIZE,
    SLOT_BITS,
    SLOT_COUNT,
    SLOT_MAX,
    bits_size,
    card_slot,
    rank_bucket_mask,
    rank_bucket_shift,
)

from president_sdk.bots.expert.knowledge import DealKnowledge

ALL_SLOTS = (1 << SLOT_COUNT) - 1
BUCKET_MASK = (1 << BUCKET_BITS) - 1

PASS_OVER_WHOLE_GROUP = 0.1
"""Likelihood of passing while holding a whole group (not of the top rank) that beats the table."""
PASS_OVER_BROKEN_GROUP = 0.5
"""Likelihood of passing while able to beat the table only by breaking a group or with wild cards."""
SKIP_CHEAPER_GROUP = 0.2
"""Likelihood of following with a rank while holding a cheaper whole group of that size that beats the table."""
LEAD_OVER_CHEAPER = 0.01
"""Likelihood of leading a rank while holding a cheaper rank that is not the top one."""
BREAK_GROUP = 0.005
"""Likelihood of playing some of a rank's natural cards while holding more of them."""


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


Fact = tuple[int, tuple[tuple[int, int], ...], int, bool, tuple[int, ...] | None, int, int, int, bool]
"""An opponent's decision as `PlayModel.weight` reads it: (player, its play's cards as (rank index, count) of each
rank it played, its wild cards, whether it played, the rank indices that beat the table weakest first (after a lead of
one natural rank without wild cards: the ranks cheaper than the one led) or None where the model says nothing of them,
the rank index played or -1 (a pass or a play of no natural rank), the table's size, the top rank's index, whether it
led).  A play of one natural rank also says the player held no more of it."""


class PlayModel:
    """The likelihood of the decisions of a deal given the hands (see the module docstring)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.order = list(rules.natural_ranks)
        """Natural ranks, low to high in the normal order (a count list follows it)."""
        self.index = {rank: at for at, rank in enumerate(self.order)}
        self.equal_beats = rules.beat is Beat.EQUAL_OR_HIGHER
        self._shifts = [rank_bucket_shift(rank) for rank in self.order]
        self._rank_slots = [sum(1 << card_slot(rank, suit) for suit in Suit) for rank in self.order]
        self._wild_bits = sum(rank_bucket_mask(rank) for rank in rules.wild_ranks) + (
            rank_bucket_mask(Rank.JOKER) if rules.joker_wild else 0)

    def facts(self, knowledge: DealKnowledge, me: int) -> list[Fact]:
        """The opponents' decisions, latest first; of a decision the model says nothing about (a play of jokers or
        of wild cards alone, a follow of such a play, a lead with wild cards) only what it played counts.  Made once
        per decision: every sample is weighted by them."""
        out: list[Fact] = []
        last = len(self.order) - 1
        for decision in reversed(knowledge.decisions):
            if decision.player == me:
                continue
            play, table = decision.play, decision.table
            counts, wilds = self.counts(play.cards) if play is not None else ([], 0)
            cards = tuple((at, count) for at, count in enumerate(counts) if count)
            played = -1 if play is None or play.rank not in self.index else self.index[play.rank]
            top = 0 if decision.reversed else last
            if table is None:
                cheaper = None
                if play is not None and played >= 0 and not wilds and len(cards) == 1:
                    cheaper = tuple(range(last, played, -1)) if decision.reversed else tuple(range(played))
                out.append((decision.player, cards, wilds, play is not None, cheaper, played, 0, top, True))
                continue
            if table.rank not in self.index or (play is not None and played < 0):
                out.append((decision.player, cards, wilds, play is not None, None, played, 0, top, False))
                continue
            at = self.index[table.rank]
            if decision.reversed:
                beating = tuple(range(at if self.equal_beats else at - 1, -1, -1))
            else:
                beating = tuple(range(at if self.equal_beats else at + 1, last + 1))
            out.append((decision.player, cards, wilds, play is not None, beating, played, table.size, top, False))
        return out

    def unlikely(self, facts: list[Fact]) -> dict[int, int]:
        """The slots (bit s: card slot s) each opponent holds none of, were it playing as the model says: no more of
        a rank it played, no rank but the top one cheaper than one it led (the facts `weight` reads as BREAK_GROUP
        and LEAD_OVER_CHEAPER).  A rank a player played in two plays says nothing (it broke a group).  A belief, not
        knowledge: the sampler keeps to it where the cards allow, so that few samples are spent on worlds the weights
        would all but drop."""
        plays: dict[tuple[int, int], int] = {}
        for player, cards, _, _, _, _, _, _, _ in facts:
            if len(cards) == 1:
                plays[player, cards[0][0]] = plays.get((player, cards[0][0]), 0) + 1
        out: dict[int, int] = {}
        for player, cards, _, _, beating, _, _, top, led in facts:
            if len(cards) != 1:
                continue
            at = cards[0][0]
            slots = self._rank_slots[at] if plays[player, at] == 1 else 0
            if led and beating is not None:
                for cheaper in beating:
                    if cheaper != top and (player, cheaper) not in plays:
                        slots |= self._rank_slots[cheaper]
            out[player] = out.get(player, 0) | slots
        return out

    def counts(self, cards: CardSet) -> tuple[list[int], int]:
        """Cards of each natural rank (normal order), and wild cards."""
        bits = cards.bits
        return [BUCKET_SIZE[bits >> shift & BUCKET_MASK] for shift in self._shifts], bits_size(bits & self._wild_bits)

    def weight(self, hands: list[CardSet], facts: list[Fact]) -> float:
        """How likely the opponents' decisions (`facts`) were, were these their hands (up to a constant)."""
        held: dict[int, tuple[list[int], int]] = {}
        weight = 1.0
        for player, cards, wild_cards, played_cards, beating, played, size, top, led in facts:
            found = held.get(player)
            if found is None:
                found = held[player] = self.counts(hands[player])
            counts, wilds = found
            if played_cards:  # the hand before this play held its cards
                for at, count in cards:
                    counts[at] += count
                wilds += wild_cards
                held[player] = counts, wilds
                if len(cards) == 1 and cards[0][0] == played and counts[played] > cards[0][1]:
                    weight *= BREAK_GROUP
            if beating is None:
                continue
            if led:
                for at in beating:
                    if counts[at] and at != top:
                        weight *= LEAD_OVER_CHEAPER
                        break
                continue
            for at in beating:  # weakest first
                if at == played:
                    break
                if counts[at] == size and at != top:
                    weight *= PASS_OVER_WHOLE_GROUP if played < 0 else SKIP_CHEAPER_GROUP
                    break
            else:
                if played < 0 and any(counts[at] and counts[at] + wilds >= size for at in beating):
                    weight *= PASS_OVER_BROKEN_GROUP
        return weight


class Sampler:
    """Samples of everyone's hands for one decision, each with its weight (all alike without knowledge of play).

    A sample deals the cards this player has not seen to the others so that `holdings` holds (a constraint that
    cannot be met is dropped): to each player first what it surely holds, then to the players whose cards are
    constrained, fewest allowed first, a uniform choice of the cards they may hold (of those the model of play finds
    likely where there are enough), then the rest uniformly.  What does not change between the samples of a decision
    is made once, and the draws use `rng.random()` alone (the random module's `sample` and `shuffle` are Python code,
    the larger part of a sample's cost).
    """

    def __init__(self, obs: Observation, knowledge: DealKnowledge | None, model: PlayModel,
                 rng: random.Random) -> None:
        self._model = model
        self._facts = model.facts(knowledge, obs.player) if knowledge is not None else []
        self._rng = rng
        known = holdings(obs, knowledge)
        n = obs.rules.players
        pool = obs.rules.deck.bits - obs.played.bits - obs.hand.bits
        self._base = [0] * n
        """Bits of each hand before the draw: this player's own, what the others surely hold."""
        self._need = [0] * n
        for p in range(n):
            if p == obs.player or not obs.hand_sizes[p]:
                continue
            sure = common(known.must[p], pool)
            if bits_size(sure) > obs.hand_sizes[p]:
                sure = 0
            self._base[p] = sure
            pool -= sure
            self._need[p] = obs.hand_sizes[p] - bits_size(sure)
        self._base[obs.player] = obs.hand.bits
        slots = slots_of(pool)
        self._units = [1 << (slot * SLOT_BITS) for slot in slots]
        """The bit of each card left to deal (a card of a slot, once per copy)."""
        unlikely = model.unlikely(self._facts)
        likely = [known.allowed[p] & ~unlikely.get(p, 0) for p in range(n)]
        constrained = sorted((p for p in range(n) if self._need[p] and likely[p] != ALL_SLOTS),
                             key=lambda p: bin(likely[p]).count("1"))
        self._eligible = [(p, [[i for i, slot in enumerate(slots) if mask >> slot & 1]
                               for mask in (likely[p], known.allowed[p])]) for p in constrained]
        """The constrained players in dealing order, each with the units it may get: the likely ones, the allowed."""

    def sample(self) -> tuple[list[CardSet], float]:
        hands = self.deal()
        return hands, self._model.weight(hands, self._facts) if self._facts else 1.0

    def deal(self) -> list[CardSet]:
        """One deal of the unseen cards that fits what is known."""
        rng = self._rng
        units = self._units
        hands = list(self._base)
        need = list(self._need)
        taken = [False] * len(units)
        for p, choices in self._eligible:
            free = []
            for eligible in choices:
                free = [i for i in eligible if not taken[i]]
                if len(free) >= need[p]:
                    break
            else:
                continue  # the knowledge does not fit these cards: deal this player freely below
            for t in range(need[p]):  # the first need[p] of a partial Fisher-Yates shuffle: a uniform choice
                j = t + int(rng.random() * (len(free) - t))
                free[t], free[j] = free[j], free[t]
                taken[free[t]] = True
                hands[p] += units[free[t]]
            need[p] = 0
        rest = [bit for i, bit in enumerate(units) if not taken[i]]
        left = len(rest)
        at = 0
        for p, count in enumerate(need):
            if count and at + count < left:  # a uniform choice of `count` of the rest (partial Fisher-Yates)
                for t in range(at, at + count):
                    j = t + int(rng.random() * (left - t))
                    rest[t], rest[j] = rest[j], rest[t]
            for bit in rest[at:at + count]:
                hands[p] += bit
            at += count
        return [CardSet.from_bits(h) for h in hands]


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

