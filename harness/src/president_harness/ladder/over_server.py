"""`OverServer`: playing scheduled matches on a game server, with the bots connected once for many matches.

`OverServer` is the recipe (plain data: it travels to Ray workers);
`open` gives a `ServerTable`, which holds what one worker keeps for the
whole ladder and plays one match per call, from many threads at once:

- a bot account per Session bot (built-in levels, and commands given
  ``{account_token}``: one account, or one per parallel slot for a command
  that is not `concurrent`), each match seating them with
  `CreateMatchRequest.seat_accounts`;
- the built-in levels, played from one asyncio client (`BuiltinSessions`);
- the Session commands, started once (`SessionBots`: restarted after a
  crash, which is counted against the bot while its matches play on);
- a `MatchWatch` that learns when matches end.

A command given ``{token}`` still runs once per seat, as a child process in
the ladder file's folder with its output in the match's folder.  A match
ends in time or its attempt fails with `MatchError` (a per-seat bot that
exits non-zero, a timeout, a server error); the caller decides whether to
try again.  The result is read back from the server's replay, so what is
counted is what the server recorded, with each seat's faults as the server
counted them.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import grpc
from president_engine import CardSet, Rules
from president_engine.events import DealEnded
from president_protocol.convert import cards_to_proto, replay_from_proto, rules_to_proto
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_sdk.connection import RECONNECT_OPTIONS
from president_sdk.session_client import FinishedMatch
from president_service.play.clock import ClockSettings
from president_service.play.messages import clock_message

from president_harness.builtin_sessions import BuiltinSessions
from president_harness.ladder.backends import LadderStopError
from president_harness.ladder.bot_process import BotProcess
from president_harness.ladder.config import BotSpec
from president_harness.ladder.ladder_accounts import AccountError, account_name, ladder_account
from president_harness.ladder.match_watch import MatchWatch
from president_harness.ladder.outcome import Outcome
from president_harness.ladder.schedule import MatchSpec
from president_harness.ladder.session_bots import SessionBotProcess, SessionBots
from president_harness.rpc_errors import describe_rpc_error

_POLL_S = 0.05
_CALL_S = 30.0
"""How long a call waits for the server (through a restart by the ladder's watchdog) before the attempt fails."""
_LEAVE_S = 5.0
"""How long per-seat bots may take to leave once the match is over before they are stopped."""


class MatchError(RuntimeError):
    """One attempt at a match failed; nothing of it is counted.  `bot`: the bot whose program crashed, if one did."""

    def __init__(self, message: str, *, bot: str = "") -> None:
        super().__init__(message)
        self.bot = bot


@dataclass(frozen=True, kw_only=True, slots=True)
class OverServer:
    """How to play the ladder's matches on the game server at `server` (plain data: it travels to Ray)."""

    server: str
    admin_token: str
    preset: str
    rules: Rules
    clock: ClockSettings
    bots: Mapping[str, BotSpec]
    timeout_s: float
    base: Path
    """Where command bots run (the ladder file's folder)."""
    runs: Path
    """The ladder's run folder: one folder per match with its record and its per-seat bots' output; the Session
    bots' output in ``bots/``."""
    ladder: str
    """Names the ladder's accounts (its name and db)."""
    parallel: int
    """Matches at once: the slots of a Session command that plays one match at a time."""

    def open(self, worker: int = 0) -> ServerTable:
        """Connect this worker's bots; close the table when the ladder is done."""
        return ServerTable(self, worker)


def match_folder(runs: Path, index: int) -> Path:
    """Where match `index` of the schedule keeps its record and its per-seat bots' output."""
    return runs / f"match-{index:05d}"


class ServerTable:
    """What one worker holds for the whole ladder; call it to play one match (from any thread)."""

    def __init__(self, recipe: OverServer, worker: int) -> None:
        self._recipe = recipe
        self._channel = grpc.insecure_channel(recipe.server, options=RECONNECT_OPTIONS)
        self._stub = pb_grpc.PresidentServiceStub(self._channel)
        self._lock = threading.Lock()
        self._free: dict[str, list[str]] = {}
        """Session bot -> its accounts free for another match (a concurrent bot's one account is always free)."""
        self._concurrent: dict[str, str] = {}
        commands = [b for b in recipe.bots.values() if b.session and b.builtin is None]
        levels = [b for b in recipe.bots.values() if b.builtin is not None]
        with contextlib.ExitStack() as undo:
            undo.callback(self._channel.close)
            # Commands first: their processes start up while the rest is set up.
            seats = [SessionBotProcess(bot=bot, account_token=token, logs=recipe.runs / "bots" / name)
                     for bot in commands for name, token in self._accounts(bot, worker)]
            self._sessions = SessionBots(seats, recipe.server, recipe.base)
            undo.callback(self._sessions.close)
            tokens = {token: bot.builtin for bot in levels for _, token in self._accounts(bot, worker)
                      if bot.builtin is not None}
            self._watch = MatchWatch(self._stub)
            undo.callback(self._watch.close)
            self._builtins = BuiltinSessions(recipe.server, tokens, on_finished=self._finished).__enter__()
            undo.pop_all()

    def _accounts(self, bot: BotSpec, worker: int) -> list[tuple[str, str]]:
        """The bot's accounts on the server (name, token): one, or one per slot when it is not concurrent."""
        recipe = self._recipe
        slots = 1 if bot.builtin is not None or bot.concurrent else recipe.parallel
        names = [account_name(recipe.ladder, bot.name, worker, slot) for slot in range(slots)]
        try:
            tokens = [ladder_account(self._stub, recipe.admin_token, name, f"ladder {recipe.ladder}", recipe.server)
                      for name in names]
        except AccountError as exc:
            raise LadderStopError(str(exc)) from None
        if slots == 1:
            self._concurrent[bot.name] = names[0]
        else:
            self._free[bot.name] = names
        return list(zip(names, tokens, strict=True))

    def _finished(self, match: FinishedMatch) -> None:
        self._watch.over(match.match_id)

    def close(self) -> None:
        self._sessions.close()
        self._builtins.close()
        self._watch.close()
        self._channel.close()

    # ------------------------------------------------------------------ one match

    def __call__(self, spec: MatchSpec) -> Outcome:
        recipe = self._recipe
        started = time.monotonic()
        admin = (("authorization", f"Bearer {recipe.admin_token}"),)
        folder = match_folder(recipe.runs, spec.index)
        folder.mkdir(parents=True, exist_ok=True)
        accounts = self._take(spec)
        seats: list[BotProcess] = []
        match_id = ""
        try:
            try:
                created = self._stub.CreateMatch(self._request(spec, accounts), metadata=admin, timeout=_CALL_S,
                                                 wait_for_ready=True)
            except grpc.RpcError as exc:
                raise MatchError(f"CreateMatch: {describe_rpc_error(exc, recipe.server)}") from None
            match_id = created.match_id
            over = self._watch.expect(match_id)
            for seat_token in created.seats:
                player = seat_token.player
                bot = recipe.bots[spec.bots[player]]
                if not bot.session:
                    argv = bot.argv(server=recipe.server, token=seat_token.token, match=match_id, player=player,
                                    seed=spec.command_seed)
                    argv[0] = bot.program(recipe.base) or argv[0]
                    seats.append(BotProcess(bot.name, argv, recipe.base, folder / f"player{player}-{bot.name}"))
            self._wait(seats, over, started + recipe.timeout_s, match_id)
            summary = self._stub.GetMatch(pb.GetMatchRequest(match_id=match_id), timeout=_CALL_S,
                                          wait_for_ready=True).match
            if summary.status != pb.MATCH_STATUS_OVER:
                raise MatchError(f"match {match_id}: every seat left but the match is not over")
            replay = self._stub.GetReplay(pb.GetReplayRequest(match_id=match_id), metadata=admin, timeout=_CALL_S,
                                          wait_for_ready=True).replay
        except grpc.RpcError as exc:
            raise MatchError(f"match {match_id}: {describe_rpc_error(exc, recipe.server)}") from None
        finally:
            for seat in seats:
                seat.stop()
            self._give_back(spec, accounts)
            if match_id:
                self._watch.forget(match_id)
        record = replay_from_proto(replay)
        (folder / "record.json").write_text(record.dumps(), encoding="utf-8")
        match = record.replay()
        places = tuple(e.places for e in match.events if isinstance(e, DealEnded))
        return Outcome(index=spec.index, board=spec.board, seating=spec.seating, bots=spec.bots, places=places,
                       scores=tuple(match.scores), match_id=match_id, seconds=time.monotonic() - started,
                       taken_over=tuple(p.player for p in summary.players if p.taken_over),
                       faults=tuple((p.faults.errors, p.faults.timeouts, p.faults.invalid, p.faults.strikes)
                                    for p in summary.players),
                       moves=sum(len(deal.actions) for deal in replay.deals),
                       crashes=tuple(self._sessions.take_crashes()))

    def _take(self, spec: MatchSpec) -> list[str]:
        """The account seated at each player ("" for a per-seat bot): a free one of each Session bot."""
        with self._lock:
            out = []
            for name in spec.bots:
                if name in self._concurrent:
                    out.append(self._concurrent[name])
                elif name in self._free:
                    if not self._free[name]:
                        raise MatchError(f"no free account of {name}: more matches at once than its slots")
                    out.append(self._free[name].pop())
                else:
                    out.append("")
            return out

    def _give_back(self, spec: MatchSpec, accounts: list[str]) -> None:
        with self._lock:
            for name, account in zip(spec.bots, accounts, strict=True):
                if name in self._free:
                    self._free[name].append(account)

    def _request(self, spec: MatchSpec, accounts: list[str]) -> pb.CreateMatchRequest:
        recipe = self._recipe
        return pb.CreateMatchRequest(
            preset=recipe.preset,
            rules=rules_to_proto(recipe.rules),
            seed=spec.seed,
            deals=[pb.DealHands(hands=[pb.Hand(cards=cards_to_proto(CardSet(hand))) for hand in deal])
                   for deal in spec.hands],
            clock=clock_message(recipe.clock),
            seat_names=list(spec.bots),
            seat_accounts=accounts if any(accounts) else [],
            bot_seeds=[spec.seed if recipe.bots[name].builtin is not None else spec.command_seed
                       for name in spec.bots],
        )

    def _wait(self, seats: list[BotProcess], over: threading.Event, deadline: float, match_id: str) -> None:
        """Until the match is over and its per-seat bots have left (or had `_LEAVE_S` to leave).

        A per-seat bot that fails, the deadline, or bots that cannot play end the attempt.
        """
        over_at: float | None = None
        while True:
            for seat in seats:
                failure = seat.failure()
                if failure is not None:
                    raise MatchError(f"match {match_id}: {failure}", bot=seat.name)
            trouble = self._sessions.gave_up or self._builtins.error
            if trouble is not None:
                raise LadderStopError(trouble)
            now = time.monotonic()
            if over_at is None and over.is_set():
                over_at = now
            if over_at is not None and (all(seat.finished() for seat in seats) or now > over_at + _LEAVE_S):
                return
            if now > deadline:
                raise MatchError(f"match {match_id}: not over after the match timeout")
            if over_at is None:
                over.wait(_POLL_S)
            else:
                time.sleep(_POLL_S)
