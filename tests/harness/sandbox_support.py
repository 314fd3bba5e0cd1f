"""What the sandbox's tests share: a server on a Unix socket, accounts, jails, and the check that one can start."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from president_harness.hosting.sandbox import Exit, Jailed, Sandbox, stage
from president_harness.hosting.socket_relay import relay_to
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_sdk import builtin_bot
from president_sdk.session_client import SessionClient

ADMIN = "redteam-admin-9f3e1c"
META = (("authorization", f"Bearer {ADMIN}"),)
FIRST_BOT = Path(__file__).resolve().parents[2] / "examples" / "python" / "first_bot.py"
WALL_S = 6.0
"""Each hostile jail's wall clock: the attacks that never end are killed at it."""
SEED = 20261202
"""The shuffle of every match the normal bot plays beside an attack: with deterministic bots its result is fixed."""


@dataclass(frozen=True)
class Attacked:
    exit: Exit
    output: str
    """What the hostile bot printed."""
    token: str
    """Its own account's token."""


class Host:
    """A server on a Unix socket (and a TCP port, which the jails must not reach), and jails beside it."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.socket = work / "server.sock"
        self.db = work / "server.db"
        self.admin_file = work / "admin.token"
        self.admin_file.write_text(ADMIN)
        self.log = work / "server.log"
        with self.log.open("w") as out:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "president_service", "serve", "--port", "0", "--unix", str(self.socket),
                 "--db", str(self.db), "--start-grace", "1"],
                env=dict(os.environ, PRESIDENT_ADMIN_TOKEN=ADMIN), stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while "serving on" not in self.log.read_text():
            assert self.process.poll() is None and time.monotonic() < deadline, self.log.read_text()
            time.sleep(0.05)
        self.tcp_port = int(self.log.read_text().split("serving on ", 1)[1].split()[0].rsplit(":", 1)[1])
        self.target = f"unix:{self.socket}"
        self.channel = grpc.insecure_channel(self.target)
        self.stub = pb_grpc.PresidentServiceStub(self.channel)
        self.names: list[str] = []
        self.tokens: list[str] = []
        self.normal_bot = self.folder("normal", FIRST_BOT.read_text())
        self.undisturbed: tuple[list[int], list[int]] | None = None
        """The normal match's totals and last places with no attack beside it, played first."""
        self.plays_a_match()

    def close(self) -> None:
        self.channel.close()
        self.process.terminate()
        self.process.wait(20)

    def accounts(self, count: int) -> list[tuple[str, str]]:
        """New accounts, as (name, token)."""
        made = []
        for _ in range(count):
            name = f"bot{len(self.tokens)}"
            self.names.append(name)
            self.tokens.append(self.stub.CreateAccount(pb.CreateAccountRequest(name=name, owner="red team"),
                                                       metadata=META).token)
            made.append((name, self.tokens[-1]))
        return made

    def folder(self, name: str, code: str) -> Path:
        """A bot folder holding `code` as bot.py, staged as the host stages one."""
        source = self.work / "sources" / name
        source.mkdir(parents=True)
        (source / "bot.py").write_text(textwrap.dedent(code))
        into = self.work / "stages" / name
        into.mkdir(parents=True)
        return stage(source, into)

    @contextlib.contextmanager
    def running(self, sandbox: Sandbox, argv: list[str], token: str = "") -> Iterator[Jailed]:
        """`argv` in `sandbox` with a relay to the server; killed at the end of the block if still running."""
        with relay_to(self.target, sandbox.uid) as relay:
            jailed = sandbox.start(argv, log=self.work / f"jail{sandbox.slot}.{time.monotonic_ns()}.log",
                                   socket=relay, env={"PRESIDENT_ACCOUNT_TOKEN": token} if token else {})
            try:
                yield jailed
            finally:
                if jailed.process.poll() is None:
                    jailed.stop()
                jailed.wait()

    def attack(self, name: str, code: str, *args: str, slot: int, loopback: bool = False, **limits: int) -> Attacked:
        """Run a hostile bot, with an account of its own, to its end (or its wall clock) while a normal bot in
        another jail plays a match to its end; the hostile account's own match, on a short clock, ends with its
        seat's fault (timed out, then played by the server)."""
        sandbox = Sandbox(folder=self.folder(name, code), slot=slot, wall_s=WALL_S, loopback=loopback, **limits)
        (hostile, token), *others = self.accounts(4)
        own = self.stub.CreateMatch(pb.CreateMatchRequest(
            preset="cardverse", rules=pb.Rules(deals=1), seed=SEED, seat_accounts=[hostile, *(n for n, _ in others)],
            clock=pb.ClockSettings(move_time_limit_ms=500, time_bank_ms=0, strikes_before_takeover=1)),
            metadata=META).match_id
        played = threading.Thread(target=_play_one_match, args=([t for _, t in others], self.target), daemon=True)
        played.start()
        with self.running(sandbox, [sys.executable, "bot.py", *args], token) as jailed:
            self.plays_a_match()
            ended = jailed.wait()
        seat = self.over(own, lambda: None).players[0]
        played.join(30)
        assert seat.faults.strikes >= 1 and seat.taken_over, seat
        return Attacked(ended, jailed.log.read_text(errors="replace"), token)

    def plays_a_match(self) -> None:
        """A jailed first_bot and three built-in bots play a one-deal match to its end, with no fault."""
        (_, token), *others = self.accounts(4)
        with self.running(Sandbox(folder=self.normal_bot, slot=99, wall_s=90), ["president-bot", "bot.py"],
                          token) as jailed:
            self.match_with(token, others, lambda: None if jailed.process.poll() is None else jailed.log.read_text())

    def match_with(self, token: str, others: list[tuple[str, str]], failed: Callable[[], str | None]) -> None:
        """A one-deal match to its end of the account of `token` (played elsewhere) and `others` (built-in bots,
        played here), unless `failed()` says what went wrong; the first seat had no fault, and the result is the
        one the first such match had (played before any attack)."""
        first = next(name for name, made in zip(self.names, self.tokens, strict=True) if made == token)
        created = self.stub.CreateMatch(pb.CreateMatchRequest(
            preset="cardverse", rules=pb.Rules(deals=1), seed=SEED,
            seat_accounts=[first, *(name for name, _ in others)],
            clock=pb.ClockSettings(move_time_limit_ms=15_000, time_bank_ms=0, strikes_before_takeover=0)),
            metadata=META)
        played = threading.Thread(target=_play_one_match, args=([t for _, t in others], self.target), daemon=True)
        played.start()
        summary = self.over(created.match_id, failed)
        played.join(30)
        seat = summary.players[0]
        assert (seat.faults.timeouts, seat.faults.invalid) == (0, 0), summary
        result = (list(summary.result.totals), list(summary.result.last_places))
        if self.undisturbed is None:
            self.undisturbed = result
        assert result == self.undisturbed, (result, self.undisturbed)


    def over(self, match_id: str, failed: Callable[[], str | None]) -> pb.MatchSummary:
        """The match once it is over (within 90 s, unless `failed()` says what went wrong first), read with the admin
        token: every match here deals the same cards, so a spectator sees no result while another of them is live."""
        deadline = time.monotonic() + 90
        while (summary := self.stub.GetMatch(pb.GetMatchRequest(match_id=match_id), metadata=META).match).status \
                != pb.MATCH_STATUS_OVER:
            assert time.monotonic() < deadline and failed() is None, failed()
            time.sleep(0.1)
        return summary


def _play_one_match(tokens: list[str], target: str) -> None:
    async def main() -> None:
        clients = [SessionClient(lambda _seed: builtin_bot("easy", seed=0), token, server=target, threaded=False)
                   for token in tokens]
        tasks = [asyncio.create_task(client.run()) for client in clients]
        deadline = time.monotonic() + 90
        while any(not client.stats.finished for client in clients) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    asyncio.run(main())


def require_sandbox() -> None:
    """Skip when no jail can start here (no bubblewrap, no user namespaces); in CI, fail instead."""
    problem = Sandbox(folder=Path()).check()
    if problem is not None:
        message = f"{problem} (these tests need bubblewrap and user namespaces)"
        if os.environ.get("CI"):
            pytest.fail(f"{message}; .ci/run installs bubblewrap")
        pytest.skip(message)
