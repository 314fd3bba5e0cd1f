"""`OverServer`: playing one scheduled match on a game server — create it, start its seats, wait, read the replay.

Command bots run as child processes, one per seat, in the ladder file's
folder, with the placeholders of their command filled in; their stdout and
stderr go to the match's folder under the ladder's run folder (cut to
`LOG_CAP` bytes each), beside the match's record.  Built-in levels run in
this process through the SDK's network runner, so they talk to the server
exactly as any client does.  Any seat that fails (a command that exits
non-zero, a bot that raises), a match that does not end in time, or a server
error raises `MatchError`; the caller decides whether to try again.  The
result is read back from the server's replay, so what is counted is what
the server recorded, with each seat's faults as the server counted them.
"""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

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
from president_harness.rpc_errors import describe_rpc_error

_POLL_S = 0.05
_STATUS_S = 0.5
"""How often the server is asked whether the match is over."""
_LEAVE_S = 5.0
"""How long seats may take to leave once the match is over before they are stopped."""


LOG_CAP = 64 * 1024
"""Bytes of a command bot's stdout or stderr kept per match: the first and the last half."""


class MatchError(RuntimeError):
    """One attempt at a match failed; nothing of it is counted.  `bot`: the bot whose program crashed, if one did."""

    def __init__(self, message: str, *, bot: str = "") -> None:
        super().__init__(message)
        self.bot = bot


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
    base: Path
    """Where command bots run (the ladder file's folder)."""
    runs: Path
    """The ladder's run folder: one folder per match with its record and the command bots' output."""

    def __call__(self, spec: MatchSpec) -> Outcome:
        return _play(spec, self)


class _Seat(Protocol):
    name: str

    def failure(self) -> str | None: ...
    def finished(self) -> bool: ...
    def stop(self) -> None: ...


class _ProcessSeat:
    """A command bot's process, its output written to `logs` (.stdout, .stderr); stderr explains a failure."""

    def __init__(self, name: str, argv: list[str], cwd: Path, logs: Path) -> None:
        self.name = name
        self._argv = argv
        self._out, self._err = logs.with_suffix(".stdout"), logs.with_suffix(".stderr")
        with self._out.open("wb") as out, self._err.open("wb") as err:
            self._proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)

    def finished(self) -> bool:
        return self._proc.poll() is not None

    def failure(self) -> str | None:
        code = self._proc.poll()
        if code is None or code == 0:
            return None
        tail = self._err.read_bytes()[-4096:].decode(errors="replace").strip().splitlines()[-5:]
        return f"{self.name} ({self._argv[0]}) exited with status {code}: " + " | ".join(tail)

    def stop(self) -> None:
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        for path in (self._out, self._err):
            _cap(path)


def _cap(path: Path) -> None:
    """Keep the first and the last LOG_CAP // 2 bytes of a log, with a line saying what was cut."""
    size = path.stat().st_size
    if size <= LOG_CAP:
        return
    data = path.read_bytes()
    half = LOG_CAP // 2
    path.write_bytes(data[:half] + f"\n[... {size - 2 * half} bytes cut ...]\n".encode() + data[-half:])


class _BuiltinSeat:
    """A built-in level, played over the network from a thread of this process."""

    def __init__(self, name: str, level: str, seed: int, server: str, token: str) -> None:
        self.name = name
        self._error: str | None = None
        self._cancel = threading.Event()
        self._thread = threading.Thread(target=self._play, args=(level, seed, server, token), daemon=True)
        self._thread.start()

    def _play(self, level: str, seed: int, server: str, token: str) -> None:
        try:
            run_seat(builtin_bot(level, seed=seed), server=server, token=token, cancel=self._cancel)
        except Exception as exc:  # reported as the attempt's failure
            if not self._cancel.is_set():
                self._error = f"built-in {level}: {type(exc).__name__}: {exc}"

    def finished(self) -> bool:
        return not self._thread.is_alive()

    def failure(self) -> str | None:
        return self._error

    def stop(self) -> None:
        """Leave the match (an attempt given up, or the match over and the seat still there)."""
        self._cancel.set()


def match_folder(runs: Path, index: int) -> Path:
    """Where match `index` of the schedule keeps its record and its command bots' output."""
    return runs / f"match-{index:05d}"


def _play(spec: MatchSpec, table: OverServer) -> Outcome:
    """Play `spec` on the server of `table`; raises MatchError."""
    started = time.monotonic()
    admin = (("authorization", f"Bearer {table.admin_token}"),)
    folder = match_folder(table.runs, spec.index)
    folder.mkdir(parents=True, exist_ok=True)
    with grpc.insecure_channel(table.server) as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        try:
            created = stub.CreateMatch(_request(spec, table), metadata=admin, timeout=30)
        except grpc.RpcError as exc:
            raise MatchError(f"CreateMatch: {describe_rpc_error(exc, table.server)}") from None
        seats: list[_Seat] = []
        try:
            for seat_token in created.seats:
                player = seat_token.player
                bot = table.bots[spec.bots[player]]
                if bot.builtin is not None:
                    seats.append(_BuiltinSeat(bot.name, bot.builtin, spec.seed, table.server, seat_token.token))
                else:
                    argv = bot.argv(server=table.server, token=seat_token.token, match=created.match_id,
                                    player=player, seed=spec.seed)
                    argv[0] = bot.program(table.base) or argv[0]
                    seats.append(_ProcessSeat(bot.name, argv, table.base, folder / f"player{player}-{bot.name}"))
            _wait(seats, started + table.timeout_s, created.match_id, stub)
            summary = stub.GetMatch(pb.GetMatchRequest(match_id=created.match_id), timeout=30).match
            if summary.status != pb.MATCH_STATUS_OVER:
                raise MatchError(f"match {created.match_id}: every seat left but the match is not over")
            replay = stub.GetReplay(pb.GetReplayRequest(match_id=created.match_id), metadata=admin,
                                    timeout=30).replay
        except grpc.RpcError as exc:
            raise MatchError(f"match {created.match_id}: {describe_rpc_error(exc, table.server)}") from None
        finally:
            for seat in seats:
                seat.stop()
    record = replay_from_proto(replay)
    (folder / "record.json").write_text(record.dumps(), encoding="utf-8")
    match = record.replay()
    places = tuple(e.places for e in match.events if isinstance(e, DealEnded))
    return Outcome(index=spec.index, board=spec.board, seating=spec.seating, bots=spec.bots, places=places,
                   scores=tuple(match.scores), match_id=created.match_id, seconds=time.monotonic() - started,
                   taken_over=tuple(p.player for p in summary.players if p.taken_over),
                   faults=tuple((p.faults.errors, p.faults.timeouts, p.faults.invalid, p.faults.strikes)
                                for p in summary.players))


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
                crashed = seat.name if isinstance(seat, _ProcessSeat) else ""
                raise MatchError(f"match {match_id}: {failure}", bot=crashed)
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
