"""New Play streams while many matches play: how long a new stream waits for Welcome, and how it ends.

Issue 27 item 10: while 200 matches played, a new Play stream waited 7-15 s
for its Welcome (unary calls on the same channel answered within 1.6 s); with
500 live matches, 903 of 2,276 new streams ended CANCELLED after about 30 s,
with no ErrorInfo.  The server now either admits a new stream promptly or
refuses it at once (RESOURCE_EXHAUSTED, TOO_MANY_STREAMS, with a retry hint):
docs/scaling.md says the bound.

Each case is a number of live matches (`--live`: 200, and 500 as in the
issue), each run of it starts `python -m president_service serve` on a fresh
database (pinned to the first CPU; the load and the probes on the others, as
service_bench.py does).  A load process (this script with `--load`) creates
the live 4-player untimed cardverse matches of many deals and plays them,
every seat a Play stream answering each prompt at once with its last legal
action (bare grpc.aio; a stream refused as it opens tries again after its
retry hint), until it is stopped; no seat answers before every seat has its
Welcome, so the load's own streams open before the server is saturated.
Once every seat has its Welcome, this process, on a channel of its own:

- one at a time, `--probes` times: CreateMatch, then the new match's four
  Play streams opened at once, each timed from its opening to its Welcome
  (or its end), and a GetMatch on the same channel beside them;
- then a burst: `--burst` new streams (the seats of `--burst`/4 new matches)
  opened at once, each timed to its Welcome or its end, with a client
  deadline of 45 s (gRPC core cancels a call the server has not taken for
  30 s).

Printed per run: the load's moves/s, CreateMatch and GetMatch round trips,
time to Welcome (median, p90, max) and the count of each way a stream ended
(WELCOME, or the status code, with the ErrorInfo reason and the retry hint
when there is one); then, per case, the median of each figure over `--runs` runs.

A measurement, not a test: nothing is asserted.

    .venv/bin/python benchmarks/new_streams_bench.py [--runs 3] [--live 200 500] [--probes 10] [--burst 400]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
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
from president_protocol.status import read_refusal
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from service_bench import ADMIN, _cpu_s, _port, _spawn, pin_server_core

_DEALS = 500
"""Deals of a load match: far more than a run plays, so the load does not thin out."""
_DEADLINE_S = 45.0


def _auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def _quantiles(values: list[float]) -> tuple[float, float, float]:
    """Median, 90th percentile and maximum."""
    if not values:
        return (float("nan"),) * 3
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], ordered[-1]


# ---------------------------------------------------------------------------- the load (its own process)


async def _load_seat(stub: pb_grpc.PresidentServiceStub, token: str, welcomed: asyncio.Event, left: list[int],
                     moves: list[int]) -> None:
    """One seat: its Play stream, then an answer to each prompt once every seat of the load is welcomed (so the
    load's own streams open on a server not yet saturated, as a server's matches would have over time)."""
    call = stub.Play(metadata=_auth(token))
    await call.write(pb.PlayRequest(hello=pb.Hello()))
    while True:
        try:
            message = await call.read()
        except grpc.aio.AioRpcError as exc:
            if exc.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                raise
            await asyncio.sleep(read_refusal(exc).retry_after_s or 1.0)  # refused as it opened: the bounds at work
            call = stub.Play(metadata=_auth(token))
            await call.write(pb.PlayRequest(hello=pb.Hello()))
            continue
        if message is grpc.aio.EOF:
            return
        if message.HasField("welcome"):
            left[0] -= 1
            if not left[0]:
                welcomed.set()
        elif message.HasField("prompt"):
            await welcomed.wait()
            await call.write(pb.PlayRequest(act=pb.Act(turn_id=message.prompt.turn_id,
                                                       action=message.prompt.legal_actions[-1])))
        elif message.HasField("action_accepted"):
            moves[0] += 1


async def _load(port: int, live: int, seed: int) -> None:
    """`live` matches playing until SIGTERM; prints "ready" once every seat has its Welcome, and on SIGTERM the
    moves accepted since then."""
    rng = random.Random(seed)
    welcomed = asyncio.Event()
    left = [4 * live]
    moves = [0]
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        seats = []
        for _ in range(live):
            made = await stub.CreateMatch(pb.CreateMatchRequest(
                preset="cardverse", rules=pb.Rules(players=4, deals=_DEALS), seed=rng.randrange(1 << 32),
                clock=pb.ClockSettings(move_time_limit_ms=0)), metadata=_auth(ADMIN))
            seats += [asyncio.ensure_future(_load_seat(stub, s.token, welcomed, left, moves)) for s in made.seats]
        await welcomed.wait()
        moves[0] = 0
        started = time.monotonic()
        print("ready", flush=True)
        await stop.wait()
        print(f"moves/s {moves[0] / (time.monotonic() - started):.0f}", flush=True)
        for seat in seats:
            seat.cancel()
        os._exit(0)  # the server goes next; nothing to tidy


# ---------------------------------------------------------------------------- the probes


def _ending(exc: grpc.aio.AioRpcError) -> str:
    refusal = read_refusal(exc)
    name = exc.code().name + (f" {refusal.reason}" if refusal.reason else " (no ErrorInfo)")
    return name + ("" if refusal.retry_after_s is None else f" retry {refusal.retry_after_s:g} s")


async def _stream(stub: pb_grpc.PresidentServiceStub, token: str) -> tuple[str, float]:
    """A new Play stream: how it ended (WELCOME or its status) and how long that took, in s."""
    started = time.monotonic()
    call = stub.Play(metadata=_auth(token), timeout=_DEADLINE_S)
    try:
        await call.write(pb.PlayRequest(hello=pb.Hello()))
        message = await call.read()
        took = time.monotonic() - started
        if message is not grpc.aio.EOF and message.HasField("welcome"):
            return "WELCOME", took
        return f"{(await call.code()).name} before Welcome", took
    except grpc.aio.AioRpcError as exc:
        return _ending(exc), time.monotonic() - started
    except asyncio.InvalidStateError:
        code = await call.code()
        return f"{code.name} (seen before Hello was written)", time.monotonic() - started
    finally:
        call.cancel()


async def _create(stub: pb_grpc.PresidentServiceStub, rng: random.Random) -> tuple[pb.CreateMatchResponse | None, float,
                                                                                     str]:
    started = time.monotonic()
    try:
        made = await stub.CreateMatch(pb.CreateMatchRequest(
            preset="cardverse", rules=pb.Rules(players=4, deals=1), seed=rng.randrange(1 << 32)),
            metadata=_auth(ADMIN), timeout=_DEADLINE_S)
    except grpc.aio.AioRpcError as exc:
        return None, time.monotonic() - started, _ending(exc)
    return made, time.monotonic() - started, "OK"


async def _probe(port: int, probes: int, burst: int, seed: int) -> dict[str, list[float] | Counter[str]]:
    rng = random.Random(seed)
    out: dict[str, Any] = {"create": [], "get": [], "welcome": [], "ends": Counter(),
                           "burst welcome": [], "burst refused": [], "burst ends": Counter()}
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        for _ in range(probes):
            made, took, how = await _create(stub, rng)
            out["create"].append(took)
            if made is None:
                out["ends"][f"CreateMatch {how}"] += 1
                continue

            async def get(match_id: str) -> float:
                started = time.monotonic()
                await stub.GetMatch(pb.GetMatchRequest(match_id=match_id), timeout=_DEADLINE_S)
                return time.monotonic() - started

            *streams, got = await asyncio.gather(*(_stream(stub, s.token) for s in made.seats), get(made.match_id))
            out["get"].append(got)
            for how, took in streams:
                out["ends"][how] += 1
                if how == "WELCOME":
                    out["welcome"].append(took)
        tokens = []
        for _ in range(max(1, burst // 4)):
            made, _took, how = await _create(stub, rng)
            if made is None:
                out["burst ends"][f"CreateMatch {how}"] += 1
            else:
                tokens += [s.token for s in made.seats]
        for how, took in await asyncio.gather(*(_stream(stub, token) for token in tokens[:burst])):
            out["burst ends"][how] += 1
            out["burst welcome" if how == "WELCOME" else "burst refused"].append(took)
    return out


def _ms(values: list[float]) -> str:
    median, p90, most = _quantiles(values)
    return f"median {median * 1000:.0f} ms, p90 {p90 * 1000:.0f} ms, max {most * 1000:.0f} ms (n={len(values)})"


def _run(args: argparse.Namespace, live: int, cpus: set[int] | None, tmp: str, number: int) -> dict[str, Any]:
    port = _port()
    server = _spawn(["-m", "president_service", "serve", "--port", str(port), "--db", f"{tmp}/{port}.db",
                     "--max-matches", str(live + args.probes + args.burst // 4 + 10)], "serving on",
                    Path(tmp) / f"{port}.log", cpus)
    try:
        load = subprocess.Popen([sys.executable, __file__, "--load", "--port", str(port), "--live", str(live),
                                 "--seed", str(args.seed + number)], stdout=subprocess.PIPE, text=True)
        try:
            assert load.stdout is not None
            if load.stdout.readline().strip() != "ready":
                raise RuntimeError("the load did not start")
            time.sleep(args.warmup)
            cpu = _cpu_s(server.pid)
            started = time.monotonic()
            result: dict[str, Any] = asyncio.run(_probe(port, args.probes, args.burst, args.seed + number))
            result["server cpu"] = (_cpu_s(server.pid) - cpu) / (time.monotonic() - started)
        finally:
            load.terminate()
            tail = load.communicate(timeout=60)[0]
        result["moves/s"] = float(tail.split()[-1]) if tail.startswith("moves/s") else float("nan")
    finally:
        server.terminate()
        server.wait(30)
    return result


def _case(args: argparse.Namespace, live: int, cpus: set[int] | None) -> None:
    """`args.runs` runs beside `live` matches: each run's figures, then the median of each."""
    print(f"new Play streams while {live} matches play (every seat answering at once): {args.probes} new"
          f" matches one at a time, then {args.burst} new streams at once", flush=True)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for number in range(args.runs):
            started = time.monotonic()
            result = _run(args, live, cpus, tmp, number)
            runs.append(result)
            print(f"  run {number + 1} ({time.monotonic() - started:.0f} s): load {result['moves/s']:.0f} moves/s,"
                  f" server CPU {result['server cpu']:.0%} of a core", flush=True)
            print(f"    CreateMatch {_ms(result['create'])}; GetMatch {_ms(result['get'])}", flush=True)
            print(f"    one at a time: Welcome {_ms(result['welcome'])}; "
                  + ", ".join(f"{how} {n}" for how, n in sorted(result["ends"].items())), flush=True)
            print(f"    burst: Welcome {_ms(result['burst welcome'])}; refused or ended {_ms(result['burst refused'])};"
                  f" " + ", ".join(f"{how} {n}" for how, n in sorted(result["burst ends"].items())), flush=True)
    print(f"  median of {args.runs} runs (load {statistics.median(run['moves/s'] for run in runs):.0f} moves/s):",
          flush=True)
    for key in ("create", "get", "welcome", "burst welcome", "burst refused"):
        quantiles = [_quantiles(run[key]) for run in runs if run[key]]
        if quantiles:
            median, p90, most = (statistics.median(q[i] * 1000 for q in quantiles) for i in range(3))
            print(f"    {key}: median {median:.0f} ms, p90 {p90:.0f} ms, max {most:.0f} ms", flush=True)
    for key in ("ends", "burst ends"):
        names = sorted({how for run in runs for how in run[key]})
        print(f"    {key}: " + ", ".join(f"{how} {statistics.median(run[key][how] for run in runs):g}"
                                         for how in names), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--live", type=int, nargs="+", default=[200, 500], help="live matches, a case each")
    parser.add_argument("--probes", type=int, default=10, help="new matches opened one at a time (4 streams each)")
    parser.add_argument("--burst", type=int, default=400, help="new streams opened at once after the probes")
    parser.add_argument("--warmup", type=float, default=3.0, help="seconds of play before the probes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-pin", action="store_true")
    parser.add_argument("--load", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.load:
        asyncio.run(_load(args.port, args.live[0], args.seed))
        return
    cpus = pin_server_core(args.no_pin)
    for live in args.live:
        _case(args, live, cpus)


if __name__ == "__main__":
    main()
