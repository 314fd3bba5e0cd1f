"""Legal-move generation: what the player to act may do, in the engine's fixed order.

Functions of the state they read (the rule tables, a hand, the play to
beat), so that the match's state and its transitions stay in match.py.
The order of each list (docs/RULES-DECISIONS.md):

- play: plays by strength in the current order (low first), then by number
  of cards, then by number of wild cards, then by the cards' bits; ``pass``
  last when allowed;
- give-back: worst cards first (the reverse of the tribute order);
- request: the empty request first, then fewer cards first, best cards first.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import chain, combinations, combinations_with_replacement

from president_engine.actions import PASS, Action, GiveBack, Play, Request
from president_engine.cards import JOKER_SLOT, SLOT_BITS, CardSet, Rank, bits_size, rank_bucket_mask, slot_count
from president_engine.tables import JOKER_ONE, Tables, unit_bits


def bucket_row(t: Tables, hand: int) -> list[tuple[Play, ...]]:
    """Simple rules only: each rank's canonical plays from `hand`, by strength in the normal order.

    The match keeps one row per seat and updates the played rank's entry, so
    `simple_plays` only reads it.
    """
    canonical = t.canonical
    return [canonical(hand & mask) for mask in t.rank_masks]


def simple_plays(t: Tables, row: Sequence[tuple[Play, ...]], table: Play | None, table_strength: int,
                 rev: int) -> tuple[Action, ...]:
    """No wild cards, jokers or suit order: read the seat's canonical plays by rank."""
    if table is None:
        return tuple(chain.from_iterable(reversed(row) if rev else row))
    k = table.size
    start = table_strength + 1 if t.strict else table_strength
    above = (row[12 - start::-1] if start <= 12 else []) if rev else row[start:]
    out: list[Action] = [plays[k - 1] for plays in above if len(plays) >= k]
    out.append(PASS)
    return tuple(out)


def general_plays(t: Tables, hand: int, table: Play | None, table_strength: int, rev: int) -> tuple[Action, ...]:
    """Plays with wild cards, jokers or suit order: enumerate, then sort."""
    strength = t.strength[rev]
    every_suit = t.suit_order is not None
    wild_sets = _wild_subsets(t, hand & t.wild_mask, every_suit)
    k = 0 if table is None else table.size
    found: list[tuple[int, int, int, int, Play]] = []

    def add(bits: int, rank: Rank, wilds: int) -> None:
        size = bits_size(bits)
        if table is not None and (size != k or not beats(t, bits, rank, table, table_strength, rev)):
            return
        found.append((strength[rank], size, wilds, bits, t.play(bits, rank)))

    for rank in t.natural_ranks:
        bucket = hand & rank_bucket_mask(rank)
        if not bucket:
            continue
        for size, subsets in subsets_by_size(bucket, every_suit).items():
            if table is not None and size > k:
                break
            for natural in subsets:
                for wild_bits, wild_size in wild_sets:
                    if table is None or size + wild_size == k:
                        add(natural + wild_bits, rank, wild_size)
    for wild_bits, wild_size in wild_sets:
        if wild_size == 0 or (table is not None and wild_size != k):
            continue
        if not t.declared:
            add(wild_bits, Rank.JOKER, wild_size)
        elif table is None:
            add(wild_bits, t.rules.wild_lead_rank, wild_size)
        else:  # a follow of wild cards alone: the one play that declares its rank
            for rank in t.natural_ranks:
                if beats(t, wild_bits, rank, table, table_strength, rev):
                    found.append((strength[rank], k, wild_size, wild_bits, t.declared_play(wild_bits, rank)))
    jokers = slot_count(hand, JOKER_SLOT)
    if jokers and not t.jokers_wild:
        for count in range(1, jokers + 1):
            add(count * JOKER_ONE, Rank.JOKER, 0)
    found.sort(key=lambda item: item[:4])
    out: list[Action] = [item[4] for item in found]
    if table is not None:
        out.append(PASS)
    return tuple(out)


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
    every_suit = t.suit_order is not None
    # Interchangeable cards form a class (a rank, or one exact card under suit_order);
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


def _wild_subsets(t: Tables, wild: int, every_suit: bool) -> list[tuple[int, int]]:
    """(bits, size) of every choice of wild cards from `wild`, the empty one first."""
    choices = [(0, 0)]
    if not wild:
        return choices
    jokers = slot_count(wild, JOKER_SLOT)
    groups: list[list[tuple[int, int]]] = []
    if jokers:
        groups.append([(0, 0)] + [(j * JOKER_ONE, j) for j in range(1, jokers + 1)])
    for rank in sorted(t.rules.wild_ranks):
        bucket = wild & rank_bucket_mask(rank)
        if bucket:
            options = [(0, 0)]
            for size, subsets in subsets_by_size(bucket, every_suit).items():
                options.extend((bits, size) for bits in subsets)
            groups.append(options)
    for group in groups:
        choices = [(a + b, sa + sb) for a, sa in choices for b, sb in group]
    choices.sort(key=lambda c: (c[1], c[0]))
    return choices


@lru_cache(maxsize=1 << 14)
def subsets_by_size(bucket: int, every_suit: bool) -> dict[int, list[int]]:
    """Sub-multisets of a bucket by size: canonical lowest suits, or every distinct one."""
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
