"""Per-rules lookup tables and the cache of `Play` objects (internal).

Built once per `Rules` (rules are frozen and hashable) so that the legal-move
loop only shifts, masks and indexes.  Plays are interned: the same cards,
declared rank and rank are always the same `Play` object, which lets
`Match.apply` recognise a listed legal action by identity.  The events a play
or a trick's end writes are interned too (events are frozen), so applying an
action allocates nothing that another match has made before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Final

from president_engine.actions import Cell, Play
from president_engine.cards import (
    JOKER_SLOT,
    SLOT_BITS,
    SLOT_MAX,
    STANDARD_COLUMNS,
    CardSet,
    Rank,
    Suit,
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
PASS_COUNT: Final = 3
# What a play contains (`PlayFacts.marks`), for 8-stop, 11-back and 6-reverse.
HAS_EIGHT: Final = 1
HAS_JACK: Final = 2
HAS_SIX: Final = 4
FIFTH_ROW: Final = 1 << 4
"""The suit-set bit of the fifth row (a joker in a group of all four suits); suits are bits 0..3."""
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
                           else PASS_COUNT if rules.pass_count
                           else ALL_PASS_FINAL if rules.pass_is_final else ALL_PASS)
        self.leader_may_pass = rules.leader_may_pass
        self.pass_limit = rules.pass_limit or 0
        """Passes in a row that end the deal; 0 for no limit."""
        self.revolution = rules.revolution
        self.revolution_four = rules.revolution and RevolutionTrigger.FOUR_OF_A_KIND in rules.revolution_triggers
        self.revolution_singles = rules.revolution and RevolutionTrigger.FOUR_SINGLES in rules.revolution_triggers
        self.revolution_turns = rules.revolution_effect is RevolutionEffect.RANKS_AND_DIRECTION
        """A revolution reverses the direction of play too."""
        self.equal_skip = rules.equal_skip
        self.sequences = rules.sequences
        self.joker_cells = rules.joker_cells
        self.suit_lock = rules.suit_lock
        self.spade_three = rules.joker_spade_three
        self.eight_stop = rules.eight_stop
        self.jack_back = rules.jack_back
        self.six_reverse = rules.six_reverse
        self.effects = (rules.suit_lock or rules.joker_spade_three or rules.eight_stop or rules.jack_back
                        or rules.six_reverse)
        """A play may lock the suits, end the trick, or turn the order or the direction (`Match._effects`)."""
        self.shaped = rules.sequences or rules.suit_lock or rules.joker_spade_three
        """Plays are listed by `movegen.shaped_plays`: sequences, joker cells, the lock or the spade 3."""
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
        self.simple = not rules.wild_ranks and not rules.suits_matter and not self.has_jokers
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
        self._cells: dict[tuple[int, Rank, Cell], Play] = {}
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

    def cell_play(self, bits: int, rank: Rank, cell: Cell) -> Play:
        """The interned Play of these cards standing for `rank`, their joker in `cell`."""
        key = (bits, rank, cell)
        found = self._cells.get(key)
        if found is None:
            found = self._cells[key] = self._intern(Play(CardSet.from_bits(bits), rank=rank, cell=cell))
        return found

    def interned(self, play: Play) -> Play:
        """The interned equal of a play whose rank is known (a view's table, say)."""
        rank = play.rank
        assert rank is not None
        if play.cell is not None:
            return self.cell_play(play.bits, rank, play.cell)
        if play.declared is not None:
            return self.declared_play(play.bits, rank)
        return self.play(play.bits, rank)

    def _intern(self, play: Play) -> Play:
        self.facts[id(play)] = self.facts_of(play)
        return play

    def facts_of(self, play: Play) -> PlayFacts:
        """What applying `play` (its rank set) needs; `legality` reads it of plays it has not interned yet."""
        rank = play.rank
        assert rank is not None
        strength = (self.strength[0][rank], self.strength[1][rank])
        bottom = strength
        columns = [STANDARD_COLUMNS.index(c.rank) + 1 for c in play.cards.distinct() if not c.is_joker]
        suits = sum({1 << c.suit for c in play.cards.distinct() if c.suit is not None})
        cell = play.cell
        if cell is not None:
            columns.append(cell.column)
            suits |= FIFTH_ROW if cell.suit is None else 1 << cell.suit
            columns = sorted(set(columns))
        sequence = len({c.rank for c in play.cards if not c.is_joker} - self.rules.wild_ranks) > 1
        if sequence:  # compared by its ends (UECDA 4.3): column c is strength c - 1, reversed 13 - c
            low, high = min(columns), max(columns)
            bottom, strength = (low - 1, 13 - high), (high - 1, 13 - low)
            spanned = set(STANDARD_COLUMNS[c - 1] for c in range(max(low, 1), min(high, 13) + 1))
        else:
            spanned = {rank}
        marks = ((HAS_EIGHT if Rank.EIGHT in spanned else 0) | (HAS_JACK if Rank.JACK in spanned else 0)
                 | (HAS_SIX if Rank.SIX in spanned else 0))
        return PlayFacts(
            played=tuple(Played(p, play) for p in range(self.rules.players)),
            strength=strength, bottom=bottom,
            row_key=strength[0] << 16 if rank is not Rank.JOKER and not sequence else -1,
            shift=rank_bucket_shift(rank) if rank is not Rank.JOKER else -1,
            sequence=sequence, lone_joker=rank is Rank.JOKER, suits=suits if rank is not Rank.JOKER else 0,
            marks=marks)

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
        """Sub-multisets of a rank bucket by size: the lowest suits, or where suits matter every distinct one."""
        found = self._subsets.get(bucket)
        if found is None:
            found = self._subsets[bucket] = _subsets_by_size(bucket, self.rules.suits_matter)
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
    """Its rank's strength in the normal and the reversed order (a sequence: its strongest end's)."""
    bottom: tuple[int, int]
    """A sequence's weakest end's strength in both orders (what must be above the table's); else `strength`."""
    row_key: int
    """Strength in the normal order << 16 (simple rules: the row entry it changes); -1 for jokers and sequences."""
    shift: int
    """Bit offset of its rank's bucket; -1 for jokers."""
    sequence: bool
    lone_joker: bool
    """Jokers alone, at the joker rank."""
    suits: int
    """Its suit set: bit s for suit s, FIFTH_ROW for a joker in the fifth cell; 0 for jokers alone."""
    marks: int
    """HAS_EIGHT, HAS_JACK, HAS_SIX: the ranks it stands for or spans (a joker's cell included)."""


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


def trick_lock(lock: int, facts: PlayFacts, beaten: PlayFacts | None) -> int:
    """The locked suit set after a play (UECDA 4.4): begun by a play of the table's suits, ended by a lone joker."""
    if facts.lone_joker:
        return 0
    if not lock and beaten is not None and not beaten.lone_joker and facts.suits == beaten.suits:
        return facts.suits
    return lock


def lock_suits(lock: int) -> tuple[Suit, ...]:
    """A locked suit set as suits, clubs first (the fifth row never locks: one joker cannot be on both plays)."""
    return tuple(suit for suit in Suit if lock >> suit & 1)


def trick_state(t: Tables, trick: Sequence[Play]) -> tuple[int, int]:
    """(the locked suit set, 11-back) after the plays of a trick so far: what a view's trick shows of both."""
    lock = back = 0
    if not (t.suit_lock or t.jack_back):
        return lock, back
    beaten: PlayFacts | None = None
    for play in trick:
        facts = t.facts_of(play)
        if t.suit_lock:
            lock = trick_lock(lock, facts, beaten)
        if t.jack_back and facts.marks & HAS_JACK and not facts.lone_joker:
            back ^= 1
        beaten = facts
    return lock, back


def single_run(run_rank: Rank | None, run_len: int, size: int, rank: Rank) -> tuple[Rank | None, int, bool]:
    """The run of single plays of one rank after a play of `size` cards of `rank` (RULES 1.2 four_singles), and
    True when it makes four: a revolution, after which the run starts again."""
    if size == 1 and rank is run_rank:
        run_len += 1
    elif size == 1:
        run_rank, run_len = rank, 1
    else:
        return None, 0, False
    if run_len >= 4:
        return None, 0, True
    return run_rank, run_len, False


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
