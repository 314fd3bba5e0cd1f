"""What a running match hands out: a seat's open `Turn`, a stream's `Wake`, and the keys (`DealKey`) of what it
deals."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from president_engine import CardSet, Observation


@dataclass(frozen=True, slots=True)
class Shuffle:
    """The seeded shuffle of one deck for one table: every deal it deals follows from these, and a replay shows
    the seed."""

    seed: int
    players: int
    decks: int
    jokers: int


DealKey = tuple[int, ...] | Shuffle
"""Something a match deals that watching another match must not tell: one deal's hands, or the shuffle its
shuffled deals come from (see Registry.deal_in_play)."""


def hands_key(hands: Iterable[CardSet]) -> tuple[int, ...]:
    """One deal's hands, the same whatever seat each is dealt to and whatever the seed or number of deals."""
    return tuple(sorted(hand.bits for hand in hands))


@dataclass(frozen=True, slots=True)
class Turn:
    """A seat's open turn, as a Prompt shows it."""

    turn_id: int
    observation: Observation
    deadline_unix: float | None
    """Wall-clock time after which the server acts for the seat; None without a clock."""
    bank_ms: int


class Wake:
    """A stream's wake-up call: set whenever the match log grows, cleared by the stream as it catches up.

    Like asyncio.Event for its one waiter, without the deque and dict every
    Event carries (a live match holds one per open stream).  With `then`, no
    task waits on it: setting it calls `then` (a Session's feeds, which one
    task serves, are put in its ready queue so).
    """

    __slots__ = ("_is_set", "_then", "_waiter")

    def __init__(self, then: Callable[[], None] | None = None) -> None:
        self._is_set = False
        self._then = then
        self._waiter: asyncio.Future[None] | None = None

    def set(self) -> None:
        if self._then is not None:
            if not self._is_set:
                self._is_set = True
                self._then()
            return
        self._is_set = True
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def clear(self) -> None:
        self._is_set = False

    async def wait(self) -> None:
        if self._is_set:
            return
        self._waiter = asyncio.get_running_loop().create_future()
        try:
            await self._waiter
        finally:
            self._waiter = None
