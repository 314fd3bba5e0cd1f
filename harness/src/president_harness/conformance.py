"""The conformance suite's cases and referee; ``president conformance`` (`conformance_cli`) runs them."""

from __future__ import annotations

import argparse
import contextlib
import queue
import secrets
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent import futures
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from random import Random

import grpc
from google.protobuf.timestamp_pb2 import Timestamp
from president_engine import (
    PRESETS,
    Action,
    IllegalActionError,
    JokerAlone,
    Match,
    Phase,
    Play,
    Rules,
    RulesError,
    fallback_action,
    visible_to,
)
from president_engine.events import MatchEnded
from president_engine.narrate import counted
from president_protocol import convert
from president_protocol.status import refusal_status
from president_protocol.v1 import president_pb2 as pb

from president_harness.interrupts import terminate_as_interrupt
from president_harness.ladder.bot_process import BotProcess
from president_harness.ladder.config import PLACEHOLDERS, BotSpec

MOVE_S = 10.0
"""The deadline of an ordinary prompt (the server's default move limit)."""
SHORT_DEADLINE_S = 1.5
"""The deadline of the short-deadline case's prompts: ample for an answer, too short for a bot that ignores it."""
CONNECT_S = 30.0
"""How long a bot may take to start and connect."""
RESUME_S = 30.0
"""How long a bot may take to connect again after its connection was dropped."""
HELLO_S = 10.0
"""How long a connection may take to send its Hello."""
EXIT_S = 15.0
"""How long a Play bot may take to exit after MatchOver, or any bot after its token was refused."""
LATE_S = 1.0
"""How long past a deadline an act is still waited for, to tell a late act from none."""
STAYS_UP_S = 1.0
"""How long a Session bot must keep running (or exit 0) after its last MatchOver."""
STOP_GRACE_S = 5.0
"""How long a bot may take to stop after SIGTERM (it may print a summary) before it is killed."""
SEARCH_SEEDS = 2000
"""Seeds tried for a deal in which a case's situation arises."""
PLAYER_COUNTS = (3, 4, 5)
SERVICE = pb.DESCRIPTOR.services_by_name["PresidentService"].full_name


class Mode(Enum):
    """How the bot is connected: a seat token on the Play stream, or an account token on a Session."""

    PLAY = "the Play stream"
    SESSION = "a Session"


class Situation(Enum):
    """What a case's match is played on to before the bot's seat is chosen: the seat to act then."""

    START = "the first turn"
    GIVE_BACK = "a give-back"
    REQUEST = "a request"
    DECLARED = "a declared wild play"
    REVOLUTION = "a revolution"


_ARISES: dict[Situation, Callable[[Match], bool]] = {
    Situation.START: lambda m: True,
    Situation.GIVE_BACK: lambda m: m.phase is Phase.GIVE_BACK,
    Situation.REQUEST: lambda m: m.phase is Phase.REQUEST,
    Situation.DECLARED: lambda m: m.phase is Phase.PLAY and any(
        isinstance(a, Play) and a.declared is not None for a in m.legal_actions()),
    Situation.REVOLUTION: lambda m: m.phase is Phase.PLAY and m.reversed,
}
_HAS: dict[Situation, Callable[[Rules], bool]] = {
    Situation.GIVE_BACK: lambda r: r.exchange,
    Situation.REQUEST: lambda r: r.exchange_requests,
    Situation.DECLARED: lambda r: r.joker_alone is JokerAlone.DECLARED,
    Situation.REVOLUTION: lambda r: r.revolution,
}
_DEALS = {Situation.GIVE_BACK: 2, Situation.REQUEST: 2}
"""Deals a case's match has: the exchange comes in deal 2; one deal otherwise."""


@dataclass(frozen=True)
class Setting:
    """One match of a case."""

    preset: str
    players: int
    situation: Situation = Situation.START

    def rules(self) -> Rules:
        return Rules.preset(self.preset, players=self.players, deals=_DEALS.get(self.situation, 1))


@dataclass(frozen=True, kw_only=True)
class Case:
    name: str
    matches: tuple[Setting, ...] = ()
    short_deadline: bool = False
    """The first two prompts' deadline is SHORT_DEADLINE_S away; the second's comes in a TurnDeadline after it."""
    refuse_once: bool = False
    """The first act that is not the fallback move (what the server's clock would play) is answered
    ActionRejected ILLEGAL_ACTION: another legal act for the turn must follow before its deadline."""
    drop: bool = False
    """The connection is dropped when the second act arrives: the bot must resume and answer the prompt again."""
    bad_token: bool = False
    """The bot is given a token the server refuses: it must exit with an error."""


def build_cases(mode: Mode, preset: str | None, players: int | None) -> list[Case]:
    """Every preset at every player count, each situation where a preset has it, the protocol's cases."""
    presets = [preset] if preset else sorted(PRESETS, key=lambda p: p != "cardverse")
    counts = [players] if players else list(PLAYER_COUNTS)
    cases = [Case(name=f"{p}, {n} players", matches=(Setting(p, n),)) for p in presets for n in counts]
    n = players or 4
    titles = {Situation.GIVE_BACK: "a give-back in the exchange", Situation.REQUEST: "a Norwegian request",
              Situation.DECLARED: "wild cards with a declared rank", Situation.REVOLUTION: "after a revolution"}
    for situation, title in titles.items():
        having = [p for p in presets if _HAS[situation](Setting(p, n, situation).rules())]
        if having:
            cases.append(Case(name=f"{title} ({having[0]}, {n} players)", matches=(Setting(having[0], n, situation),)))
    plain = (Setting(presets[0], n),)
    cases += [Case(name=f"a prompt with a {SHORT_DEADLINE_S:g} s deadline", matches=plain, short_deadline=True),
              Case(name="a rejected act and the retry", matches=plain, refuse_once=True),
              Case(name="a dropped connection and the resume", matches=plain, drop=True)]
    if mode is Mode.SESSION:
        trio = [preset] * 3 if preset else ["cardverse", "norwegian", "italian"]
        middle = next((s for s in (Situation.REQUEST, Situation.GIVE_BACK) if _HAS[s](Setting(trio[1], n, s).rules())),
                      Situation.START)
        several = (Setting(trio[0], n), Setting(trio[1], n, middle), Setting(trio[2], n))
        cases.append(Case(name=f"3 matches at once on one Session ({', '.join(trio)})", matches=several))
    cases.append(Case(name="a refused token", bad_token=True))
    return cases


class ContractError(Exception):
    """The bot did something the contract does not allow; the message says what, in one line."""


class NoSuchDealError(Exception):
    """No deal of the seeds tried reaches a case's situation (a gap of the suite, not the bot's fault)."""


# ---------------------------------------------------------------------------- one match


@dataclass
class Turn:
    """The bot's open turn: its prompt's id and deadline."""

    turn_id: int
    deadline: float
    """Unix time."""
    prompted_at: float


def _timestamp(unix: float) -> Timestamp:
    stamp = Timestamp()
    stamp.FromNanoseconds(int(unix * 1e9))
    return stamp


class Table:
    """One match of a case: the engine's match, the bot's seat in it, and what the bot was sent.

    The suite plays the other seats with seeded random legal moves.  Event
    seqs are the engine log's (index + 1), so the bot sees gaps where an
    event is hidden from it, as from the real server.
    """

    def __init__(self, match_id: str, setting: Setting, *, first_seed: int,
                 deadlines: Sequence[tuple[float, bool]]) -> None:
        self.match_id = match_id
        self.setting = setting
        self.match, self.rng, self.seed = _reach(setting, first_seed)
        assert self.match.to_act is not None
        self.player: int = self.match.to_act
        self.applied = sum(len(deal) for deal in self.match.actions_by_deal())
        self._deadlines = list(deadlines)
        """The first prompts' deadlines: seconds after the prompt, and whether the Prompt carries it (else a
        TurnDeadline right after it does, as when a server's clock starts late); MOVE_S in the Prompt after them."""
        self.cursor = 0
        """Events of the match's log handled for the bot."""
        self.last_sent = 0
        """The seq of the last event (or snapshot) sent on the bot's current connection: where it must resume."""
        self.turn: Turn | None = None
        self.answered = 0
        self.slowest = 0.0
        self.over = False

    @property
    def where(self) -> str:
        return f"match {self.match_id} (player {self.player})"

    def welcome(self) -> pb.PlayResponse:
        names = [f"suite-{p}" for p in range(self.setting.players)]
        names[self.player] = "bot"
        return pb.PlayResponse(welcome=pb.Welcome(
            match_id=self.match_id, player=self.player, names=names, rules=convert.rules_to_proto(self.match.rules),
            clock=pb.ClockSettings(move_time_limit_ms=int(MOVE_S * 1000)), bot_seed=self.seed))

    def opening(self, after: int) -> list[pb.PlayResponse]:
        """What a new connection is sent: Welcome, the events after `after`, a Snapshot, the open turn's prompt."""
        self.cursor = after
        out = [self.welcome(), *self._events()]
        self.last_sent = self.cursor
        out.append(pb.PlayResponse(snapshot=pb.Snapshot(
            observation=convert.observation_to_proto(self.match.observation(self.player)), last_seq=self.cursor)))
        if self.match.is_over:
            out.append(self._over())
        elif self.turn is not None:  # asked again, with the same turn id, after a resume
            self.turn.prompted_at = time.time()
            self.turn.deadline = self.turn.prompted_at + MOVE_S
            out.append(self._prompt(self.turn.deadline))
        return out + self.due()

    def due(self) -> list[pb.PlayResponse]:
        """The other seats' moves up to the bot's turn or the end: their events, then a prompt or MatchOver."""
        while not self.match.is_over and self.match.to_act != self.player:
            self.match.apply(self.rng.choice(self.match.legal_actions()))
            self.applied += 1
        out = self._events()
        if self.match.is_over and not self.over:
            out.append(self._over())
        elif self.turn is None and not self.match.is_over:
            seconds, in_prompt = self._deadlines.pop(0) if self._deadlines else (MOVE_S, True)
            now = time.time()
            self.turn = Turn(self.applied + 1, now + seconds, now)
            out.append(self._prompt(self.turn.deadline if in_prompt else None))
            if not in_prompt:
                out.append(pb.PlayResponse(turn_deadline=pb.TurnDeadline(
                    turn_id=self.turn.turn_id, deadline=_timestamp(self.turn.deadline))))
        return out

    def check(self, act: pb.Act) -> Action:
        """The act resolved by the engine, if it is for the open turn, in time and legal; else ContractError."""
        now = time.time()
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
            resolved = self.match.check(action, self.player)
        except IllegalActionError as exc:
            raise ContractError(f"{self.where}: an illegal act for turn {turn.turn_id}: {action} ({exc.reason.name}:"
                                f" {exc})") from None
        self.slowest = max(self.slowest, now - turn.prompted_at)
        return resolved

    def apply(self, action: Action) -> list[pb.PlayResponse]:
        assert self.turn is not None
        accepted = pb.PlayResponse(action_accepted=pb.ActionAccepted(turn_id=self.turn.turn_id))
        self.match.apply(action)
        self.applied += 1
        self.answered += 1
        self.turn = None
        return [accepted, *self.due()]

    def reject(self) -> list[pb.PlayResponse]:
        assert self.turn is not None
        return [pb.PlayResponse(action_rejected=pb.ActionRejected(
            turn_id=self.turn.turn_id, reason="ILLEGAL_ACTION", error_reason=pb.ERROR_REASON_ILLEGAL_ACTION,
            message="refused once by the conformance suite, as by a server whose rules disagree: act again"))]

    def _events(self) -> list[pb.PlayResponse]:
        out = []
        events = self.match.events
        while self.cursor < len(events):
            self.cursor += 1
            shown = visible_to(events[self.cursor - 1], self.player)
            if shown is not None:
                out.append(pb.PlayResponse(event=convert.event_to_proto(shown, self.cursor)))
                self.last_sent = self.cursor
        return out

    def _prompt(self, deadline: float | None) -> pb.PlayResponse:
        assert self.turn is not None
        return pb.PlayResponse(prompt=convert.prompt_to_proto(
            self.turn.turn_id, self.match.observation(self.player),
            deadline=None if deadline is None else _timestamp(deadline)))

    def _over(self) -> pb.PlayResponse:
        self.over = True
        ended = self.match.events[-1]
        assert isinstance(ended, MatchEnded)
        return pb.PlayResponse(match_over=pb.MatchOver(result=convert.match_result_to_proto(ended)))


def _reach(setting: Setting, first_seed: int) -> tuple[Match, Random, int]:
    """A match played with seeded random moves until `setting`'s situation arises, its move source and seed."""
    rules = setting.rules()
    arises = _ARISES[setting.situation]
    for seed in range(first_seed, first_seed + SEARCH_SEEDS):
        match, rng = Match(rules, seed=seed), Random(seed)
        while not match.is_over:
            if arises(match):
                return match, rng, seed
            match.apply(rng.choice(match.legal_actions()))
    raise NoSuchDealError(f"no deal of {SEARCH_SEEDS} seeds reaches {setting.situation.value} in {setting.preset}"
                          f" with {setting.players} players")


# ---------------------------------------------------------------------------- the server


CLOSED = "closed"
"""What a connection's inbox gets when the call ends."""
_END = "end"
_DROP = "drop"


class Connection:
    """One call of the bot: what it sent (read by a thread of its own) and what it is to be sent."""

    def __init__(self, requests: Iterator[object], context: grpc.ServicerContext) -> None:
        self.inbox: queue.Queue[object] = queue.Queue()
        self._outbox: queue.Queue[object] = queue.Queue()
        context.add_callback(self._gone)
        threading.Thread(target=self._read, args=(requests,), daemon=True).start()

    def _read(self, requests: Iterator[object]) -> None:
        with contextlib.suppress(grpc.RpcError):  # raised once the call is cancelled
            for request in requests:
                self.inbox.put(request)
        self.inbox.put(CLOSED)

    def _gone(self) -> None:
        self.inbox.put(CLOSED)
        self._outbox.put(_END)

    def responses(self, context: grpc.ServicerContext) -> Iterator[object]:
        while True:
            item = self._outbox.get()
            if item == _END:
                return
            if item == _DROP:
                context.abort(grpc.StatusCode.UNAVAILABLE, "the conformance suite dropped the connection")
            yield item

    def send(self, message: object) -> None:
        self._outbox.put(message)

    def end(self) -> None:
        """End the call with status OK (after MatchOver)."""
        self._outbox.put(_END)

    def drop(self) -> None:
        """End the call with UNAVAILABLE, as a server going away does."""
        self._outbox.put(_DROP)

    def receive(self, timeout: float) -> object | None:
        """The next request, CLOSED, or None after `timeout` seconds."""
        try:
            return self.inbox.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return None


class SuiteServer:
    """Play and Session for the tokens a case opened; every other token is refused as the real server does."""

    def __init__(self) -> None:
        self._doors: dict[tuple[Mode, str], queue.Queue[Connection]] = {}
        self._lock = threading.Lock()

    def handler(self) -> grpc.GenericRpcHandler:
        """The two streams of president.v1.PresidentService (any other RPC is UNIMPLEMENTED)."""
        return grpc.method_handlers_generic_handler(SERVICE, {
            "Play": grpc.stream_stream_rpc_method_handler(
                lambda requests, context: self._call(Mode.PLAY, requests, context),
                request_deserializer=pb.PlayRequest.FromString, response_serializer=pb.PlayResponse.SerializeToString),
            "Session": grpc.stream_stream_rpc_method_handler(
                lambda requests, context: self._call(Mode.SESSION, requests, context),
                request_deserializer=pb.SessionRequest.FromString,
                response_serializer=pb.SessionResponse.SerializeToString),
        })

    def open(self, mode: Mode, token: str) -> queue.Queue[Connection]:
        door: queue.Queue[Connection] = queue.Queue()
        with self._lock:
            self._doors[mode, token] = door
        return door

    def close(self, mode: Mode, token: str) -> None:
        with self._lock:
            self._doors.pop((mode, token), None)

    def _call(self, mode: Mode, requests: Iterator[object], context: grpc.ServicerContext) -> Iterator[object]:
        metadata = dict(context.invocation_metadata())
        auth = str(metadata.get("authorization", ""))
        if not auth.startswith("Bearer "):
            context.abort_with_status(refusal_status(
                grpc.StatusCode.UNAUTHENTICATED, "MISSING_TOKEN", "send the metadata authorization: Bearer <token>"))
        with self._lock:
            door = self._doors.get((mode, auth.removeprefix("Bearer ")))
        if door is None:
            kind = "a seat's" if mode is Mode.PLAY else "an account's"
            context.abort_with_status(refusal_status(
                grpc.StatusCode.UNAUTHENTICATED, "BAD_TOKEN", f"this token is not {kind}"))
        assert door is not None
        connection = Connection(requests, context)
        door.put(connection)
        return connection.responses(context)


# ---------------------------------------------------------------------------- what a case runs over


class Channel:
    """The bot's connection for a case's tables: a Play stream for one table, or a Session for all of them."""

    def __init__(self, mode: Mode, connection: Connection, tables: list[Table]) -> None:
        self.mode = mode
        self.connection = connection
        self.tables = {t.match_id: t for t in tables}

    def send(self, table: Table, messages: list[pb.PlayResponse]) -> None:
        if not messages:
            return
        if self.mode is Mode.PLAY:
            for message in messages:
                self.connection.send(message)
        else:
            self.connection.send(pb.SessionResponse(match=pb.MatchUpdate(match_id=table.match_id, messages=messages)))

    def acts(self, timeout: float) -> list[tuple[Table, pb.Act]] | None:
        """The acts of the bot's next message (others are read past), [] when its call closed, None on timeout."""
        until = time.monotonic() + timeout
        while True:
            got = self.connection.receive(until - time.monotonic())
            if got is None:
                return None
            if got == CLOSED:
                return []
            if isinstance(got, pb.PlayRequest):
                if got.WhichOneof("kind") == "hello":
                    raise ContractError("a second Hello on one Play stream")
                return [(next(iter(self.tables.values())), got.act)]
            assert isinstance(got, pb.SessionRequest)
            kind = got.WhichOneof("kind")
            if kind == "hello":
                raise ContractError("a second SessionHello on one Session")
            acts = [got.act] if kind == "act" else list(got.acts.acts) if kind == "acts" else []
            if acts:
                return [(self._table(a.match_id), a.act) for a in acts]

    def _table(self, match_id: str) -> Table:
        table = self.tables.get(match_id)
        if table is None:
            raise ContractError(f"an act for match {match_id!r}, which is not one of this account's")
        return table


class Referee:
    """Runs one case: the bot's process, its connections, its tables, each check."""

    def __init__(self, case: Case, mode: Mode, server: SuiteServer, address: str, spec: BotSpec, logs: Path,
                 number: int) -> None:
        self.case, self.mode, self.server = case, mode, server
        self.address, self.spec, self.logs, self.number = address, spec, logs, number
        self.process: BotProcess | None = None
        self.dropped = False
        self.refused: tuple[int, Action] | None = None
        """The turn and the act refused once (`Case.refuse_once`)."""

    def run(self) -> str:
        """What the bot did (for the PASS line); ContractError or NoSuchDealError when the case does not pass."""
        if self.case.bad_token:
            return self._refused_token()
        deadlines = ((SHORT_DEADLINE_S, True), (SHORT_DEADLINE_S, False)) if self.case.short_deadline else ()
        tables = [Table(f"c{self.number}-m{i + 1}", s, first_seed=1 + i, deadlines=deadlines)
                  for i, s in enumerate(self.case.matches)]
        token = secrets.token_hex(8)  # a seat's (a Play case has one match) or an account's
        door = self.server.open(self.mode, token)
        try:
            if self.mode is Mode.PLAY:
                table = tables[0]
                self.process = self._start(token=token, match=table.match_id, player=table.player, seed=table.seed)
            else:
                self.process = self._start(account_token=token)
            channel = self._play(self._accept(door, tables, None, CONNECT_S), door, tables)
            return self._finish(channel, tables)
        finally:
            self.server.close(self.mode, token)
            if self.process is not None:
                self.process.stop(STOP_GRACE_S)

    def _start(self, *, token: str = "", account_token: str = "", match: str = "", player: int = -1,
               seed: int = 0) -> BotProcess:
        argv = self.spec.argv(server=self.address, token=token, account_token=account_token, match=match,
                              player=player, seed=seed)
        program = self.spec.program(Path.cwd())
        assert program is not None  # checked before the first case
        return BotProcess("the bot", [program, *argv[1:]], Path.cwd(), self.logs / f"case-{self.number}")

    def _refused_token(self) -> str:
        self.process = (self._start(token="not-a-token") if self.mode is Mode.PLAY
                        else self._start(account_token="not-a-token"))
        try:
            status = self._wait_exit(EXIT_S)
            if status is None:
                raise ContractError(f"still running {EXIT_S:g} s after its token was refused (UNAUTHENTICATED"
                                    " BAD_TOKEN): it should exit with an error")
            if status == 0:
                raise ContractError("exited 0 though its token was refused: a refused token is an error")
            return f"exited {status}: {self._last_words()}"
        finally:
            self.process.stop()

    def _accept(self, door: queue.Queue[Connection], tables: list[Table], resume: dict[str, int] | None,
                timeout: float) -> Channel:
        """The bot's next connection, its Hello checked (fresh, or resuming where `resume` says); openings sent."""
        until = time.monotonic() + timeout
        while door.empty():
            self._still_running("before it connected" if resume is None else "instead of reconnecting")
            if time.monotonic() > until:
                raise ContractError(f"no connection within {timeout:g} s" if resume is None else
                                    f"no new connection within {timeout:g} s after the suite dropped the last one")
            time.sleep(0.05)
        connection = door.get()
        hello = connection.receive(HELLO_S)
        if hello is None or hello == CLOSED:
            raise ContractError(f"the connection sent no Hello within {HELLO_S:g} s")
        cursors = self._cursors(hello, tables)
        for table in tables:
            got = cursors.get(table.match_id, 0)
            if resume is None and got:
                raise ContractError(f"{table.where}: its first Hello resumes after event {got}; a new bot starts at 0")
            if resume is not None and got != resume[table.match_id]:
                raise ContractError(f"{table.where}: it resumed after event {got}, but the last event it was sent was"
                                    f" {resume[table.match_id]}")
        channel = Channel(self.mode, connection, tables)
        if self.mode is Mode.SESSION:
            connection.send(pb.SessionResponse(welcome=pb.SessionWelcome(
                account="bot", live_matches=[t.match_id for t in tables if not t.over], max_matches=4)))
        for table in tables:
            if not table.over:
                channel.send(table, table.opening(cursors.get(table.match_id, 0)))
        return channel

    def _cursors(self, hello: object, tables: list[Table]) -> dict[str, int]:
        """Where the first message resumes each match from."""
        if self.mode is Mode.PLAY:
            if not (isinstance(hello, pb.PlayRequest) and hello.WhichOneof("kind") == "hello"):
                raise ContractError("the first message on the Play stream was not a Hello")
            return {tables[0].match_id: hello.hello.last_seq}
        if not (isinstance(hello, pb.SessionRequest) and hello.WhichOneof("kind") == "hello"):
            raise ContractError("the first message on the Session was not a SessionHello")
        return {c.match_id: c.last_seq for c in hello.hello.resume}

    def _play(self, channel: Channel, door: queue.Queue[Connection], tables: list[Table]) -> Channel:
        """Every table to its end: prompts sent, acts checked and answered, the connection dropped once if asked;
        the connection the bot ends on."""
        for table in tables:
            channel.send(table, table.due())
        while not all(t.over for t in tables):
            waiting = [t for t in tables if t.turn is not None]
            assert waiting, "a live table always waits for the bot"
            first = min(waiting, key=lambda t: t.turn.deadline if t.turn else 0.0)
            assert first.turn is not None
            acts = channel.acts(first.turn.deadline + LATE_S - time.time())
            if acts is None:
                raise ContractError(f"{first.where}: no act for turn {first.turn.turn_id} before its deadline"
                                    f" ({first.turn.deadline - first.turn.prompted_at:g} s after the prompt)")
            if not acts:
                self._still_running("after closing its connection", grace_s=0.5)
                raise ContractError("it closed its connection before the match's end")
            for table, act in acts:
                action = table.check(act)
                if self.case.refuse_once and self.refused is None and action != fallback_action(
                        table.match.legal_actions()):
                    self.refused = act.turn_id, action
                    channel.send(table, table.reject())
                elif self.refused == (act.turn_id, action):
                    raise ContractError(f"{table.where}: the retry for turn {act.turn_id} repeated the refused act"
                                        f" {action}")
                elif self.case.drop and not self.dropped and table.answered == 1:
                    self.dropped = True
                    channel.connection.drop()
                    channel = self._accept(door, tables, {t.match_id: t.last_sent for t in tables}, RESUME_S)
                    break
                else:
                    channel.send(table, table.apply(action))
        return channel

    def _finish(self, channel: Channel, tables: list[Table]) -> str:
        """The match's end: a Play bot exits 0, a Session bot keeps running."""
        answered = sum(t.answered for t in tables)
        slowest = max(t.slowest for t in tables)
        done = f"{counted(answered, 'prompt')} answered, legal and in time (slowest {slowest * 1000:.0f} ms)"
        if self.case.refuse_once:
            done += (f"; turn {self.refused[0]}'s {self.refused[1]} refused, then another act" if self.refused
                     else "; every act was the fallback move, so none was refused")
        if self.case.drop:
            done += "; resumed after the drop" if self.dropped else "; the match ended before a second prompt to drop"
        if self.mode is Mode.PLAY:
            channel.connection.end()
            status = self._wait_exit(EXIT_S)
            if status is None:
                raise ContractError(f"still running {EXIT_S:g} s after MatchOver (a Play bot exits when its match is"
                                    " over)")
            if status != 0:
                raise ContractError(f"exited {status} after MatchOver: {self._last_words()}")
            return f"{done}; exited 0 after MatchOver"
        status = self._wait_exit(STAYS_UP_S)
        if status not in (None, 0):
            raise ContractError(f"exited {status} after MatchOver: {self._last_words()}")
        return f"{done}; {'kept running' if status is None else 'exited 0'} after MatchOver"

    def _wait_exit(self, timeout: float) -> int | None:
        assert self.process is not None
        until = time.monotonic() + timeout
        while not self.process.finished() and time.monotonic() < until:
            time.sleep(0.05)
        return self.process.exit_status()

    def _still_running(self, when: str, grace_s: float = 0.0) -> None:
        """ContractError when the bot's process has exited (within `grace_s`): it did so `when`."""
        assert self.process is not None
        if self._wait_exit(grace_s) is not None:
            raise ContractError(f"exited {self.process.exit_status()} {when}: {self._last_words()}")

    def _last_words(self) -> str:
        """The last line the bot wrote to stderr (else stdout): a failing bot says why there."""
        for stream in ("stderr", "stdout"):
            tail = (self.logs / f"case-{self.number}.{stream}").read_bytes()[-4096:].decode(errors="replace")
            said = [line.strip() for line in tail.splitlines() if line.strip()]
            if said:
                return said[-1]
        return "(nothing on stderr)"


# ---------------------------------------------------------------------------- the command


@dataclass
class Results:
    passed: int = 0
    failed: int = 0
    skipped: int = 0


def run_suite(command: Sequence[str], *, preset: str | None = None, players: int | None = None) -> Results:
    """Run every case against `command` (placeholders unfilled), printing a line per case."""
    spec = BotSpec(name="bot", command=tuple(command))
    mode = Mode.SESSION if any("{account_token}" in part for part in command) else Mode.PLAY
    cases = build_cases(mode, preset, players)
    suite = SuiteServer()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16), handlers=[suite.handler()])
    address = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
    server.start()
    results = Results()
    print(f"president conformance: {counted(len(cases), 'case')} over {mode.value}, on {address}", flush=True)
    try:
        with tempfile.TemporaryDirectory(prefix="president-conformance-") as logs:
            for number, case in enumerate(cases, 1):
                try:
                    detail = Referee(case, mode, suite, address, spec, Path(logs), number).run()
                except ContractError as exc:
                    results.failed += 1
                    line = f"FAIL  {case.name}: {exc}"
                except NoSuchDealError as exc:
                    results.skipped += 1
                    line = f"SKIP  {case.name}: {exc}"
                else:
                    results.passed += 1
                    line = f"PASS  {case.name}: {detail}"
                print(line, flush=True)
    finally:
        server.stop(None)
    skipped = f", {results.skipped} skipped" if results.skipped else ""
    failed = f", {results.failed} failed" if results.failed else ""
    print(f"{results.passed} of {len(cases)} cases passed{skipped}{failed}", flush=True)
    return results


def conformance_command(args: argparse.Namespace) -> int:
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    problem = _command_problem(command, args.preset, args.players)
    if problem:
        print(f"president conformance: {problem}", file=sys.stderr)
        return 2
    try:
        with terminate_as_interrupt():
            results = run_suite(command, preset=args.preset, players=args.players)
    except KeyboardInterrupt:
        print("\npresident conformance: stopped", flush=True)
        return 130
    return 0 if results.failed == 0 else 1


def _command_problem(command: Sequence[str], preset: str | None, players: int | None) -> str | None:
    """Why the suite cannot run this command with these options, in one line; None when it can."""
    if not command:
        return "give the bot's command after --, e.g. -- ./bot --server {server} --token {token}"
    if preset is not None and preset not in PRESETS:
        return f"--preset {preset}: known presets are {', '.join(PRESETS)}"
    if players is not None:
        try:
            for name in [preset] if preset else PRESETS:
                Rules.preset(name, players=players, deals=2)
        except RulesError as exc:
            return f"--players {players}: {exc}"
    for part in command:
        try:
            part.format(**dict.fromkeys(PLACEHOLDERS, ""))
        except (KeyError, IndexError, ValueError):
            return f"{part!r}: the placeholders are {', '.join('{' + p + '}' for p in PLACEHOLDERS)}"
    play = any("{token}" in part for part in command)
    session = any("{account_token}" in part for part in command)
    if play == session:
        return ("the command needs {token} (a seat, over the Play stream) or {account_token} (an account, over a"
                " Session)" + (", not both" if play else ""))
    if BotSpec(name="bot", command=tuple(command)).program(Path.cwd()) is None:
        return f"cannot find the program {command[0]!r} (not on PATH, nor beside {sys.executable})"
    return None
