"""Load test of the game server (run by `make bench`; a measurement, not a test).

Starts `python -m president_service serve` as a subprocess on a fresh
database, and from this process drives K concurrent 4-seat matches over
loopback, every seat a Play stream that answers each prompt with the first
legal action (written and read with the call's own write/read, as the
ping-pong does, so the ratio compares like with like).  Reports, as the
median of several runs:

- moves/s: accepted actions per second of wall time;
- p50/p99 move round trip: Act sent -> ActionAccepted received;
- server CPU per move (user + system time of the server process);
- server memory per live match (RSS growth once K matches are created and
  every seat is connected, divided by K), and the part of it already there
  once the matches are created, before any stream opens;
- a raw gRPC bidirectional ping-pong round trip (a bytes echo server in
  another subprocess), so the move round trip can be read as a ratio;
- the same echo server's memory per four open streams (each with one
  message each way), the transport's own floor for a 4-seat match.

Load generator and server do not share a core: both servers (game and echo)
run pinned to the first CPU and this process to the others, as load tests
keep a load generator off the server it measures (`--no-pin` to let the
kernel place them; on this 2-core machine that costs both the move and the
ping-pong round trip about 20%, the move more).  A match plays enough deals
for about 2,000 moves in all (25 deals for one match), so that the single
match's median is over as many round trips as the ping-pong's.

    python benchmarks/service_bench.py [--matches 1 200] [--runs 3] [--no-pin]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

ADMIN = "bench-admin"
_TICK = os.sysconf("SC_CLK_TCK")


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def _spawn(args: list[str], ready: str, log: Path, cpus: set[int] | None) -> subprocess.Popen[bytes]:
    with log.open("w") as out:
        process = subprocess.Popen([sys.executable, *args], stdout=out, stderr=subprocess.STDOUT,
                                   env=dict(os.environ, PRESIDENT_ADMIN_TOKEN=ADMIN),
                                   preexec_fn=None if cpus is None else lambda: os.sched_setaffinity(0, cpus))
    deadline = time.monotonic() + 30
    while ready not in log.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(log.read_text())
        time.sleep(0.02)
    return process


# ---------------------------------------------------------------------------- raw ping-pong


async def _echo_server(port: int) -> None:
    async def echo(requests: AsyncIterator[bytes], context: object) -> AsyncIterator[bytes]:
        async for request in requests:
            yield request

    server = grpc.aio.server()
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(
        "bench.Echo", {"Echo": grpc.stream_stream_rpc_method_handler(echo)})])
    server.add_insecure_port(f"127.0.0.1:{port}")
    await server.start()
    print("echo ready", flush=True)
    await server.wait_for_termination()


def pin_server_core(no_pin: bool) -> set[int] | None:
    """The first CPU, for the server (`_spawn`'s `cpus`), with this process and its clients moved to the others;
    None (nothing pinned) with `--no-pin` or a single CPU."""
    available = sorted(os.sched_getaffinity(0))
    if no_pin or len(available) < 2:
        return None
    os.sched_setaffinity(0, set(available[1:]))
    return {available[0]}


async def _ping_pong(port: int, rounds: int = 2000, size: int = 64) -> float:
    """Median round trip of one `size`-byte message on a bidirectional stream, in ms."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        call = channel.stream_stream("/bench.Echo/Echo")()
        times = []
        payload = b"x" * size
        for _ in range(rounds):
            start = time.perf_counter()
            await call.write(payload)
            await call.read()
            times.append(time.perf_counter() - start)
        await call.done_writing()
        return statistics.median(times[rounds // 20:]) * 1000


async def _raw_streams_kb(port: int, pid: int, streams: int) -> float:
    """RSS growth of the echo server per four open bidirectional streams, in KB."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        echo: Any = channel.stream_stream("/bench.Echo/Echo")
        before = _rss_kb(pid)
        calls = []
        for _ in range(streams):
            call = echo()
            await call.write(b"x" * 64)
            await call.read()
            calls.append(call)
        await asyncio.sleep(0.5)
        grown = _rss_kb(pid) - before
        for call in calls:
            await call.done_writing()
        return grown / streams * 4


# ---------------------------------------------------------------------------- matches


async def _seat(stub: pb_grpc.PresidentServiceStub, token: str, connected: asyncio.Event,
                go: asyncio.Event, round_trips: list[float]) -> int:
    """One seat answering every prompt at once, with the same read/write calls as the ping-pong."""
    call: Any = stub.Play(metadata=(("authorization", f"Bearer {token}"),))
    await call.write(pb.PlayRequest(hello=pb.Hello()))
    sent: dict[int, float] = {}
    moves = 0
    while (message := await call.read()) is not grpc.aio.EOF:
        kind = message.WhichOneof("kind")
        if kind == "snapshot":
            connected.set()
            await go.wait()
        elif kind == "prompt":
            act = pb.PlayRequest(act=pb.Act(turn_id=message.prompt.turn_id, action=message.prompt.legal_actions[0]))
            sent[message.prompt.turn_id] = time.perf_counter()
            await call.write(act)
        elif kind == "action_accepted":
            round_trips.append(time.perf_counter() - sent.pop(message.action_accepted.turn_id))
            moves += 1
        elif kind == "match_over":
            break
    await call.done_writing()
    return moves


def _deals(matches: int) -> int:
    """Deals a match plays: about 2,000 moves in all (a deal of cardverse is about 80 moves)."""
    return max(1, 25 // matches)


async def _drive(port: int, server_pid: int, matches: int) -> dict[str, float]:
    options = [("grpc.max_receive_message_length", 16 * 1024 * 1024)]
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=options) as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        rss_before = _rss_kb(server_pid)
        created = []
        for i in range(matches):
            created.append(await stub.CreateMatch(pb.CreateMatchRequest(
                preset="cardverse", seed=i, rules=pb.Rules(deals=_deals(matches)),
                clock=pb.ClockSettings(move_time_limit_ms=0)), metadata=(("authorization", f"Bearer {ADMIN}"),)))
        await asyncio.sleep(0.5)
        rss_created = _rss_kb(server_pid)
        go = asyncio.Event()
        round_trips: list[float] = []
        flags = [asyncio.Event() for _ in range(matches * 4)]
        tasks = [asyncio.ensure_future(_seat(stub, seat.token, flags[4 * m + s], go, round_trips))
                 for m, response in enumerate(created) for s, seat in enumerate(response.seats)]
        await asyncio.gather(*(flag.wait() for flag in flags))
        await asyncio.sleep(0.5)
        rss_live = _rss_kb(server_pid)
        cpu_before = _cpu_s(server_pid)
        start = time.perf_counter()
        go.set()
        moves = sum(await asyncio.gather(*tasks))
        wall = time.perf_counter() - start
        cpu = _cpu_s(server_pid) - cpu_before
    round_trips.sort()
    return {
        "moves/s": moves / wall,
        "p50 ms": round_trips[len(round_trips) // 2] * 1000,
        "p99 ms": round_trips[int(len(round_trips) * 0.99)] * 1000,
        "cpu us/move": cpu / moves * 1e6,
        "KB/match": (rss_live - rss_before) / matches,
        "of which created, no stream": (rss_created - rss_before) / matches,
    }


def _run(matches: int, workdir: Path, cpus: set[int] | None) -> tuple[dict[str, float], float, float]:
    port, echo_port = _port(), _port()
    server = _spawn(["-m", "president_service", "serve", "--port", str(port), "--db", str(workdir / f"{port}.db"),
                     "--max-matches", str(max(matches, 10))], "serving on", workdir / f"{port}.log", cpus)
    echo = _spawn([__file__, "--echo", str(echo_port)], "echo ready", workdir / f"{echo_port}.log", cpus)
    try:
        figures = asyncio.run(_drive(port, server.pid, matches))
        ping = asyncio.run(_ping_pong(echo_port))
        raw_kb = asyncio.run(_raw_streams_kb(echo_port, echo.pid, max(4 * matches, 400)))
    finally:
        for process in (server, echo):
            process.terminate()
            process.wait(10)
    return figures, ping, raw_kb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, nargs="+", default=[1, 200])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-pin", action="store_true", help="do not keep servers and load on separate CPUs")
    parser.add_argument("--echo", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo:
        asyncio.run(_echo_server(args.echo))
        return
    server_cpus = pin_server_core(args.no_pin)
    if server_cpus is not None:
        others = ",".join(map(str, sorted(os.sched_getaffinity(0))))
        print(f"servers on CPU {min(server_cpus)}, load on CPU {others}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for matches in args.matches:
            runs = [_run(matches, Path(tmp), server_cpus) for _ in range(args.runs)]
            keys = list(runs[0][0])
            med = {k: statistics.median(r[0][k] for r in runs) for k in keys}
            ping = statistics.median(r[1] for r in runs)
            raw_kb = statistics.median(r[2] for r in runs)
            print(f"{matches:4d} concurrent match(es), median of {args.runs}: "
                  + ", ".join(f"{k} {v:.2f}" if k.endswith("ms") else f"{k} {v:.1f}" for k, v in med.items())
                  + f", raw ping-pong {ping * 1000:.0f} us (move p50 = {med['p50 ms'] / ping:.1f}x)"
                  + f", raw gRPC {raw_kb:.1f} KB per 4 open streams", flush=True)


if __name__ == "__main__":
    main()
