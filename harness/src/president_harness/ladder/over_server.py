"""`OverServer`: playing one scheduled match on a game server — create it, start its seats, wait, read the replay.

Command bots run as child processes, one per seat, with the placeholders of
their command filled in; built-in levels run in this process through the
SDK's network runner, so they talk to the server exactly as any client does.
Any seat that fails (a command that exits non-zero, a bot that raises), a
match that does not end in time, or a server error raises `MatchError`;
the caller decides whether to try again.  The result is read back from the
server's replay, so what is counted is what the server recorded.
"""

from __future__ import annotations

import subprocess
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, Protocol

import grpc
from president_engine import CardSet, Rules
from president_engine.events import DealEnded
from president_protocol.convert import cards_to_proto, replay_from_proto, rules_to_proto
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_sdk.bots import builtin_bot
from president_sdk.remote import run as run_seat

from president_harness.ladder.config import BotSpec, ClockSpec
from president_harness.ladder.outcome import Outcome
from president_harness.ladder.schedule import MatchSpec

_POLL_S = 0.05
_STATUS_S = 0.5
"""How often the server is asked whether the match is over."""
_LEAVE_S = 5.0
"""How long seats may take to leave once the match is over before they are stopped."""


class MatchError(RuntimeError):
    """One attempt at a match failed; nothing of it is counted."""


@dataclass(frozen=True, kw_only=True, slots=True)
class OverServer:
    """A `PlayMatch` on the game server at `server`: everything a worker needs (plain data: it travels to Ray)."""

    server: str
    admin_token: str
    preset: str
    rules: Rules
    clock: ClockSpec
    bots: Mapping[str, BotSpec]
    timeout_s: float

    def __call__(self, spec: MatchSpec) -> Outcome:
        return _play(spec, self)


class _Seat(Protocol):
    def failure(self) -> str | None: ...
    def finished(self) -> bool: ...
    def stop(self) -> None: ...


class _ProcessSeat:
    """A command bot's process; its stderr is kept to explain a failure."""

    def __init__(self, argv: list[str]) -> None:
        self._err: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - lives until stop()
        self._argv = argv
        self._proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._err)

    def finished(self) -> bool:
        return self._proc.poll() is not None

    def failure(self) -> str | None:
        code = self._proc.poll()
        if code is None or code == 0:
            return None
        self._err.seek(0)
        tail = self._err.read().decode(errors="replace").strip().splitlines()[-5:]
        return f"{self._argv[0]} exited with status {code}: " + " | ".join(tail)

    def stop(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        self._err.close()


class _BuiltinSeat:
    """A built-in level, played over the network from a thread of this process."""

    def __init__(self, level: str, seed: int, server: str, token: str) -> None:
        self._error: str | None = None
        self._thread = threading.Thread(target=self._play, args=(level, seed, server, token), daemon=True)
        self._thread.start()

    def _play(self, level: str, seed: int, server: str, token: str) -> None:
        try:
            run_seat(builtin_bot(level, seed=seed), server=server, token=token)
        except Exception as exc:  # reported as the attempt's failure
            self._error = f"built-in {level}: {type(exc).__name__}: {exc}"

    def finished(self) -> bool:
        return not self._thread.is_alive()

    def failure(self) -> str | None:
        return self._error

    def stop(self) -> None:
        """A thread cannot be killed: it ends when the server ends its stream."""


def _play(spec: MatchSpec, table: OverServer) -> Outcome:
    """Play `spec` on the server of `table`; raises MatchError."""
    started = time.monotonic()
    admin = (("authorization", f"Bearer {table.admin_token}"),)
    with grpc.insecure_channel(table.server) as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        try:
            created = stub.CreateMatch(_request(spec, table), metadata=admin, timeout=30)
        except grpc.RpcError as exc:
            raise MatchError(f"CreateMatch: {_rpc_text(exc)}") from None
        seats: list[_Seat] = []
        try:
            for seat_token in created.seats:
                bot = table.bots[spec.bots[seat_token.player]]
                if bot.builtin is not None:
                    seats.append(_BuiltinSeat(bot.builtin, spec.seed, table.server, seat_token.token))
                else:
                    seats.append(_ProcessSeat(bot.argv(server=table.server, token=seat_token.token,
                                                       match=created.match_id, player=seat_token.player,
                                                       seed=spec.seed)))
            _wait(seats, started + table.timeout_s, created.match_id, stub)
            summary = stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id), timeout=30).match
            if summary.status != pb.MATCH_STATUS_OVER:
                raise MatchError(f"match {created.match_id}: every seat left but the match is not over")
            replay = stub.GetReplay(pb.GetReplayRequest(match_id=created.match_id), timeout=30).replay
        except grpc.RpcError as exc:
            raise MatchError(f"match {created.match_id}: {_rpc_text(exc)}") from None
        finally:
            for seat in seats:
                seat.stop()
    match = replay_from_proto(replay).replay()
    places = tuple(e.places for e in match.events if isinstance(e, DealEnded))
    return Outcome(index=spec.index, board=spec.board, seating=spec.seating, bots=spec.bots, places=places,
                   scores=tuple(match.scores), match_id=created.match_id, seconds=time.monotonic() - started,
                   taken_over=tuple(p.player for p in summary.players if p.taken_over))


def _request(spec: MatchSpec, table: OverServer) -> pb.CreateMatchRequest:
    return pb.CreateMatchRequest(
        preset=table.preset,
        rules=rules_to_proto(table.rules),
        seed=spec.seed,
        deals=[pb.DealHands(hands=[pb.Hand(cards=cards_to_proto(CardSet(hand))) for hand in deal])
               for deal in spec.hands],
        clock=pb.ClockSettings(move_time_limit_ms=table.clock.move_ms, time_bank_ms=table.clock.bank_ms,
                               strikes_before_takeover=table.clock.strikes),
        seat_names=list(spec.bots),
    )


def _wait(seats: list[_Seat], deadline: float, match_id: str, stub: pb_grpc.PresidentServiceStub) -> None:
    """Until the server says the match is over and the seats have left (or had `_LEAVE_S` to leave).

    The first failing seat or the deadline ends the attempt.
    """
    over_at: float | None = None
    next_poll = 0.0
    while True:
        for seat in seats:
            failure = seat.failure()
            if failure is not None:
                raise MatchError(f"match {match_id}: {failure}")
        now = time.monotonic()
        if over_at is None and now >= next_poll:
            next_poll = now + _STATUS_S
            status = stub.GetMatch(pb.GetMatchRequest(match_id=match_id), timeout=30).match.status
            over_at = now if status == pb.MATCH_STATUS_OVER else None
        if all(seat.finished() for seat in seats) or (over_at is not None and now > over_at + _LEAVE_S):
            return
        if now > deadline:
            raise MatchError(f"match {match_id}: not over after the match timeout")
        time.sleep(_POLL_S)


def _rpc_text(exc: grpc.RpcError) -> str:
    code = exc.code() if isinstance(exc, grpc.Call) else None
    details = exc.details() if isinstance(exc, grpc.Call) else str(exc)
    return f"{code.name if code else 'error'}: {details}"

