"""`SharedEvents`: a match's log entries encoded once and sent as the same message on every stream.

It knows no runner: a match's runner carries its one SharedEvents (`feeds.shared_events`), and the feeds read it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb

from president_service.play.strike import LogEvent, Strike, TakenOver, visible

_M = TypeVar("_M")


def event_message(event: LogEvent, seq: int) -> pb.Event:
    """A log entry already redacted for its receiver (strike.visible)."""
    if isinstance(event, Strike):
        action = None if event.action is None else convert.action_to_proto(event.action)
        return pb.Event(seq=seq, strike_recorded=pb.StrikeRecorded(
            player=event.player, strikes=event.strikes, action=action))
    if isinstance(event, TakenOver):
        return pb.Event(seq=seq, seat_taken_over=pb.SeatTakenOver(player=event.player))
    return convert.event_to_proto(event, seq)


class SharedEvents:
    """A match's latest log entries, each encoded once and sent as the same message on every stream.

    An entry is shared only with receivers for whom `visible` leaves it whole;
    a redacted copy is built for its one receiver and never stored, so a
    shared message never carries a card its receiver may not see.  Messages
    are not changed once built.  They are kept until the event loop's current
    round of callbacks is done: the streams a move wakes read them in that
    round, and a match waiting for its next move keeps none (each message
    holds native protobuf memory); a stream that reads later encodes its own.
    """

    __slots__ = ("_clearing", "_seats", "_spectators")

    def __init__(self) -> None:
        self._seats: dict[int, pb.PlayResponse] = {}
        self._spectators: dict[int, pb.SpectateResponse] = {}
        self._clearing = False

    def for_seat(self, entry: LogEvent, seq: int, player: int) -> pb.PlayResponse | None:
        """Entry `seq` as `player` may see it; None if hidden."""
        return self._shared(self._seats, lambda event: pb.PlayResponse(event=event), entry, seq, player)

    def for_spectator(self, entry: LogEvent, seq: int) -> pb.SpectateResponse | None:
        """Entry `seq` as a spectator may see it; None if hidden."""
        return self._shared(self._spectators, lambda event: pb.SpectateResponse(event=event), entry, seq, None)

    def _shared(self, cache: dict[int, _M], wrap: Callable[[pb.Event], _M], entry: LogEvent, seq: int,
                receiver: int | None) -> _M | None:
        shown = visible(entry, receiver)
        if shown is not entry:
            return None if shown is None else wrap(event_message(shown, seq))
        message = cache.get(seq)
        if message is None:
            message = cache[seq] = wrap(event_message(entry, seq))
            if not self._clearing:
                self._clearing = True
                asyncio.get_running_loop().call_soon(self._clear)
        return message

    def _clear(self) -> None:
        self._seats.clear()
        self._spectators.clear()
        self._clearing = False
