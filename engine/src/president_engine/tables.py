"""Per-rules lookup tables and the cache of `Play` objects (internal).

Built once per `Rules` (rules are frozen and hashable) so that the legal-move
loop only shifts, masks and indexes.  Plays are interned: the same cards,
declared rank and rank are always the same `Play` object, which lets
`Match.apply` recognise a listed legal action by identity.  The events a play
or a trick's end writes are interned too (events are frozen), so applying an
action allocates nothing that another match has made before.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Final

from president_engine.actions import Play
from president_engine.cards import (
    JOKER_SLOT,
    SLOT_BITS,
    SLOT_MAX,
    CardSet,
    Rank,
    rank_bucket_mask,
    rank_bucket_shift,
)
from president_engine.events import Passed, Played, PlayStarted, TrickWon, WentOut
from president_engine.rules import Beat, JokerAlone, RevolutionEffect, RevolutionTrigger, Rules, TrickEnd

JOKER_SHIFT: Final = JOKER_SLOT * SLOT_BITS
JOKER_MASK: Final = SLOT_MAX << JOKER_SHIFT
JOKER_ONE: Final = 1 << JOKER_SHIFT
# How a trick ends (`Tables.trick_mode`); Final names compile to C constants under mypyc.
ALL_PASS: Final = 0
ALL_PASS_FINAL: Final = 1
ONE_ORBIT: Final = 2
RANK_PLAYS_KEPT: Final = 1 << 16
"""Entries of the per-rank play cache before it starts afresh (many decks and jokers make many)."""


class Tables:
    """Everything about a rule set that the hot path would otherwise recompute."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.has_jokers = rules.jokers > 0
        self.jokers_wild = self.has_jokers and rules.joker_wild
        self.declared = rules.joker_alone is JokerAlone.DECLARED
        self.wild_lead_rank = rules.wild_lead_rank if self.declared else Rank.JOKER
        """What a lead of wild cards alone stands for."""
        self.strict = rules.beat is Beat.STRICTLY_HIGHER
        # The rule facts of the play loop, kept here (as OpenSpiel's Game) rather than on every state.
        self.trick_mode = (ONE_ORBIT if rules.trick_end is TrickEnd.ONE_ORBIT
                           else ALL_PASS_FINAL if rules.pass_is_final else ALL_PASS)
        self.revolution = rules.revolution
        self.revolution_four = rules.revolution and RevolutionTrigger.FOUR_OF_A_KIND in rules.revolution_triggers
        self.revolution_singles = rules.revolution and RevolutionTrigger.FOUR_SINGLES in rules.revolution_triggers
        self.revolution_turns = rules.revolution_effect is RevolutionEffect.RANKS_AND_DIRECTION
        """A revolution reverses the direction of play too."""
        self.equal_skip = rules.equal_skip
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
        self.tribute_slots = tuple(card.slot for card in rules.best_first)
        """Card slots from best to worst for tributes (RULES 1.4 "Best")."""
        # Pass events carry no cards: share one per player.
        self.passed = tuple(Passed(p, False) for p in range(rules.players))
        self.skipped = tuple(Passed(p, True) for p in range(rules.players))
        self.trick_won = tuple(tuple(TrickWon(w, leader) for leader in range(rules.players))
                               for w in range(rules.players))
        """trick_won[winner][next leader]."""
        self.went_out = tuple(tuple(WentOut(p, place) for place in range(rules.players + 1))
                              for p in range(rules.players))
        """went_out[player][place] (place 1 first; 0 unused)."""
        self.play_started = tuple(PlayStarted(p) for p in range(rules.players))
        self.facts: dict[int, PlayFacts] = {}
        """id of an interned Play -> what applying it needs."""
        self._plays: dict[tuple[int, Rank], Play] = {}
        self._declared: dict[tuple[int, Rank], Play] = {}
        self._wild_choices: dict[int, list[tuple[int, int]]] = {}
        self._subsets: dict[int, dict[int, list[int]]] = {}
        self._rank_plays: dict[int, tuple[list[Play], dict[int, list[Play]]]] = {}
        self.canonical: Callable[[int], tuple[Play, ...]] = _CanonicalPlays(self).__getitem__
        """Simple rules: plays of 1..n cards of one rank, lowest suits first, from a row key (see `row_key`).

        A dict lookup that builds the entry on a miss: it runs for every play the simple path applies.
        """
        self.row_bytes = tuple(2 * (rank - 2) for rank in rules.rank_order)
        """Offset in a hand's little-endian bytes of each rank's bucket, by strength in the normal order."""

    def play(self, bits: int, rank: Rank) -> Play:
        """The interned Play of these cards standing for `rank` by themselves."""
        key = (bits, rank)
        found = self._plays.get(key)
        if found is None:
            found = self._plays[key] = self._intern(Play(CardSet.from_bits(bits), rank=rank))
        return found

    def declared_play(self, bits: int, rank: Rank) -> Play:
        """The interned Play of these wild cards following as the declared `rank`."""
        key = (bits, rank)
        found = self._declared.get(key)
        if found is None:
            found = self._declared[key] = self._intern(Play(CardSet.from_bits(bits), rank, rank=rank))
        return found

    def _intern(self, play: Play) -> Play:
        rank = play.rank
        assert rank is not None
        self.facts[id(play)] = PlayFacts(
            played=tuple(Played(p, play) for p in range(self.rules.players)),
            strength=(self.strength[0][rank], self.strength[1][rank]),
            row_key=self.strength[0][rank] << 16 if rank is not Rank.JOKER else -1,
            shift=rank_bucket_shift(rank) if rank is not Rank.JOKER else -1)
        return play

    def wild_choices(self, wild: int) -> list[tuple[int, int]]:
        """(bits, size) of every choice of wild cards from `wild`, by size then bits, the empty one first.

        One choice per class of interchangeable cards (every distinct one under suit_order).
        """
        found = self._wild_choices.get(wild)
        if found is None:
            found = self._wild_choices[wild] = self._choose_wilds(wild)
        return found

    def _choose_wilds(self, wild: int) -> list[tuple[int, int]]:
        choices = [(0, 0)]
        jokers = (wild >> JOKER_SHIFT) & SLOT_MAX
        groups: list[list[tuple[int, int]]] = []
        if jokers:
            groups.append([(0, 0)] + [(j * JOKER_ONE, j) for j in range(1, jokers + 1)])
        for rank in sorted(self.rules.wild_ranks):
            bucket = wild & rank_bucket_mask(rank)
            if bucket:
                options = [(0, 0)]
                for size, subsets in self.subsets(bucket).items():
                    options.extend((bits, size) for bits in subsets)
                groups.append(options)
        for group in groups:
            choices = [(a + b, sa + sb) for a, sa in choices for b, sb in group]
        choices.sort(key=lambda c: (c[1], c[0]))
        return choices

    def rank_plays(self, rank: Rank, bucket: int, wild: int) -> tuple[list[Play], dict[int, list[Play]]]:
        """The plays of natural cards `bucket` of `rank`, with any choice from the wild cards `wild`.

        All of them by size, wild cards, then bits (a lead's order within a rank), and the same
        split by size (for a follow); built once per bucket and wild cards.
        """
        key = bucket | wild  # disjoint slots: the bucket also names the rank
        found = self._rank_plays.get(key)
        if found is None:
            if len(self._rank_plays) >= RANK_PLAYS_KEPT:
                self._rank_plays.clear()
            entries = []
            for size, subsets in self.subsets(bucket).items():
                for natural in subsets:
                    for wild_bits, wild_size in self.wild_choices(wild):
                        entries.append((size + wild_size, wild_size, natural + wild_bits))
            entries.sort()
            plays = [self.play(bits, rank) for _, _, bits in entries]
            by_size: dict[int, list[Play]] = {}
            for play in plays:
                by_size.setdefault(play.size, []).append(play)
            found = self._rank_plays[key] = (plays, by_size)
        return found

    def subsets(self, bucket: int) -> dict[int, list[int]]:
        """Sub-multisets of a rank bucket by size: the lowest suits, or under suit_order every distinct one."""
        found = self._subsets.get(bucket)
        if found is None:
            found = self._subsets[bucket] = _subsets_by_size(bucket, self.suit_order is not None)
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


@dataclass(frozen=True, kw_only=True, slots=True)
class PlayFacts:
    """What applying an interned play needs, found by the play's id in one lookup."""

    played: tuple[Played, ...]
    """Its Played event, by player."""
    strength: tuple[int, int]
    """Its rank's strength in the normal and the reversed order."""
    row_key: int
    """Strength in the normal order << 16 (simple rules: the row entry it changes); -1 for jokers."""
    shift: int
    """Bit offset of its rank's bucket; -1 for jokers."""


def row_key(strength: int, bucket: int) -> int:
    """The key of `Tables.canonical`: a rank's strength in the normal order and its 16-bit bucket value."""
    return strength << 16 | bucket


class _CanonicalPlays(dict[int, tuple[Play, ...]]):
    """Row key -> its canonical plays, each built on first use."""

    def __init__(self, t: Tables) -> None:
        super().__init__()
        self._t = t

    def __missing__(self, key: int) -> tuple[Play, ...]:
        rank = self._t.rules.rank_order[key >> 16]
        plays = []
        total = 0
        for unit in unit_bits((key & 0xFFFF) << rank_bucket_shift(rank)):
            total += unit
            plays.append(self._t.play(total, rank))
        found = self[key] = tuple(plays)
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


def _subsets_by_size(bucket: int, every_suit: bool) -> dict[int, list[int]]:
    units = unit_bits(bucket)
    out: dict[int, list[int]] = {}
    if not every_suit:
        total = 0
        for size, unit in enumerate(units, 1):
            total += unit
            out[size] = [total]
        return out
    for size in range(1, len(units) + 1):
        out[size] = sorted({sum(combo) for combo in combinations(units, size)})
    return out


def tables_for(rules: Rules) -> Tables:
    """The tables of `rules`: found by identity first (a match makes many lookups of one Rules object)."""
    found = _BY_ID.get(id(rules))
    if found is None or found.rules is not rules:
        found = _BY_ID[id(rules)] = _tables_for(rules)
        if len(_BY_ID) > 256:
            _BY_ID.clear()
    return found


_BY_ID: dict[int, Tables] = {}


@lru_cache(maxsize=64)
def _tables_for(rules: Rules) -> Tables:
    return Tables(rules)
