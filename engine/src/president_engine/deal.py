"""The seeded shuffle: a deal as a pure function of the match seed and the deal number.

The deck (card slots ascending, copies together, jokers last) is sorted by
64-bit keys read little-endian from SHAKE-256 of ``president/<seed>/<deal>``,
then dealt one card at a time from the first seat dealt to, so any language
can reproduce a deal (docs/RULES-DECISIONS.md, Dealing).
"""

from __future__ import annotations

import hashlib
import struct
from functools import cache

from president_engine.cards import JOKER_SLOT, SLOT_BITS, CardSet
from president_engine.rules import Rules


def shuffled_deal(rules: Rules, seed: int, deal: int, start_seat: int) -> list[CardSet]:
    """The hands the seeded shuffle deals, by seat, dealing from `start_seat` in seat order."""
    deck = _deck_units(rules.decks, rules.jokers)
    size = len(deck)
    keys = struct.unpack(f"<{size}Q", hashlib.shake_256(f"president/{seed}/{deal}".encode()).digest(8 * size))
    units = [deck[i] for i in sorted(range(size), key=keys.__getitem__)]
    n = rules.players
    hands = [0] * n
    for offset in range(n):
        hands[(start_seat + offset) % n] = sum(units[offset::n])
    return [CardSet.from_bits(h) for h in hands]


@cache
def _deck_units(decks: int, jokers: int) -> tuple[int, ...]:
    """The deck before the shuffle, one card's bits per card, in slot order (built once per deck)."""
    slots = [slot for slot in range(52) for _ in range(decks)] + [JOKER_SLOT] * (jokers * decks)
    return tuple(1 << (slot * SLOT_BITS) for slot in slots)
