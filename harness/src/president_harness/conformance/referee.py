"""The conformance suite's referee: one case run against the bot's process, each of its acts judged."""

from __future__ import annotations

import queue
import secrets
import time
from pathlib import Path

from president_engine import Action
from president_engine.narrate import counted
from president_protocol.v1 import president_pb2 as pb

from president_harness.conformance.cases import CONNECT_S, RESUME_S, Case, ContractError, Mode
from president_harness.conformance.table import RunnerLoop, Table
from president_harness.conformance.wire import CLOSED, Channel, Connection, SuiteServer
from president_harness.ladder.bot_process import BotProcess
from president_harness.ladder.config import BotSpec

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


class Referee:
    """Runs one case: the bot's process, its connections, its tables, each check."""

    def __init__(self, case: Case, mode: Mode, server: SuiteServer, loop: RunnerLoop, address: str, spec: BotSpec,
                 logs: Path, number: int) -> None:
        self.case, self.mode, self.server, self.loop = case, mode, server, loop
        self.address, self.spec, self.logs, self.number = address, spec, logs, number
        self.process: BotProcess | None = None
        self.dropped = False
        self.refused: tuple[int, Action] | None = None
        """The turn and the act refused once (`Case.refuse_once`)."""

    def run(self) -> str:
        """What the bot did (for the PASS line); ContractError or NoSuchDealError when the case does not pass."""
        if self.case.bad_token:
            return self._refused_token()
        tables: list[Table] = []
        token = secrets.token_hex(8)  # a seat's (a Play case has one match) or an account's
        door = self.server.open(self.mode, token)
        try:
            for i, setting in enumerate(self.case.matches):
                tables.append(Table(f"c{self.number}-m{i + 1}", setting, first_seed=1 + i, move_s=self.case.move_s,
                                    late_start=self.case.short_deadline, loop=self.loop))
            if self.mode is Mode.PLAY:
                table = tables[0]
                self.process = self._start(token=token, match=table.match_id, player=table.player, seed=table.seed)
            else:
                self.process = self._start(account_token=token)
            channel = self._play(self._accept(door, tables, None, CONNECT_S), door, tables)
            return self._finish(channel, tables)
        finally:
            self.server.close(self.mode, token)
            for table in tables:
                table.close()
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
        while not all(t.over for t in tables):
            waiting = [t for t in tables if t.turn is not None]
            assert waiting, "a live table always waits for the bot"
            first = min(waiting, key=lambda t: t.turn.deadline if t.turn else 0.0)
            assert first.turn is not None
            acts = channel.acts(first.turn.deadline + LATE_S - time.time())
            if acts is None:
                raise ContractError(f"{first.where}: no act for turn {first.turn.turn_id} before its deadline"
                                    f" ({first.turn.deadline - first.turn.prompted_at:.1f} s after the prompt)")
            if not acts:
                self._still_running("after closing its connection", grace_s=0.5)
                raise ContractError("it closed its connection before the match's end")
            for table, act in acts:
                action = table.check(act)
                if self.case.refuse_once and self.refused is None and not table.is_fallback(action):
                    self.refused = act.turn_id, action
                    channel.send(table, table.reject(act))
                elif self.refused == (act.turn_id, action):
                    raise ContractError(f"{table.where}: the retry for turn {act.turn_id} repeated the refused act"
                                        f" {action}")
                elif self.case.drop and not self.dropped and table.answered == 1:
                    self.dropped = True
                    channel.connection.drop()
                    channel = self._accept(door, tables, {t.match_id: t.last_sent for t in tables}, RESUME_S)
                    break
                else:
                    channel.send(table, table.apply(act))
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


