"""The exchange between deals (RULES 1.4): who gives to whom, and which cards a tribute takes.

One source for every consumer: the match plays it, and the server asks it
who may see a give-back (the pair's two players and nobody else).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from president_engine.cards import SLOT_BITS, SLOT_COUNT, bits_size, slot_count
from president_engine.roles import Role


class ExchangePair(NamedTuple):
    """The receiver of a tribute, its giver, and how many cards go each way."""

    receiver: int
    giver: int
    cards: int


def exchange_pairs(roles: Sequence[Role]) -> tuple[ExchangePair, ...]:
    """The pairs of a deal's exchange by the players' roles (by player): President and Scum, then the Vices."""
    holders = {role: p for p, role in enumerate(roles)}
    pairs = [ExchangePair(holders[Role.PRESIDENT], holders[Role.SCUM], 2)]
    if len(roles) >= 4:
        pairs.append(ExchangePair(holders[Role.VICE_PRESIDENT], holders[Role.VICE_SCUM], 1))
    return tuple(pairs)


def exchange_partner(roles: Sequence[Role], player: int) -> int | None:
    """The player `player` exchanges with in a deal of these roles, or None (a neutral player)."""
    for pair in exchange_pairs(roles):
        if player == pair.receiver:
            return pair.giver
        if player == pair.giver:
            return pair.receiver
    return None


def tribute_bits(hand: int, wanted: int, owed: int, best_slots: Sequence[int]) -> int:
    """The cards a giver holding `hand` pays: the named cards it holds first, then its best (`best_slots`)."""
    given = 0
    for slot in range(SLOT_COUNT):
        take = min(slot_count(wanted, slot), slot_count(hand, slot))
        given += take << (slot * SLOT_BITS)
    for slot in best_slots:
        while bits_size(given) < owed and slot_count(hand - given, slot):
            given += 1 << (slot * SLOT_BITS)
    return given
