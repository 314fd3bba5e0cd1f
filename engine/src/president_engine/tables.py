"""Per-rules lookup tables and the cache of `Play` objects (internal).

Built once per `Rules` (rules are frozen and hashable) so that the legal-move
loop only shifts, masks and indexes.  Plays are interned: the same cards,
declared rank and rank are always the same `Play` object, which lets
`Match.apply` recognise a listed legal action by identity.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from president_engine.actions import Play
from president_engine.cards import (
    JOKER_SLOT,
    SLOT_BITS,
    SLOT_MAX,
    CardSet,
    Rank,
    Suit,
    rank_bucket_mask,
)
from president_engine.events import Passed
from president_engine.rules import Beat, JokerAlone, Rules

JOKER_SHIFT = JOKER_SLOT * SLOT_BITS
JOKER_MASK = SLOT_MAX << JOKER_SHIFT
JOKER_ONE = 1 << JOKER_SHIFT
TRIBUTE_SUITS = (Suit.SPADES, Suit.HEARTS, Suit.CLUBS, Suit.DIAMONDS)  # best first, for ties


class Tables:
    """Everything about a rule set that the hot path would otherwise recompute."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.has_jokers = rules.jokers > 0
        self.jokers_wild = self.has_jokers and rules.joker_wild
        self.declared = rules.joker_alone is JokerAlone.DECLARED
        self.strict = rules.beat is Beat.STRICTLY_HIGHER
        self.suit_order: tuple[int, ...] | None = None
        if rules.suit_order is not None:
            power = [0] * 4
            for position, suit in enumerate(rules.suit_order):
                power[suit] = position
            self.suit_order = tuple(power)
        # strength[rev][rank value]: Rules.strength as a list, for the hot path.
        self.strength: tuple[list[int], list[int]] = (
            [0, 0] + [rules.strength(rank) for rank in Rank],
            [0, 0] + [rules.strength(rank, reversed=True) for rank in Rank],
        )
        self.natural_ranks = rules.natural_ranks
        self.rank_masks = tuple(rank_bucket_mask(r) for r in rules.rank_order)
        """Bits of each rank's cards, by strength in the normal order."""
        self.bucket_mask = [0] * 16
        """Bits of each rank's cards, indexed by rank value (the joker slot for JOKER)."""
        for rank in Rank:
            self.bucket_mask[rank] = rank_bucket_mask(rank)
        wild_rank_mask = sum(rank_bucket_mask(r) for r in rules.wild_ranks)
        self.wild_mask = wild_rank_mask | (JOKER_MASK if self.jokers_wild else 0)
        self.special_mask = wild_rank_mask | (JOKER_MASK if self.has_jokers else 0)
        # The bucket index fast path needs every rank natural, no suits and no jokers.
        self.simple = not rules.wild_ranks and self.suit_order is None and not self.has_jokers
        self.deck = rules.deck
        self.tribute_slots = self._tribute_slots()
        # Pass events carry no cards: share one per player.
        self.passed = tuple(Passed(p, False) for p in range(rules.players))
        self.skipped = tuple(Passed(p, True) for p in range(rules.players))
        self._plays: dict[tuple[int, Rank], Play] = {}
        self._declared: dict[tuple[int, Rank], Play] = {}
        self.canonical: Callable[[int], tuple[Play, ...]] = _CanonicalPlays(self.play).__getitem__
        """Plays of 1..n cards of one natural rank, lowest suits first, for a hand's rank bucket (empty: none).

        A dict lookup that builds the entry on a miss: it runs for every play the simple path applies.
        """

    def play(self, bits: int, rank: Rank) -> Play:
        """The interned Play of these cards standing for `rank` by themselves."""
        key = (bits, rank)
        found = self._plays.get(key)
        if found is None:
            found = self._plays[key] = Play(CardSet.from_bits(bits), rank=rank)
        return found

    def declared_play(self, bits: int, rank: Rank) -> Play:
        """The interned Play of these wild cards following as the declared `rank`."""
        key = (bits, rank)
        found = self._declared.get(key)
        if found is None:
            found = self._declared[key] = Play(CardSet.from_bits(bits), rank, rank=rank)
        return found

    def top_suit(self, bits: int) -> int:
        """Power of the highest natural suit in a play under suit_order, -1 with none."""
        assert self.suit_order is not None
        best = -1
        natural = bits & ~self.special_mask
        slot = 0
        while natural:
            if natural & SLOT_MAX:
                best = max(best, self.suit_order[slot % 4])
            natural >>= SLOT_BITS
            slot += 1
        return best

    def _tribute_slots(self) -> tuple[int, ...]:
        """Card slots from best to worst for tributes (RULES 1.4 "Best")."""
        rules = self.rules
        by_rank = [r for r in reversed(rules.rank_order)]  # normal order, top first
        wild_first = [r for r in by_rank if r in rules.wild_ranks]
        natural = [r for r in by_rank if r not in rules.wild_ranks]
        slots = [(r - 2) * 4 + s for r in wild_first + natural for s in TRIBUTE_SUITS]
        jokers_best = rules.joker_wild or rules.joker_alone is JokerAlone.HIGH
        return tuple([JOKER_SLOT, *slots] if jokers_best else [*slots, JOKER_SLOT])


class _CanonicalPlays(dict[int, tuple[Play, ...]]):
    """Rank bucket bits -> its canonical plays, each built on first use."""

    def __init__(self, play: Callable[[int, Rank], Play]) -> None:
        super().__init__({0: ()})
        self._play = play

    def __missing__(self, bucket: int) -> tuple[Play, ...]:
        rank = rank_of_bucket(bucket)
        plays = []
        total = 0
        for unit in unit_bits(bucket):
            total += unit
            plays.append(self._play(total, rank))
        found = self[bucket] = tuple(plays)
        return found


def unit_bits(bucket: int) -> list[int]:
    """One single-card bits value per card in `bucket`, lowest slot first (copies repeated)."""
    units: list[int] = []
    if not bucket:
        return units
    shift = ((bucket & -bucket).bit_length() - 1) // SLOT_BITS * SLOT_BITS
    rest = bucket >> shift
    while rest:
        count = rest & SLOT_MAX
        if count:
            units.extend([1 << shift] * count)
        rest >>= SLOT_BITS
        shift += SLOT_BITS
    return units


def rank_of_bucket(bits: int) -> Rank:
    low = (bits & -bits).bit_length() - 1
    slot = low // SLOT_BITS
    return Rank.JOKER if slot == JOKER_SLOT else Rank(slot // 4 + 2)


@lru_cache(maxsize=64)
def tables_for(rules: Rules) -> Tables:
    return Tables(rules)
