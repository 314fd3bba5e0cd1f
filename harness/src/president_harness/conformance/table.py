"""One match of a case, played on the server's own `MatchRunner`, the bot's seat served by the server's `SeatFeed`.

What the bot is sent (Welcome, events, Snapshot, Prompt, TurnDeadline,
ActionAccepted, MatchOver) and how its act is applied are the server's own
code; the suite adds only its judgement (whose turn, how late, how illegal)
and plays the other seats with seeded random legal moves, as their clients
would.  The runners live on one asyncio loop of their own (`RunnerLoop`),
as on the server: their clock times a turn out there.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from president_engine import Action, IllegalActionError, fallback_action
from president_protocol import convert
from president_protocol.v1 import president_pb2 as pb
from president_service.base.errors import Reason, ServiceError
from president_service.base.limits import Limits
from president_service.play.acts import answer, rejected
from president_service.play.clock import ClockSettings
from president_service.play.feeds import SeatFeed, shared_events
from president_service.play.match_runner import MatchRunner
from president_service.play.match_store import ActionRow, MatchStore, Source, StoredMatch

from president_harness.conformance.cases import ContractError, Setting, reach

_T = TypeVar("_T")
_NEVER_S = 24 * 3600.0
"""The runners' start grace and absence limit: the suite starts each clock itself and keeps every seat there."""


class RunnerLoop:
    """An asyncio loop on a thread of its own, where every table's MatchRunner lives, and their store."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="conformance-runners", daemon=True)
        self._thread.start()
        self.store = MatchStore(":memory:")

    def run(self, call: Callable[[], _T]) -> _T:
        """`call()` run on the loop (so between two of a runner's steps, never inside one); its value or error."""
        async def on_loop() -> _T:
            return call()
        return asyncio.run_coroutine_threadsafe(on_loop(), self._loop).result()

    def close(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()
        self.store.close()


@dataclass
class Turn:
    """The bot's open turn, as its feed prompted it."""

    turn_id: int
    deadline: float
    """Unix time; infinite until the clock gives one."""
    prompted_at: float


class Table:
    """One match of a case: the server's runner for it, the bot's seat in it, and the bot's feed of it."""

    def __init__(self, match_id: str, setting: Setting, *, first_seed: int, move_s: float, late_start: bool,
                 loop: RunnerLoop) -> None:
        """`late_start`: the suite's seats connect only after the bot's first prompt, and the clock starts then."""
        start = reach(setting, first_seed)
        self.match_id, self.player, self.seed, self._rng = match_id, start.player, start.seed, start.rng
        self._loop = loop
        self._late_start = late_start
        players = setting.players
        self._others = [p for p in range(players) if p != self.player]
        stored = StoredMatch(
            match_id=match_id, created_at=time.time(), preset=setting.preset, rules=setting.rules(), seed=start.seed,
            hands=None, clock=ClockSettings(move_ms=int(move_s * 1000), bank_ms=0), open_seats=False,
            names=tuple("bot" if p == self.player else f"suite-{p}" for p in range(players)),
            token_hashes=tuple(hashlib.sha256(f"{match_id}/{p}".encode()).digest() for p in range(players)),
            claimed=(True,) * players, named=(True,) * players,
            actions=tuple(ActionRow(turn=i + 1, player=p, action=str(a), source=Source.SEAT, spent_ms=0)
                          for i, (p, a) in enumerate(start.moves)),
            bot_seeds=tuple(start.seed if p == self.player else None for p in range(players)))
        self.runner = loop.run(lambda: self._runner(stored))
        self._feed: SeatFeed | None = None
        self.last_sent = 0
        """The seq of the last event (or snapshot) sent on the bot's current connection: where it must resume."""
        self.turn: Turn | None = None
        self.answered = 0
        self.slowest = 0.0
        self.over = False

    def _runner(self, stored: StoredMatch) -> MatchRunner:
        self._loop.store.create(stored)
        runner = MatchRunner(stored, self._loop.store, Limits(), _NEVER_S, _NEVER_S, lambda runner: None,
                             lambda runner, dealt: None)
        if not self._late_start:
            for player in self._others:
                runner.connected(player)  # the clock starts once the bot connects
        return runner

    @property
    def where(self) -> str:
        return f"match {self.match_id} (player {self.player})"

    def opening(self, after: int) -> list[pb.PlayResponse]:
        """What a new connection resuming after event `after` is sent, as the server's Play stream sends it."""
        return self._loop.run(lambda: self._opening(after))

    def _opening(self, after: int) -> list[pb.PlayResponse]:
        self._feed = SeatFeed(self.runner, self.player, shared_events(self.runner), after)
        self.last_sent = after
        out = [self._feed.welcome()]
        self.runner.connected(self.player)
        out += self._due()
        if not self.runner.started:
            for player in self._others:
                self.runner.connected(player)
            out += self._due()
        return out

    def check(self, act: pb.Act) -> Action:
        """The act resolved by the engine, if it is for the open turn, in time and legal; else ContractError."""
        now = time.time()
        return self._loop.run(lambda: self._check(act, now))

    def _check(self, act: pb.Act, now: float) -> Action:
        turn = self.turn
        if turn is None or act.turn_id != turn.turn_id:
            open_turn = f"turn {turn.turn_id} is open" if turn else "no turn is open"
            raise ContractError(f"{self.where}: an act for turn {act.turn_id}, but {open_turn}")
        if now > turn.deadline:
            late_ms = (now - turn.deadline) * 1000
            raise ContractError(f"{self.where}: the act for turn {turn.turn_id} came {late_ms:.0f} ms after its"
                                " deadline")
        try:
            action = convert.action_from_proto(act.action)
        except convert.WireError as exc:
            raise ContractError(f"{self.where}: a malformed act for turn {turn.turn_id}: {exc}") from None
        try:
            resolved = self.runner.match.check(action, self.player)
        except IllegalActionError as exc:
            raise ContractError(f"{self.where}: an illegal act for turn {turn.turn_id}: {action} ({exc.reason.name}:"
                                f" {exc})") from None
        self.slowest = max(self.slowest, now - turn.prompted_at)
        return resolved

    def is_fallback(self, action: Action) -> bool:
        """Whether `action` is what the server's clock would play for the bot now."""
        return self._loop.run(lambda: action == fallback_action(self.runner.match.legal_actions()))

    def apply(self, act: pb.Act) -> list[pb.PlayResponse]:
        """A checked act applied by the server's act path: its answer, then what is due after it."""
        return self._loop.run(lambda: self._apply(act))

    def _apply(self, act: pb.Act) -> list[pb.PlayResponse]:
        answered = answer(self.runner, self.player, act)
        if answered.HasField("action_rejected"):
            raise ContractError(f"{self.where}: the server refused the act for turn {act.turn_id}:"
                                f" {answered.action_rejected.message}")
        self.answered += 1
        self.turn = None
        return [answered, *self._due()]

    @staticmethod
    def reject(act: pb.Act) -> list[pb.PlayResponse]:
        """ActionRejected for `act`, as from a server whose rules disagree."""
        return [rejected(act.turn_id, ServiceError(
            Reason.ILLEGAL_ACTION, "refused once by the conformance suite, as by a server whose rules disagree:"
                                   " act again"))]

    def close(self) -> None:
        """Stop the match's clock: the case is over."""
        self._loop.run(self.runner.close)

    def _due(self) -> list[pb.PlayResponse]:
        """The suite's seats played up to the bot's turn or the end, then what the bot's feed has due."""
        runner, match = self.runner, self.runner.match
        while not match.is_over and match.to_act != self.player:
            player = match.to_act
            assert player is not None
            runner.submit(player, runner.turn_id, self._rng.choice(match.legal_actions()))
        if self.over or self._feed is None:
            return []
        messages, _ = self._feed.due()
        now = time.time()
        for message in messages:
            kind = message.WhichOneof("kind")
            if kind == "event":
                self.last_sent = message.event.seq
            elif kind == "snapshot":
                self.last_sent = message.snapshot.last_seq
            elif kind == "prompt":
                prompt = message.prompt
                deadline = prompt.deadline.ToNanoseconds() / 1e9 if prompt.HasField("deadline") else math.inf
                self.turn = Turn(prompt.turn_id, deadline, now)
            elif kind == "turn_deadline" and self.turn is not None:
                self.turn.deadline = message.turn_deadline.deadline.ToNanoseconds() / 1e9
            elif kind == "match_over":
                self.over = True
        return messages
