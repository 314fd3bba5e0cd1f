"""Ending a Play stream or a Session without ending it under its client's write.

grpc's asyncio client turns a write that reaches a call the server has ended into INTERNAL, overwriting the
status (grpc/grpc#36066). A client prompted for a turn it has not settled may be writing its answer just as the
server ends the call: a Play stream whose match the server's move for it ended, a Session revoked or replaced,
either as the server drains. The call's reader therefore reads on until every such turn is answered (answering
each message, bounded by `hear_out`), and only then does the writer end the call.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from president_protocol.v1 import president_pb2 as pb

ANSWER_WAIT_S = 2.0
"""How long a stream that ends while a prompt of its client is unanswered waits for the client's next message
(each one read gives it this long again, up to a number of slices its caller sets)."""
OVER_SLICES = 5
"""At most 5 x `ANSWER_WAIT_S` in all before MatchOver, for a client answering a backlog of timed-out prompts."""
DRAIN_SLICES = 2
"""At most 2 x `ANSWER_WAIT_S` before an error status (SHUTTING_DOWN and the others): below the default shutdown
grace (5 s), after which gRPC cancels the call."""
_TURN_SETTLED = frozenset({pb.ERROR_REASON_STALE_TURN, pb.ERROR_REASON_DUPLICATE_ACTION, pb.ERROR_REASON_MATCH_OVER})
"""Refusals of an Act that tell its client the turn is no longer its to play (the others leave it open)."""


class Heard:
    """What a call's reader has heard of its client, for the writer as it ends the call: per match (one, "", on a
    Play stream), the latest turn the client settled."""

    __slots__ = ("read", "turns", "until")

    def __init__(self) -> None:
        self.turns: dict[str, int] = {}
        """Match -> the latest turn the client's Act was answered for with the turn settled: accepted, or refused
        because the turn is over (STALE_TURN, DUPLICATE_ACTION, MATCH_OVER); an illegal or malformed Act leaves it
        open."""
        self.read = 0
        """Messages read while the writer ends the call."""
        self.until: dict[str, int] = {}
        """Set by the writer as it ends the call (`hear_out`): match -> the last turn it prompted, not yet settled."""

    def answered(self, turn_id: int, response: pb.PlayResponse, match_id: str = "") -> None:
        if turn_id > self.turns.get(match_id, 0) and (response.HasField("action_accepted")
                                                      or response.action_rejected.error_reason in _TURN_SETTLED):
            self.turns[match_id] = turn_id

    def heard_out(self) -> bool:
        """Count one message read; whether the writer is ending the call and the client has settled every turn it
        was prompted for (it is not writing now: the reader stops)."""
        if not self.until:
            return False
        self.read += 1
        return all(turn <= self.turns.get(match_id, 0) for match_id, turn in self.until.items())


async def hear_out(reader: asyncio.Task[None], heard: Heard, prompted: Mapping[str, int], slices: int) -> None:
    """Before the call ends: if the client was prompted for a turn it has not settled (`prompted`: match -> its
    latest prompted turn), let the reader read on until the client settles every such turn or half-closes, or has
    been quiet for `ANSWER_WAIT_S`, for at most `slices` of it."""
    heard.until = {match_id: turn for match_id, turn in prompted.items() if turn > heard.turns.get(match_id, 0)}
    try:
        for _ in range(slices if heard.until else 0):
            read = heard.read
            await asyncio.wait((reader,), timeout=ANSWER_WAIT_S)
            if reader.done() or heard.read == read:
                return
    finally:
        heard.until = {}
