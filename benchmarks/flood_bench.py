"""One account floods the server while honest accounts play: what the honest matches feel, what the flood costs.

Issue 27 item 1 (and its "Done when": one account's flood as a `make bench`
case): a Session that sends MatchActs and never reads took a server from 63 MB
to 515 MB, still 507 MB after the Session closed.  The server now holds a
Session back past `session.ANSWERS_HELD` answers a match, bounds streams per
seat, spectators per match, streams opening and connections (docs/scaling.md,
"The bounds ..."); this measures that those bounds keep the honest matches
playing and the memory flat.

Each run starts `python -m president_service serve` on a fresh database
(pinned to the first CPU; the clients on the others, as service_bench.py
does).  Four honest accounts, each on one Session (arena_bench.py's
`Account`), play `--matches` 4-player cardverse matches of many deals, every
seat answering each prompt after `--think` s; their moves' round trips
(MatchAct -> ActionAccepted) are timed for `--seconds` before the flood,
during it and after it.  The flood is another process (this script with
`--flood`), one account, seated in a match of its own by the organiser:

- a Session that writes MatchActs (stale, each answered by a refusal) as fast
  as the server takes them, and never reads;
- `--unary` loops of GetMatch back to back, half of them for its match and
  half for a match that does not exist;
- `--connections` new connections, each opening one stream on its match,
  alternately a Play stream on its seat and a Spectate stream, held open:
  past the bounds on a seat's streams (2), a match's spectators (64) and the
  port's connections (512);
- at the end, a second Session of the account, which replaces the silent one.

Printed per run: the honest round trips' p50 and p99 before, during and
after, the server's RSS before, during (the largest of samples every 0.2 s)
and `--settle` s after the flood, and the count of every answer the flooder
got (each status code with its ErrorInfo reason); then the median of each over
`--runs` runs, with the ratios during/before.

A measurement, not a test: nothing is asserted.

    .venv/bin/python benchmarks/flood_bench.py [--runs 3] [--matches 20] [--think 0.05] [--seconds 10]
        [--unary 8] [--connections 600]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from arena_bench import ADMIN_AUTH, Account
from new_streams_bench import _DEALS, _auth, _ending
from service_bench import _port, _rss_kb, _spawn, pin_server_core

UNTIMED = pb.ClockSettings(move_time_limit_ms=0)
_OPENING_AT_ONCE = 50
"""The flood's new connections being opened at once."""
_STREAM_WAIT_S = 10.0


# ---------------------------------------------------------------------------- the flood (its own process)


async def _silent_session(stub: pb_grpc.PresidentServiceAsyncStub, token: str, match_id: str,
                          counts: Counter[str]) -> None:
    """Write stale MatchActs as fast as the server takes them; never read.  Counts the acts written and how the
    call ended."""
    call = stub.Session(metadata=_auth(token))
    act = pb.SessionRequest(act=pb.MatchAct(match_id=match_id, act=pb.Act(turn_id=1)))
    try:
        await call.write(pb.SessionRequest(hello=pb.SessionHello()))
        while True:
            await call.write(act)
            counts["Session: MatchActs written, never read"] += 1
    except grpc.aio.AioRpcError as exc:
        counts[f"Session: {_ending(exc)}"] += 1
    except asyncio.InvalidStateError:
        counts[f"Session: {(await call.code()).name} (seen before a write)"] += 1


async def _unary(stub: pb_grpc.PresidentServiceAsyncStub, match_id: str, counts: Counter[str]) -> None:
    while True:
        try:
            await stub.GetMatch(pb.GetMatchRequest(match_id=match_id), timeout=_STREAM_WAIT_S)
            counts["GetMatch: OK"] += 1
        except grpc.aio.AioRpcError as exc:
            counts[f"GetMatch: {_ending(exc)}"] += 1


async def _stream(address: str, number: int, seat_token: str, match_id: str, counts: Counter[str],
                  held: list[grpc.aio.Channel]) -> None:
    """A new connection (its own subchannel) and one stream on it, held open once it has its first message."""
    channel = grpc.aio.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)])
    held.append(channel)
    stub: pb_grpc.PresidentServiceAsyncStub = pb_grpc.PresidentServiceStub(channel)
    kind = "Spectate" if number % 2 else "Play"
    try:
        if kind == "Play":
            play = stub.Play(metadata=_auth(seat_token))
            await play.write(pb.PlayRequest(hello=pb.Hello()))
            message: Any = await asyncio.wait_for(play.read(), _STREAM_WAIT_S)
        else:
            message = await asyncio.wait_for(stub.Spectate(pb.SpectateRequest(match_id=match_id)).read(),
                                             _STREAM_WAIT_S)
        counts[f"{kind}: open" if message is not grpc.aio.EOF else f"{kind}: ended before a message"] += 1
    except grpc.aio.AioRpcError as exc:
        counts[f"{kind}: {_ending(exc)}"] += 1
    except asyncio.InvalidStateError:
        counts[f"{kind}: ended before Hello was written"] += 1
    except TimeoutError:
        counts[f"{kind}: no message within {_STREAM_WAIT_S:g} s"] += 1


async def _flood(port: int, unary: int, connections: int) -> None:
    """Flood until SIGTERM (printing "flooding" once it starts), then replace the silent Session and print the
    counts of what the flooder was answered, as JSON."""
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    address = f"127.0.0.1:{port}"
    counts: Counter[str] = Counter()
    held: list[grpc.aio.Channel] = []
    async with grpc.aio.insecure_channel(address) as channel:
        stub: pb_grpc.PresidentServiceAsyncStub = pb_grpc.PresidentServiceStub(channel)
        token = (await stub.CreateAccount(pb.CreateAccountRequest(name="flooder", owner="bench"),
                                          metadata=ADMIN_AUTH)).token
        made = await stub.CreateMatch(pb.CreateMatchRequest(
            preset="cardverse", rules=pb.Rules(deals=_DEALS), seat_accounts=["flooder"], clock=UNTIMED),
            metadata=ADMIN_AUTH)
        silent = asyncio.ensure_future(_silent_session(stub, token, made.match_id, counts))
        tasks = [asyncio.ensure_future(_unary(stub, made.match_id if n % 2 else "no-such-match", counts))
                 for n in range(unary)]
        print("flooding", flush=True)
        opening = asyncio.Semaphore(_OPENING_AT_ONCE)

        async def stream(number: int) -> None:
            async with opening:
                await _stream(address, number, made.seats[0].token, made.match_id, counts, held)

        streams = asyncio.gather(*(stream(n) for n in range(connections)))
        await stop.wait()
        streams.cancel()
        for task in tasks:
            task.cancel()
        replacing = stub.Session(metadata=_auth(token))
        try:
            await replacing.write(pb.SessionRequest(hello=pb.SessionHello()))
            first: Any = await replacing.read()
            welcomed = first is not grpc.aio.EOF and first.HasField("welcome")
            counts["second Session: " + ("welcomed" if welcomed else "no Welcome")] += 1
        except grpc.aio.AioRpcError as exc:
            counts[f"second Session: {_ending(exc)}"] += 1
        try:
            await asyncio.wait_for(silent, 15)
        except TimeoutError:
            counts["Session: not ended 15 s after it was replaced"] += 1
        replacing.cancel()
        for held_channel in held:
            await held_channel.close()
    print(json.dumps(counts), flush=True)
    os._exit(0)


# ---------------------------------------------------------------------------- the honest matches, and the figures


def _trips(accounts: list[Account]) -> tuple[float, float]:
    """p50 and p99 of the round trips timed in the window just ended, in ms."""
    trips = sorted(t for a in accounts for t in a.round_trips)
    for account in accounts:
        account.round_trips = []
    if not trips:
        return float("nan"), float("nan")
    return trips[len(trips) // 2] * 1000, trips[min(len(trips) - 1, int(len(trips) * 0.99))] * 1000


async def _window(accounts: list[Account], seconds: float, pid: int) -> tuple[float, float, int]:
    """Time the honest round trips for `seconds`: their p50 and p99 (ms), and the server's largest RSS (KB)."""
    for account in accounts:
        account.round_trips = []
        account.measuring = True
    largest = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        largest = max(largest, _rss_kb(pid))
        await asyncio.sleep(0.2)
    for account in accounts:
        account.measuring = False
    return (*_trips(accounts), largest)


async def _honest(port: int, pid: int, args: argparse.Namespace) -> dict[str, Any]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub: Any = pb_grpc.PresidentServiceStub(channel)
        names = [f"honest{i}" for i in range(4)]
        accounts = [Account(stub, (await stub.CreateAccount(pb.CreateAccountRequest(name=n, owner="bench"),
                                                              metadata=ADMIN_AUTH)).token, args.think)
                    for n in names]
        tasks = [asyncio.ensure_future(a.run(pb.Appetite(max_matches=args.matches))) for a in accounts]
        for m in range(args.matches):
            await stub.CreateMatch(pb.CreateMatchRequest(
                preset="cardverse", seed=m, rules=pb.Rules(deals=_DEALS), seat_accounts=names[m % 4:] + names[:m % 4],
                clock=UNTIMED), metadata=ADMIN_AUTH)
        while sum(a.snapshots for a in accounts) < 4 * args.matches:
            await asyncio.sleep(0.1)
        await asyncio.sleep(args.think + 1.0)
        out: dict[str, Any] = {}
        out["p50 before"], out["p99 before"], out["RSS before"] = await _window(accounts, args.seconds, pid)
        flood = subprocess.Popen([sys.executable, __file__, "--flood", "--port", str(port), "--unary", str(args.unary),
                                  "--connections", str(args.connections)], stdout=subprocess.PIPE, text=True)
        try:
            assert flood.stdout is not None
            if flood.stdout.readline().strip() != "flooding":
                raise RuntimeError("the flood did not start")
            out["p50 during"], out["p99 during"], out["RSS during"] = await _window(accounts, args.seconds, pid)
        finally:
            flood.terminate()
        tail = await asyncio.get_running_loop().run_in_executor(None, lambda: flood.communicate(timeout=60)[0])
        out["flooder"] = Counter(json.loads(tail.strip().splitlines()[-1]))
        await asyncio.sleep(args.settle)
        out["p50 after"], out["p99 after"], _ = await _window(accounts, args.seconds, pid)
        out["RSS after"] = _rss_kb(pid)
        for account in accounts:
            account.stop()
        for task in tasks:
            task.cancel()
    return out


def _run(args: argparse.Namespace, cpus: set[int] | None, tmp: str) -> dict[str, Any]:
    port = _port()
    server = _spawn(["-m", "president_service", "serve", "--port", str(port), "--db", f"{tmp}/{port}.db"],
                    "serving on", Path(tmp) / f"{port}.log", cpus)
    try:
        return asyncio.run(_honest(port, server.pid, args))
    finally:
        server.terminate()
        server.wait(30)


def _trips_line(run: dict[str, Any]) -> str:
    return ", ".join(f"{q} {run[f'{q} before']:.2f} / {run[f'{q} during']:.2f} / {run[f'{q} after']:.2f} ms"
                     for q in ("p50", "p99"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--matches", type=int, default=20, help="honest matches playing throughout")
    parser.add_argument("--think", type=float, default=0.05, help="seconds an honest seat takes a move")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each timed window")
    parser.add_argument("--settle", type=float, default=3.0, help="seconds after the flood before the last window")
    parser.add_argument("--unary", type=int, default=8, help="the flooder's GetMatch loops")
    parser.add_argument("--connections", type=int, default=600, help="the flooder's new connections, a stream each")
    parser.add_argument("--no-pin", action="store_true")
    parser.add_argument("--flood", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.flood:
        asyncio.run(_flood(args.port, args.unary, args.connections))
        return
    cpus = pin_server_core(args.no_pin)
    print(f"one account's flood beside {args.matches} honest matches over 4 Sessions (think {args.think:g} s),"
          f" {args.seconds:g} s windows: a silent Session, {args.unary} GetMatch loops, {args.connections} new"
          f" connections with a stream each", flush=True)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for number in range(args.runs):
            started = time.monotonic()
            run = _run(args, cpus, tmp)
            runs.append(run)
            print(f"  run {number + 1} ({time.monotonic() - started:.0f} s): honest round trip before / during / after"
                  f" the flood: {_trips_line(run)}; server RSS {run['RSS before'] / 1024:.0f} /"
                  f" {run['RSS during'] / 1024:.0f} / {run['RSS after'] / 1024:.0f} MB", flush=True)
            print("    flooder: " + ", ".join(f"{how} {n}" for how, n in sorted(run["flooder"].items())), flush=True)
    median = {key: statistics.median(run[key] for run in runs) for key in runs[0] if key != "flooder"}
    print(f"  median of {args.runs} runs: honest round trip before / during / after: {_trips_line(median)};"
          f" during/before p50 {median['p50 during'] / median['p50 before']:.2f}x,"
          f" p99 {median['p99 during'] / median['p99 before']:.2f}x", flush=True)
    print(f"    server RSS before {median['RSS before'] / 1024:.0f} MB, during (largest)"
          f" {median['RSS during'] / 1024:.0f} MB, after {median['RSS after'] / 1024:.0f} MB", flush=True)
    names = sorted({how for run in runs for how in run["flooder"]})
    print("    flooder answered: " + ", ".join(f"{how} {statistics.median(run['flooder'][how] for run in runs):g}"
                                            for how in names), flush=True)


if __name__ == "__main__":
    main()
