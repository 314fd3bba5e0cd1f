"""Built-in experts on Sessions, all on one loop or in worker processes: matches an hour and cores used.

Issue 28 ("Built-in experts that use the machine"): a ladder of experts used
half of a 2-core machine, because built-in experts decided one at a time on
one event loop.  `BuiltinSessions` now gives each searching account a worker
process (up to one per CPU).  Each run starts a server
(`president_harness.child_server`), four expert accounts, and plays
`--matches` 4-player cardverse matches of one deal, `--parallel` at a time,
first with `workers=0` (every expert on one loop, as before) and then with
the default workers; printed per run: the wall time, the clients' CPU time
(this process and its worker processes) as cores used, and the ratio; then
the medians over `--runs` runs.  The expert's budget is CPU time of its
thread, so its search per decision is the same either way.

A measurement, not a test: nothing is asserted.

    .venv/bin/python benchmarks/builtin_workers_bench.py [--runs 3] [--matches 8] [--parallel 4]
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import threading
import time
from pathlib import Path

import grpc
from president_harness.builtin_sessions import BuiltinSessions
from president_harness.child_server import ChildServer
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
from president_sdk.session_client import Appetite, FinishedMatch

NAMES = ("expert-a", "expert-b", "expert-c", "expert-d")


def _cpu_s() -> float:
    """CPU time of this process and its reaped children."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _play(server: ChildServer, tokens: dict[str, str], matches: int, parallel: int, workers: int | None
          ) -> tuple[float, float]:
    """Wall time and client CPU time for `matches` matches of four experts, `parallel` at a time."""
    stub = pb_grpc.PresidentServiceStub(grpc.insecure_channel(server.address))
    admin = (("authorization", f"Bearer {server.admin_token}"),)
    seats_over = threading.Semaphore(0)

    def over(match: FinishedMatch) -> None:
        seats_over.release()

    started, cpu = time.monotonic(), _cpu_s()
    with BuiltinSessions(server.address, {token: "expert" for token in tokens.values()}, on_finished=over,
                         appetite=Appetite(max_matches=parallel), workers=workers):
        created = 0
        for _ in range(min(parallel, matches)):
            stub.CreateMatch(pb.CreateMatchRequest(preset="cardverse", seat_accounts=list(NAMES),
                                                   rules=pb.Rules(deals=1)), metadata=admin)
            created += 1
        for _ in range(matches):
            for _ in NAMES:
                seats_over.acquire()
            if created < matches:
                stub.CreateMatch(pb.CreateMatchRequest(preset="cardverse", seat_accounts=list(NAMES),
                                                       rules=pb.Rules(deals=1)), metadata=admin)
                created += 1
    return time.monotonic() - started, _cpu_s() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--matches", type=int, default=8)
    parser.add_argument("--parallel", type=int, default=4, help="matches playing at once")
    args = parser.parse_args()
    print(f"four built-in experts on Sessions, {args.matches} one-deal cardverse matches, {args.parallel} at a time:"
          " one loop against worker processes", flush=True)
    rows: list[tuple[float, float, float, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for number in range(args.runs):
            with ChildServer(Path(tmp) / f"{number}.db") as server:
                stub = pb_grpc.PresidentServiceStub(grpc.insecure_channel(server.address))
                admin = (("authorization", f"Bearer {server.admin_token}"),)
                tokens = {name: stub.CreateAccount(pb.CreateAccountRequest(name=name, owner="bench"),
                                                   metadata=admin).token for name in NAMES}
                one_wall, one_cpu = _play(server, tokens, args.matches, args.parallel, 0)
                many_wall, many_cpu = _play(server, tokens, args.matches, args.parallel, None)
            rows.append((one_wall, one_cpu / one_wall, many_wall, many_cpu / many_wall))
            print(f"  run {number + 1}: one loop {one_wall:.1f} s ({one_cpu / one_wall:.2f} cores);"
                  f" workers {many_wall:.1f} s ({many_cpu / many_wall:.2f} cores); {one_wall / many_wall:.2f}x",
                  flush=True)
    one, one_cores, many, many_cores = (statistics.median(row[i] for row in rows) for i in range(4))
    print(f"  median of {args.runs} runs: one loop {one:.1f} s ({one_cores:.2f} cores), workers {many:.1f} s"
          f" ({many_cores:.2f} cores): {one / many:.2f}x the matches an hour", flush=True)


if __name__ == "__main__":
    main()
