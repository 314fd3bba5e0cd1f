"""Messages per move between a server and its bots, by how the bots connect (a measurement, not a test).

Starts ``python -m president_service serve`` on a fresh database and plays
`--matches` 4-player cardverse matches, `--parallel` at once, whose four
seats answer every prompt with the first legal action, connected:

- ``play``: one Play stream per seat (how a ladder's seats played before
  Sessions);
- ``session``: one Session per player account, every match on it (the
  Session as it came: a move's events and the prompt they make due in one
  MatchUpdate);
- ``deferred``: Sessions with ``defer_events`` (a match's events wait for the
  next prompt);
- ``batched``: ``defer_events`` and ``batch_matches`` (the updates waiting
  together go out as one MatchUpdates, the acts decided on them come back as
  one MatchActs), the SDK client's default.

For each it counts the gRPC messages each way and divides by the moves
(actions in the replays), with the server's CPU per move.  Every seat's
messages are the same whichever way they travel; `tests/service/test_sessions.py`
checks them with the leak checker.

    .venv/bin/python benchmarks/session_messages.py [--matches 96] [--parallel 16] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

ADMIN = "bench-admin"
META = (("authorization", f"Bearer {ADMIN}"),)
MODES = ("play", "session", "deferred", "batched")
_TICK = os.sysconf("SC_CLK_TCK")


@dataclass
class Count:
    down: int = 0
    """Server -> client messages."""
    up: int = 0
    """Client -> server messages."""


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def _first_legal(prompt: pb.Prompt) -> pb.Action:
    return prompt.legal_actions[0]


async def _play_seat(stub: pb_grpc.PresidentServiceAsyncStub, token: str, count: Count) -> None:
    call = stub.Play(metadata=(("authorization", f"Bearer {token}"),))
    await call.write(pb.PlayRequest(hello=pb.Hello()))
    count.up += 1
    async for message in call:
        count.down += 1
        if message.HasField("prompt"):
            await call.write(pb.PlayRequest(act=pb.Act(turn_id=message.prompt.turn_id,
                                                       action=_first_legal(message.prompt))))
            count.up += 1
        elif message.HasField("match_over"):
            break
    call.cancel()


async def _session(stub: pb_grpc.PresidentServiceAsyncStub, token: str, count: Count, finished: list[str],
                   *, defer: bool, batch: bool) -> None:
    outbox: asyncio.Queue[pb.SessionRequest] = asyncio.Queue()

    async def requests() -> AsyncIterator[pb.SessionRequest]:
        while True:
            yield await outbox.get()

    options = {"defer_events": defer, "batch_matches": batch} if defer or batch else {}  # also for older servers
    await outbox.put(pb.SessionRequest(hello=pb.SessionHello(accepts=pb.Appetite(max_matches=1000), **options)))
    count.up += 1
    call = stub.Session(requests(), metadata=(("authorization", f"Bearer {token}"),))
    async for response in call:
        count.down += 1
        kind = response.WhichOneof("kind")
        updates = [response.match] if kind == "match" else list(response.updates.updates) if kind == "updates" else []
        acts = []
        for update in updates:
            for message in update.messages:
                if message.HasField("prompt"):
                    acts.append(pb.MatchAct(match_id=update.match_id, act=pb.Act(
                        turn_id=message.prompt.turn_id, action=_first_legal(message.prompt))))
                elif message.HasField("match_over"):
                    finished.append(update.match_id)
        if batch and len(acts) > 1:
            await outbox.put(pb.SessionRequest(acts=pb.MatchActs(acts=acts)))
            count.up += 1
        else:
            for act in acts:
                await outbox.put(pb.SessionRequest(act=act))
                count.up += 1


async def _run_mode(address: str, mode: str, matches: int, parallel: int) -> tuple[Count, int, float]:
    """Messages each way, moves, and wall seconds for `matches` matches in `mode`."""
    count = Count()
    async with grpc.aio.insecure_channel(address) as channel:
        stub: pb_grpc.PresidentServiceAsyncStub = pb_grpc.PresidentServiceStub(channel)  # type: ignore[assignment]
        suffix = str(time.time_ns())[-9:]
        accounts = []
        if mode != "play":
            for seat in range(4):
                created = await stub.CreateAccount(pb.CreateAccountRequest(name=f"{mode}{seat}-{suffix}"),
                                                   metadata=META)
                accounts.append((created.account.name, created.token))
        finished: list[str] = []
        clients = [asyncio.create_task(_session(stub, token, count, finished, defer=mode != "session",
                                                batch=mode == "batched")) for _, token in accounts]
        started = time.perf_counter()
        ids: list[str] = []
        slots = asyncio.Semaphore(parallel)

        async def one(index: int) -> None:
            async with slots:
                names = [name for name, _ in accounts]
                created = await stub.CreateMatch(pb.CreateMatchRequest(
                    preset="cardverse", rules=pb.Rules(deals=1), seed=index,
                    seat_accounts=names[index % 4:] + names[:index % 4] if names else []), metadata=META)
                ids.append(created.match_id)
                if mode == "play":
                    await asyncio.gather(*(_play_seat(stub, seat.token, count) for seat in created.seats))
                else:
                    while finished.count(created.match_id) < 4:
                        await asyncio.sleep(0.005)

        await asyncio.gather(*(one(i) for i in range(matches)))
        seconds = time.perf_counter() - started
        for client in clients:
            client.cancel()
        moves = 0
        for match_id in ids:
            replay = (await stub.GetReplay(pb.GetReplayRequest(match_id=match_id), metadata=META)).replay
            moves += sum(len(deal.actions) for deal in replay.deals)
    return count, moves, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=96)
    parser.add_argument("--parallel", type=int, default=16)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--modes", default=",".join(MODES), help=f"some of {','.join(MODES)}")
    args = parser.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    rows: dict[str, list[tuple[float, float, float, float]]] = {m: [] for m in modes}
    with tempfile.TemporaryDirectory(prefix="session-messages-") as tmp:
        log = Path(tmp) / "server.log"
        with log.open("w") as out:
            server = subprocess.Popen([sys.executable, "-m", "president_service", "serve", "--port", "0", "--db",
                                       str(Path(tmp) / "server.db"), "--admin-token", ADMIN],
                                      stdout=out, stderr=subprocess.STDOUT)
        try:
            while "serving on" not in log.read_text():
                if server.poll() is not None:
                    sys.exit(log.read_text())
                time.sleep(0.05)
            port = log.read_text().split("serving on ", 1)[1].split()[0].rsplit(":", 1)[1]
            for run in range(1, args.runs + 1):
                for mode in modes:
                    cpu = _cpu_s(server.pid)
                    count, moves, seconds = asyncio.run(_run_mode(f"127.0.0.1:{port}", mode, args.matches,
                                                                  args.parallel))
                    cpu = _cpu_s(server.pid) - cpu
                    rows[mode].append((count.down / moves, count.up / moves, 1e6 * cpu / moves, seconds))
                    print(f"  run {run} {mode:>8}: {count.down / moves:5.2f} down + {count.up / moves:4.2f} up"
                          f" messages a move, server {1e6 * cpu / moves:4.0f} us a move, {seconds:.2f} s", flush=True)
        finally:
            server.terminate()
            server.wait()
    print(f"medians over {args.runs} run(s), {args.matches} matches, {args.parallel} at once:")
    for mode in modes:
        down, up, cpu, seconds = (statistics.median(r[i] for r in rows[mode]) for i in range(4))
        print(f"  {mode:>8}: {down:5.2f} server->bot + {up:4.2f} bot->server messages per move,"
              f" server CPU {cpu:4.0f} us per move, {seconds:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
