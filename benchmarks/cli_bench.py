"""The CPU a one-RPC ``president`` command costs, beside an empty Python as the floor.

Issue 44: every one-RPC command (``president account list``, ``president
versions``, ``president tournament status``) cost about 1.2 s of CPU, nearly
all of it importing the server, the engine and the built-in bots that the
command never used.  Each command here is run as a user runs it (the
``president`` script beside this Python, a new process each time) against
a server started for the benchmark (``president serve`` on a fresh
database, with four accounts and a tournament of them), and its user+sys CPU
taken from the kernel when it exits.  Each command runs once untimed
first, so that its modules' bytecode is cached as on a user's machine
(PYTHONDONTWRITEBYTECODE is dropped from the commands' environment: with it,
every run compiles every module it imports again).  Then the same again
with nothing cached (PYTHONDONTWRITEBYTECODE and an empty
PYTHONPYCACHEPREFIX: every module, the standard library's too, compiled at
every run), as on a machine that runs with PYTHONDONTWRITEBYTECODE from a
venv installed without bytecode (the issue's 1.2 s was measured so).  In the same
run: ``python -c pass`` (the interpreter's own start) and a process that only
imports grpc and the contract's generated code and makes one call (what any
one-RPC client pays).

Printed: per command, the median (and the smallest and largest) user+sys CPU
over `--runs` runs, in seconds; every command must exit 0.  The bar the issue
sets is under 0.3 s a command.

A measurement, not a test: nothing is asserted.

    .venv/bin/python benchmarks/cli_bench.py [--runs 9]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import grpc
from president_harness.child_server import ChildServer
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc

BAR_S = 0.3
RPC_FLOOR = """
import sys
import grpc
from president_protocol.v1 import president_pb2 as pb
from president_protocol.v1 import president_pb2_grpc as pb_grpc
with grpc.insecure_channel(sys.argv[1]) as channel:
    pb_grpc.PresidentServiceStub(channel).ListTournaments(pb.ListTournamentsRequest(), timeout=10)
"""


def _cpu(command: list[str], env: dict[str, str]) -> float:
    """User+sys CPU seconds of one run of `command` (it must exit 0)."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    assert process.stderr is not None
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    error = process.stderr.read().decode(errors="replace")
    process.stderr.close()
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command)} exited {process.returncode}: {error.strip()}")
    return usage.ru_utime + usage.ru_stime


def _president() -> list[str]:
    script = Path(sys.executable).with_name("president")
    return [str(script)] if script.exists() else [sys.executable, "-m", "president_harness"]


def _setup(address: str, admin: str) -> tuple[str, str]:
    """Four accounts and a tournament of them: (the first account's token, the tournament's id)."""
    metadata = (("authorization", f"Bearer {admin}"),)
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.PresidentServiceStub(channel)
        token = str(stub.CreateAccount(pb.CreateAccountRequest(name="bencher", owner="bench"), metadata=metadata,
                                       timeout=10).token)
        for name in ("ann", "bob", "cy"):
            stub.CreateAccount(pb.CreateAccountRequest(name=name, owner="bench"), metadata=metadata, timeout=10)
        created = stub.CreateTournament(pb.CreateTournamentRequest(spec=pb.TournamentSpec(
            name="bench", preset="cardverse", rules=pb.Rules(players=4), format=pb.TOURNAMENT_FORMAT_SWISS,
            rounds=3, entrants=["bencher", "ann", "bob", "cy"], unchecked=["bencher", "ann", "bob", "cy"])),
            metadata=metadata, timeout=10)
        return token, created.tournament.tournament_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    president = _president()
    cached = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as folder, ChildServer(Path(folder) / "bench.db") as server:
        address, admin = server.address, server.admin_token
        token, tournament = _setup(address, admin)
        cached["PRESIDENT_ADMIN_TOKEN"] = admin
        uncached = {**cached, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": str(Path(folder) / "no-cache")}
        cases = {
            "python -c pass (floor)": [sys.executable, "-c", "pass"],
            "grpc + contract, one call (floor)": [sys.executable, "-c", RPC_FLOOR, address],
            "president account list": [*president, "account", "list", "--server", address],
            "president versions": [*president, "versions", "--server", address, "--account-token", token],
            "president tournament status": [*president, "tournament", "status", tournament, "--server", address],
            "president tournament list": [*president, "tournament", "list", "--server", address],
        }
        for command in cases.values():  # untimed: compiles what the command imports once, as a user's first run does
            _cpu(command, cached)
        for title, env in (("bytecode cached", cached), ("every module compiled at every run", uncached)):
            seconds: dict[str, list[float]] = {name: [] for name in cases}
            for _ in range(args.runs):  # interleaved, so that a busy moment of the machine falls on every case alike
                for name, command in cases.items():
                    seconds[name].append(_cpu(command, env))
            print(f"{title}: user+sys CPU of one process, seconds, median [min, max] of {args.runs} runs"
                  f" (bar: under {BAR_S} s)")
            for name, values in seconds.items():
                print(f"  {name:36} {statistics.median(values):6.3f}  [{min(values):.3f}, {max(values):.3f}]")

if __name__ == "__main__":
    main()
