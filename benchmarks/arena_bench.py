"""The server at arena scale: many bot accounts, each one Session connection for many matches (`make bench`).

Starts `python -m president_service serve --arena` as a subprocess on a fresh
database (pinned to the first CPU, the load on the others, as
service_bench.py does) and measures, as the median of several runs:

- memory: RSS growth of the server per live match once M matches are
  created among C accounts (each match seats four of them) and every account's
  Session has received every match's snapshot;
- move round trip at a stated offered load: every account answers each
  prompt after a think time T (so the offered load is about M / T moves a
  second, each a Session round trip: MatchAct -> ActionAccepted), p50/p99;
  server CPU per move;
- matchmaking: seconds from the last of four willing accounts (three house
  bots and a newcomer) opening its Session to the newcomer's first match.

    python benchmarks/arena_bench.py [--accounts 50] [--matches 1000] [--think 2.0] [--seconds 20] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from service_bench import ADMIN, _cpu_s, _port, _rss_kb, _spawn, pin_server_core

ADMIN_AUTH = (("authorization", f"Bearer {ADMIN}"),)


class Account:
    """One bot account's Session: answers every prompt after `think` seconds, timing each round trip."""

    def __init__(self, stub: pb_grpc.PresidentServiceStub, token: str, think: float) -> None:
        self.stub = stub
        self.token = token
        self.think = think
        self.snapshots = 0
        self.round_trips: list[float] = []
        self.moves = 0
        self.measuring = False
        self.first_match: float | None = None
        self._sent: dict[tuple[str, int], float] = {}
        self._outbox: asyncio.Queue[pb.SessionRequest | None] = asyncio.Queue()

    async def run(self, accepts: pb.Appetite) -> None:
        await self._outbox.put(pb.SessionRequest(hello=pb.SessionHello(accepts=accepts)))

        async def requests() -> AsyncIterator[pb.SessionRequest]:
            while (item := await self._outbox.get()) is not None:
                yield item

        call: Any = self.stub.Session(requests(), metadata=(("authorization", f"Bearer {self.token}"),))
        try:
            async for response in call:
                if response.WhichOneof("kind") != "match":
                    continue
                if self.first_match is None:
                    self.first_match = time.perf_counter()
                match_id = response.match.match_id
                for message in response.match.messages:
                    kind = message.WhichOneof("kind")
                    if kind == "snapshot":
                        self.snapshots += 1
                    elif kind == "prompt":
                        asyncio.get_running_loop().call_later(self.think, self._act, match_id, message.prompt)
                    elif kind == "action_accepted":
                        sent = self._sent.pop((match_id, message.action_accepted.turn_id), None)
                        if sent is not None and self.measuring:
                            self.round_trips.append(time.perf_counter() - sent)
                            self.moves += 1
        except grpc.aio.AioRpcError:
            pass

    def _act(self, match_id: str, prompt: pb.Prompt) -> None:
        self._sent[(match_id, prompt.turn_id)] = time.perf_counter()
        self._outbox.put_nowait(pb.SessionRequest(act=pb.MatchAct(
            match_id=match_id, act=pb.Act(turn_id=prompt.turn_id, action=prompt.legal_actions[0]))))

    def stop(self) -> None:
        self._outbox.put_nowait(None)


async def _scale(port: int, pid: int, accounts: int, matches: int, think: float, seconds: float) -> dict[str, float]:
    options = [("grpc.max_receive_message_length", 16 * 1024 * 1024)]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=options) as channel:
        stub: Any = pb_grpc.PresidentServiceStub(channel)
        names = [f"bot{i:03d}" for i in range(accounts)]
        tokens = [(await stub.CreateAccount(pb.CreateAccountRequest(name=n, owner="bench"), metadata=ADMIN_AUTH)).token
                  for n in names]
        players = [Account(stub, token, think) for token in tokens]
        tasks = [asyncio.ensure_future(p.run(pb.Appetite(max_matches=matches))) for p in players]
        await asyncio.sleep(1.0)
        rss_before = _rss_kb(pid)
        for m in range(matches):
            seated = [names[(m + k * 7) % accounts] for k in range(4)]  # four distinct accounts, spread
            await stub.CreateMatch(pb.CreateMatchRequest(
                preset="cardverse", seed=m, rules=pb.Rules(deals=1000), seat_accounts=seated,
                clock=pb.ClockSettings(move_time_limit_ms=0)), metadata=ADMIN_AUTH)
        while sum(p.snapshots for p in players) < 4 * matches:
            await asyncio.sleep(0.2)
        await asyncio.sleep(think + 1.0)
        rss_live = _rss_kb(pid)
        for p in players:
            p.measuring = True
        cpu_before, start = _cpu_s(pid), time.perf_counter()
        await asyncio.sleep(seconds)
        cpu, wall = _cpu_s(pid) - cpu_before, time.perf_counter() - start
        for p in players:
            p.measuring = False
            p.stop()
        for task in tasks:
            task.cancel()
    trips = sorted(t for p in players for t in p.round_trips)
    moves = sum(p.moves for p in players)
    return {"KB/live match": (rss_live - rss_before) / matches, "moves/s": moves / wall,
            "p50 ms": trips[len(trips) // 2] * 1000, "p99 ms": trips[int(len(trips) * 0.99)] * 1000,
            "cpu us/move": cpu / max(moves, 1) * 1e6}


async def _matchmaking(port: int) -> float:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub: Any = pb_grpc.PresidentServiceStub(channel)
        appetite = pb.Appetite(arena=True, presets=["cardverse"], players=[4], max_matches=1)
        houses = []
        for i in range(3):
            token = (await stub.CreateAccount(pb.CreateAccountRequest(name=f"house{i}", house=True),
                                              metadata=ADMIN_AUTH)).token
            houses.append(Account(stub, token, 0.0))
        tasks = [asyncio.ensure_future(h.run(appetite)) for h in houses]
        await asyncio.sleep(0.5)
        token = (await stub.CreateAccount(pb.CreateAccountRequest(name="newcomer"), metadata=ADMIN_AUTH)).token
        newcomer = Account(stub, token, 0.0)
        start = time.perf_counter()
        tasks.append(asyncio.ensure_future(newcomer.run(appetite)))
        while newcomer.first_match is None:
            await asyncio.sleep(0.001)
        formed = newcomer.first_match - start
        for account in [*houses, newcomer]:
            account.stop()
        for task in tasks:
            task.cancel()
        return formed


def _run(args: argparse.Namespace, workdir: Path, cpus: set[int] | None) -> dict[str, float]:
    port = _port()
    server = _spawn(["-m", "president_service", "serve", "--port", str(port), "--db", str(workdir / f"{port}.db"),
                     "--max-matches", str(args.matches + 10), "--arena", "--arena-queue", "cardverse:4"],
                    "serving on", workdir / f"{port}.log", cpus)
    try:
        figures = asyncio.run(_scale(port, server.pid, args.accounts, args.matches, args.think, args.seconds))
        figures["match formed s"] = asyncio.run(_matchmaking(port))
    finally:
        server.terminate()
        server.wait(30)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accounts", type=int, default=50)
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--think", type=float, default=2.0, help="seconds each account waits before answering")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of the measured window")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-pin", action="store_true")
    args = parser.parse_args()
    cpus = pin_server_core(args.no_pin)
    with tempfile.TemporaryDirectory() as tmp:
        runs = [_run(args, Path(tmp), cpus) for _ in range(args.runs)]
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    print(f"{args.matches} live matches over {args.accounts} Session connections, think {args.think:g} s"
          f" (offered about {args.matches / args.think:.0f} moves/s), median of {args.runs}: "
          + ", ".join(f"{k} {v:.2f}" for k, v in med.items()), flush=True)


if __name__ == "__main__":
    main()
