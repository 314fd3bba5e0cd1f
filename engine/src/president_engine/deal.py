"""The seeded shuffle: a deal as a pure function of the match seed and the deal number.

The deck (card slots ascending, copies together, jokers last) is sorted by
64-bit keys read little-endian from SHAKE-256 of ``president/<seed>/<deal>``,
then dealt one card at a time from the first seat dealt to, so any language
can reproduce a deal (docs/RULES-DECISIONS.md, Dealing).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from functools import cache
from typing import Final

from president_engine.cards import JOKER_SLOT, SLOT_BITS, CardSet
from president_engine.errors import DealError
from president_engine.rules import Rules


def validate_hands(rules: Rules, deal: int, hands: Sequence[CardSet]) -> None:
    """Raise DealError unless `hands` (by seat) can be deal `deal`'s explicit hands under `rules`."""
    if len(hands) != rules.players:
        raise DealError(f"deal {deal}: {len(hands)} hands for {rules.players} players")
    total = CardSet()
    for seat, hand in enumerate(hands):
        if not hand:
            raise DealError(f"deal {deal}: the hand of seat {seat} is empty")
        if not rules.fresh_deal(deal) and rules.exchange and len(hand) < 2:
            raise DealError(f"deal {deal}: with exchange every hand needs at least 2 cards (seat {seat})")
        total = total + hand
    if not total <= rules.deck:
        raise DealError(f"deal {deal}: the hands hold more copies of a card than the deck has")


def explicit_seats(rules: Rules, deal: int, seats: Sequence[int]) -> tuple[int, ...]:
    """Deal `deal`'s explicit seats (players by seat) as plain ints; DealError unless each player sits once."""
    n = rules.players
    if len(seats) != n:
        raise DealError(f"deal {deal}: {len(seats)} seats for {n} players")
    seated: set[int] = set()
    for seat, player in enumerate(seats):
        if player not in range(n):
            raise DealError(f"deal {deal}: seat {seat} holds no player (players are 0 to {n - 1})")
        if player in seated:
            raise DealError(f"deal {deal}: player {int(player)} sits in two seats")
        seated.add(player)
    return tuple(int(player) for player in seats)


def given_pass_order(rules: Rules, explicit: int, orders: Sequence[Sequence[int] | None]
                     ) -> tuple[tuple[int, ...] | None, ...]:
    """The pass-limit orders given for the first `explicit` deals as plain ints; DealError unless each names
    every player once and belongs to an explicit deal."""
    if len(orders) > explicit:
        raise DealError(f"deal {explicit + 1}: a pass order given for a deal without explicit hands")
    n = rules.players
    for deal, order in enumerate(orders, 1):
        if order is not None and sorted(order) != list(range(n)):
            raise DealError(f"deal {deal}: the pass order {list(order)} does not name each of players 0 to {n - 1}"
                            " once")
    return tuple(None if order is None else tuple(int(p) for p in order) for order in orders)


def shuffled_deal(rules: Rules, seed: int, deal: int, start_seat: int) -> list[CardSet]:
    """The hands the seeded shuffle deals, by seat, dealing from `start_seat` in seat order."""
    units, keys_format = _deck(rules.decks, rules.jokers)
    keys = keys_format.unpack(_SHAKE_256(f"president/{seed}/{deal}".encode()).digest(keys_format.size))
    n = rules.players
    hands = [0] * n
    seat = start_seat
    for index in _order(keys):
        hands[seat] += units[index]
        seat = seat + 1 if seat + 1 < n else 0
    return [CardSet.from_bits(h) for h in hands]


def board_hands(rules: Rules, seed: int) -> tuple[tuple[CardSet, ...], ...]:
    """The hands a duplicate board fixes, by seat, deal after deal: what the shuffle deals with `seed` from seat 0
    for every deal of a match of so many deals; with a target score instead, deal 1's only (later deals follow
    the shared seed)."""
    deals = rules.deals if rules.target_score is None and rules.deals is not None else 1
    return tuple(tuple(shuffled_deal(rules, seed, deal, 0)) for deal in range(1, deals + 1))


def _order(keys: tuple[int, ...]) -> list[int]:
    """The card indexes sorted by their keys (stable: equal keys keep the deck's order).

    Sorting small ints is several times cheaper than sorting 64-bit ones, so
    each key's top bits, with the index below them, are sorted first (a plain
    int sort, unique values); only when two top parts are equal does the order
    need the whole keys.
    """
    index_bits = len(keys).bit_length()
    drop = 64 - (30 - index_bits)  # packed values stay below 2**30: one digit of a Python int
    mask = (1 << index_bits) - 1
    packed = sorted([(key >> drop) << index_bits | index for index, key in enumerate(keys)])
    previous = -1
    for value in packed:
        top = value >> index_bits
        if top == previous:
            return sorted(range(len(keys)), key=keys.__getitem__)
        previous = top
    return [value & mask for value in packed]


_SHAKE_256: Final = hashlib.shake_256
"""A Final alias compiles to a C constant under mypyc (a module attribute is two dict lookups)."""


@cache
def _deck(decks: int, jokers: int) -> tuple[tuple[int, ...], struct.Struct]:
    """The deck before the shuffle (one card's bits per card, in slot order) and the format of its keys."""
    slots = [slot for slot in range(52) for _ in range(decks)] + [JOKER_SLOT] * (jokers * decks)
    return tuple(1 << (slot * SLOT_BITS) for slot in slots), struct.Struct(f"<{len(slots)}Q")
