"""Legal-move generation: what the player to act may do, in the engine's fixed order.

Functions of the state they read (the rule tables, a hand, the play to
beat), so that the match's state and its transitions stay in match.py.
The order of each list (docs/RULES-DECISIONS.md):

- play: plays by strength in the current order (low first), then by number
  of cards, then by number of wild cards, then by the cards' bits; ``pass``
  last when allowed.  With joker cells a group with the joker is listed once
  per cell, suits clubs first, the fifth cell alone when all four suits are
  in it; sequences come after every group, by their weakest end's strength,
  then length, then without the joker first, then suit (clubs first), then
  the joker's column;
- give-back: worst cards first (the reverse of the tribute order);
- request: the empty request first, then fewer cards first, best cards first.
"""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement
from typing import Final

from president_engine.actions import PASS, Action, Cell, GiveBack, Play, Request
from president_engine.cards import (
    JOKER_SLOT,
    SLOT_BITS,
    SLOT_COUNT,
    STANDARD_COLUMNS,
    CardSet,
    Rank,
    Suit,
    bits_size,
    card_slot,
    rank_bucket_mask,
    slot_count,
)
from president_engine.tables import JOKER_MASK, JOKER_ONE, Tables, unit_bits

_PASS: Final = PASS
HAND_BYTES: Final = (SLOT_COUNT * SLOT_BITS + 7) // 8
"""A Final alias compiles to a C constant under mypyc (a plain global is a dict lookup)."""
SPADE_THREE: Final = 1 << (card_slot(Rank.THREE, Suit.SPADES) * SLOT_BITS)
"""The bits of the one play that beats a lone joker under `joker_spade_three`."""


def bucket_row(t: Tables, hand: int) -> list[tuple[Play, ...]]:
    """Simple rules only: each rank's canonical plays from `hand`, by strength in the normal order.

    The match keeps one row per seat and updates the played rank's entry, so
    `simple_plays` only reads it.
    """
    data = hand.to_bytes(HAND_BYTES, "little")
    canonical = t.canonical
    return [canonical(strength << 16 | data[at] | data[at + 1] << 8) for strength, at in enumerate(t.row_bytes)]


def simple_plays(t: Tables, row: list[tuple[Play, ...]], table: Play | None, table_strength: int,
                 rev: int) -> tuple[Action, ...]:
    """No wild cards, jokers or suit order: read the seat's canonical plays by rank.

    The row is by strength in the normal order, so under a revolution strength s is row[12 - s].
    """
    out: list[Action] = []
    if table is None:
        for index in range(13):
            out.extend(row[12 - index if rev else index])
        return tuple(out)
    k = table.size
    start = table_strength + 1 if t.strict else table_strength
    for strength in range(start, 13):
        plays = row[12 - strength if rev else strength]
        if len(plays) >= k:
            out.append(plays[k - 1])
    out.append(_PASS)
    return tuple(out)


def general_plays(t: Tables, hand: int, table: Play | None, table_strength: int, rev: int) -> tuple[Action, ...]:
    """Plays with wild cards, jokers or suit order, from each rank's cached plays (a follow: ranks that beat)."""
    strength = t.strength[rev]
    wild = hand & t.wild_mask
    wild_sets = t.wild_choices(wild)
    segments: list[tuple[int, list[Play]]] = []
    """(strength, plays in the order of equal strength): sorted by strength below."""
    if table is None:
        for rank in t.natural_ranks:
            bucket = hand & t.bucket_mask[rank]
            if bucket:
                segments.append((strength[rank], t.rank_plays(rank, bucket, wild)[0]))
        if len(wild_sets) > 1:
            lead = t.wild_lead_rank
            segments.append((strength[lead], [t.play(bits, lead) for bits, _ in wild_sets[1:]]))
    else:
        k = table.size
        equal_beats = not t.strict
        for rank in t.natural_ranks:
            mine = strength[rank]
            if mine < table_strength or (mine == table_strength and not equal_beats):
                continue
            bucket = hand & t.bucket_mask[rank]
            if bucket:
                plays = t.rank_plays(rank, bucket, wild)[1].get(k)
                if plays:
                    if mine == table_strength and t.suit_order is not None:
                        plays = [p for p in plays if beats(t, p.bits, rank, table, table_strength, rev)]
                    segments.append((mine, plays))
        for wild_bits, wild_size in wild_sets:
            if wild_size != k:
                continue
            if not t.declared:
                if beats(t, wild_bits, Rank.JOKER, table, table_strength, rev):
                    segments.append((strength[Rank.JOKER], [t.play(wild_bits, Rank.JOKER)]))
            else:  # a follow of wild cards alone: the one play that declares its rank
                for rank in t.natural_ranks:
                    if beats(t, wild_bits, rank, table, table_strength, rev):
                        segments.append((strength[rank], [t.declared_play(wild_bits, rank)]))
    jokers = slot_count(hand, JOKER_SLOT)
    if jokers and not t.jokers_wild:  # plain jokers, played alone
        counts = range(1, jokers + 1) if table is None else range(table.size, min(table.size, jokers) + 1)
        plain = [t.play(count * JOKER_ONE, Rank.JOKER) for count in counts]
        if table is not None:
            plain = [p for p in plain if beats(t, p.bits, Rank.JOKER, table, table_strength, rev)]
        if plain:
            segments.append((strength[Rank.JOKER], plain))
    segments.sort(key=_strength_of)
    out: list[Action] = []
    at = 0
    while at < len(segments):
        same = at + 1
        while same < len(segments) and segments[same][0] == segments[at][0]:
            same += 1
        if same == at + 1:
            out.extend(segments[at][1])
        else:  # plays of one strength from several sources: by size, wild cards, then cards
            tied = [p for _, plays in segments[at:same] for p in plays]
            tied.sort(key=lambda p: (p.size, bits_size(p.bits & t.wild_mask), p.bits))
            out.extend(tied)
        at = same
    if table is not None:
        out.append(PASS)
    return tuple(out)


def shaped_plays(t: Tables, hand: int, table: Play | None, table_strength: int, rev: int,
                 lock: int) -> tuple[Action, ...]:
    """Sequences, joker cells, the suit lock and the spade 3 (UECDA 4.2-4.5) over `general_plays`' groups.

    `rev` is the order in force (a revolution and 11-back); `lock` the locked suit set, 0 for none.
    """
    out: list[Play] = []
    beaten = t.facts[id(table)] if table is not None else None
    if beaten is not None and beaten.lone_joker and t.spade_three:
        if hand & SPADE_THREE:
            out.append(t.play(SPADE_THREE, Rank.THREE))
    else:
        if beaten is None or not beaten.sequence:
            for action in general_plays(t, hand, table, table_strength, rev):
                if not isinstance(action, Play):
                    continue
                rank = action.rank
                assert rank is not None
                if t.joker_cells and action.bits & JOKER_MASK and rank is not Rank.JOKER:
                    out.extend(t.cell_play(action.bits, rank, cell) for cell in group_cells(action.cards, rank))
                else:
                    out.append(action)
        if t.sequences and (beaten is None or beaten.sequence):
            out.extend(sequence_plays(t, hand, table, table_strength, rev))
        if lock:
            out = [p for p in out if t.facts[id(p)].lone_joker or t.facts[id(p)].suits == lock]
    if table is None:
        return tuple(out)
    return (*out, PASS)


def group_cells(cards: CardSet, rank: Rank) -> list[Cell]:
    """The cells a joker may take in a group of `rank`: each suit not in `cards`, or the fifth cell."""
    free = [Cell.of(rank, suit) for suit in Suit if not slot_count(cards.bits, card_slot(rank, suit))]
    return free or [Cell.of(rank, None)]


def sequence_plays(t: Tables, hand: int, table: Play | None, table_strength: int, rev: int) -> list[Play]:
    """Every sequence in `hand` (of the table's length, beating it, on a follow), in the listed order."""
    joker = t.jokers_wild and bool(hand & JOKER_MASK)
    found: list[tuple[tuple[int, int, int, int, int], Play]] = []
    for suit in Suit:
        present = [False] * 15
        for column in range(1, 14):
            present[column] = bool(slot_count(hand, card_slot(STANDARD_COLUMNS[column - 1], suit)))
        for low in range(15):
            absent = 0
            bits = 0
            for high in range(low, 15):
                if present[high]:
                    bits += 1 << (card_slot(STANDARD_COLUMNS[high - 1], suit) * SLOT_BITS)
                else:
                    absent += 1
                    if absent > int(joker):
                        break
                length = high - low + 1
                if length < 3 or (table is not None and length != table.size):
                    continue
                # the joker takes the absent cell, or (holding the whole run) any cell, keeping that card
                cells = [c for c in range(low, high + 1) if not present[c]] if absent else (
                    list(range(low, high + 1)) if joker else [])
                choices = [] if absent else [(bits, 0)]
                for column in cells:
                    kept = 0 if not present[column] else 1 << (
                        card_slot(STANDARD_COLUMNS[column - 1], suit) * SLOT_BITS)
                    choices.append((bits - kept + JOKER_ONE, column))
                for cards, column in choices:
                    natural = [c for c in range(low, high + 1) if present[c] and c != column]
                    rank = STANDARD_COLUMNS[natural[0] - 1]
                    play = t.cell_play(cards, rank, Cell(column, suit)) if cards & JOKER_MASK else t.play(cards, rank)
                    bottom = t.facts[id(play)].bottom[rev]
                    if table is not None and bottom <= table_strength:
                        continue
                    found.append(((bottom, length, 1 if cards & JOKER_MASK else 0, suit, column), play))
    found.sort(key=_sequence_key)
    return [play for _, play in found]


def _sequence_key(entry: tuple[tuple[int, int, int, int, int], Play]) -> tuple[int, int, int, int, int]:
    return entry[0]


def _strength_of(segment: tuple[int, list[Play]]) -> int:
    return segment[0]


def beats(t: Tables, bits: int, rank: Rank, table: Play, table_strength: int, rev: int) -> bool:
    """RULES 1.1: do these cards, standing for `rank`, beat `table` (of strength `table_strength`)?"""
    mine = t.strength[rev][rank]
    if mine > table_strength:
        return True
    if mine < table_strength or t.strict:
        return False
    if t.suit_order is None:
        return True
    return t.top_suit(bits) > t.top_suit(table.bits)


def give_backs(t: Tables, hand: int, owed: int) -> tuple[Action, ...]:
    """Every choice of `owed` cards from `hand`, worst first; one per class of interchangeable cards."""
    every_suit = t.rules.suits_matter
    # Interchangeable cards form a class (a rank, or one exact card where suits matter);
    # classes go worst first, and a class lists its cards lowest suit first.
    classes: list[list[int]] = []
    ranks_done: set[int] = set()
    for slot in reversed(t.tribute_slots):
        count = slot_count(hand, slot)
        if not count:
            continue
        if every_suit or slot == JOKER_SLOT:
            classes.append([1 << (slot * SLOT_BITS)] * count)
        elif slot // 4 not in ranks_done:
            ranks_done.add(slot // 4)
            classes.append(unit_bits(hand & rank_bucket_mask(Rank(slot // 4 + 2))))
    out: list[Action] = []
    for combo in combinations_with_replacement(range(len(classes)), owed):
        bits = 0
        for index in set(combo):
            taken = combo.count(index)
            if taken > len(classes[index]):
                break
            bits += sum(classes[index][:taken])
        else:
            out.append(GiveBack(CardSet.from_bits(bits)))
    return tuple(out)


def requests(t: Tables, hand: int, owed: int) -> tuple[Action, ...]:
    """Every request of up to `owed` cards the deck holds more copies of than `hand` does."""
    deck = t.deck.bits
    units: list[int] = []
    for slot in t.tribute_slots:
        free = slot_count(deck, slot) - slot_count(hand, slot)
        units.extend([1 << (slot * SLOT_BITS)] * free)
    out: list[Action] = [Request(CardSet.from_bits(0))]
    seen: set[int] = {0}
    for size in range(1, owed + 1):
        for combo in combinations(range(len(units)), size):
            bits = sum(units[i] for i in combo)
            if bits not in seen:
                seen.add(bits)
                out.append(Request(CardSet.from_bits(bits)))
    return tuple(out)
