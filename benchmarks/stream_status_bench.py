"""How Play streams of timed matches end: the count of each final status, when clients answer near the deadline.

Issue 27 item 11: under load, about 20 of 4,000 timed-match Play streams
ended ``INTERNAL "Internal error from Core"`` right after a prompt.  grpc's
asyncio client reports a write that reaches a call the server has already
ended as INTERNAL, overwriting the server's status (grpc/grpc#36066), and a
seat answering its last prompt just after its deadline writes as the server's
move for it ends the match and the stream; a seat answering as the server
drains, likewise (`stream_ends.hear_out` now waits for that answer first).  The
contract names one end for every stream of the first part: MatchOver, then OK.

Each run starts `python -m president_service serve` on a fresh database
(pinned to the first CPU, the clients on the others, as service_bench.py
does), plays `--matches` 4-player cardverse matches of `--deals` deals,
`--concurrent` at a time, with a clock of `--move-ms` per move, no bank and
no take-over, every seat on its own Play stream (bare grpc.aio, the
reader/writer API as a client written from the proto uses it).  A seat is
"late" with probability `--late`: it answers each prompt at its deadline plus
a uniform draw in +-`--jitter` s, so about half of its answers miss and race
the server's move for it; the others answer at once.  Printed: each run's
counts of final status codes (INTERNAL split by the operation that raised
it) and the late answers refused STALE_TURN, then the median of each count
over `--runs` runs.

Then the same for a server that drains: `--drain-matches` matches of 5
deals at once (the server's default clock), every seat answering after a uniform think time of up to
0.1 s, and SIGTERM to the server `--drain-after` s in.  The contract's end
is UNAVAILABLE with SHUTTING_DOWN; a client whose write comes after it has
seen the end is counted apart ("status seen before a write", it raises
InvalidStateError, the status still readable), as it is not a race.

A measurement, not a test: nothing is asserted.

    .venv/bin/python benchmarks/stream_status_bench.py [--runs 3] [--matches 40] [--concurrent 20] [--move-ms 300]
        [--drain-matches 60] [--drain-after 4]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

sys.path.insert(0, str(Path(__file__).resolve().parent))
from service_bench import ADMIN, _port, _spawn, pin_server_core


def _auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def _seat(stub: pb_grpc.PresidentServiceAsyncStub, token: str, late: bool, jitter: float, think: float,
                rng: random.Random, counts: Counter[str]) -> None:
    """One seat's Play stream to its end; counts its final status (and where an INTERNAL was raised)."""
    call = stub.Play(metadata=_auth(token))
    doing = "write Hello"
    try:
        await call.write(pb.PlayRequest(hello=pb.Hello()))
        while True:
            doing = "read"
            message = await call.read()
            if message is grpc.aio.EOF:
                break
            if message.HasField("action_rejected") and message.action_rejected.error_reason == \
                    pb.ERROR_REASON_STALE_TURN:
                counts["late answers refused STALE_TURN"] += 1
            if message.HasField("prompt"):
                prompt = message.prompt
                if late and prompt.HasField("deadline"):
                    deadline = prompt.deadline.seconds + prompt.deadline.nanos / 1e9
                    await asyncio.sleep(max(0.0, deadline - time.time() + rng.uniform(-jitter, jitter)))
                elif think:
                    await asyncio.sleep(rng.uniform(0, think))
                doing = "write Act"
                await call.write(pb.PlayRequest(act=pb.Act(turn_id=prompt.turn_id, action=prompt.legal_actions[-1])))
        counts[(await call.code()).name] += 1
    except asyncio.InvalidStateError:
        counts[f"{(await call.code()).name} (status seen before a write)"] += 1
    except grpc.aio.AioRpcError as exc:
        counts[exc.code().name if exc.code() != grpc.StatusCode.INTERNAL else f"INTERNAL at {doing}"] += 1


async def _play(port: int, matches: int, concurrent: int, deals: int, clock: pb.ClockSettings | None, late: float,
                jitter: float, think: float, seed: int) -> Counter[str]:
    counts: Counter[str] = Counter()
    rng = random.Random(seed)
    limit = asyncio.Semaphore(concurrent)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = pb_grpc.PresidentServiceStub(channel)

        async def match() -> None:
            async with limit:
                made = await stub.CreateMatch(pb.CreateMatchRequest(
                    preset="cardverse", rules=pb.Rules(players=4, deals=deals), seed=rng.randrange(1 << 32),
                    clock=clock), metadata=_auth(ADMIN))
                await asyncio.gather(*(_seat(stub, seat.token, rng.random() < late, jitter, think, rng, counts)
                                       for seat in made.seats))

        await asyncio.gather(*(match() for _ in range(matches)))
    return counts


def _runs(args: argparse.Namespace, cpus: set[int] | None, title: str, drain_after: float | None) -> None:
    """`args.runs` runs on fresh servers: each run's counts, then the median of each."""
    print(title, flush=True)
    runs: list[Counter[str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for number in range(args.runs):
            port = _port()
            server = _spawn(["-m", "president_service", "serve", "--port", str(port), "--db", f"{tmp}/{port}.db",
                             "--max-matches", str(max(args.concurrent, args.drain_matches) + 10)], "serving on",
                            Path(tmp) / f"{port}.log", cpus)
            seed = args.seed + number
            try:
                started = time.monotonic()
                if drain_after is None:
                    clock = pb.ClockSettings(move_time_limit_ms=args.move_ms, time_bank_ms=0,
                                             strikes_before_takeover=0)
                    counts = asyncio.run(_play(port, args.matches, args.concurrent, args.deals, clock, args.late,
                                               args.jitter, 0.0, seed))
                else:
                    drain = threading.Timer(drain_after, server.terminate)
                    drain.start()
                    counts = asyncio.run(_play(port, args.drain_matches, args.drain_matches, 5, None,
                                               0.0, 0.0, 0.1, seed))
                    drain.cancel()
            finally:
                server.terminate()
                server.wait(30)
            runs.append(counts)
            print(f"  run {number + 1} ({time.monotonic() - started:.0f} s): "
                  + ", ".join(f"{name} {n}" for name, n in sorted(counts.items())), flush=True)
    names = sorted({name for counts in runs for name in counts})
    print(f"  median of {args.runs} runs: "
          + ", ".join(f"{name} {statistics.median(counts[name] for counts in runs):g}" for name in names), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--matches", type=int, default=40)
    parser.add_argument("--concurrent", type=int, default=20, help="matches played at once")
    parser.add_argument("--deals", type=int, default=1)
    parser.add_argument("--move-ms", type=int, default=300)
    parser.add_argument("--late", type=float, default=0.5, help="share of seats answering near the deadline")
    parser.add_argument("--jitter", type=float, default=0.02, help="seconds around the deadline a late seat answers")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--drain-matches", type=int, default=60, help="matches playing as the server drains")
    parser.add_argument("--drain-after", type=float, default=4.0, help="seconds of play before SIGTERM (0: skip)")
    parser.add_argument("--no-pin", action="store_true")
    args = parser.parse_args()
    cpus = pin_server_core(args.no_pin)
    _runs(args, cpus, f"Play streams of {args.matches} timed matches x 4 seats ({args.concurrent} at a time,"
                      f" {args.deals} deal, {args.move_ms} ms a move, no bank); {args.late:.0%} of seats answer at the"
                      f" deadline +-{args.jitter * 1000:g} ms", None)
    if args.drain_after:
        _runs(args, cpus, f"Play streams of {args.drain_matches} matches x 4 seats, each seat thinking up to 0.1 s,"
                          f" as the server drains {args.drain_after:g} s in", args.drain_after)


if __name__ == "__main__":
    main()
