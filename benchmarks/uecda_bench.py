"""Bridge A's speed, and the expert's strength in the contest's match (issue 25, "Measured"; issue 45).

Bridge A is `president uecda serve`: without ``--server`` the match on the engine in its own process
(`uecda_engine.play_on_engine`), with it the match on a server of ours (`uecda_bridge.play_match`).  Printed:

- per run, `--games` games through bridge A on the engine with five contest clients in C (benchmarks/
  uecda_lowest.c, compiled here with ``cc``: each its own process, as the reference server's C clients are),
  over real TCP: milliseconds a game; then the median over `--runs` runs and its ratio to the reference server's
  figure (7 ms a game with its C clients on this machine class; the goal is at most 3x), and the machine's load
  (other processes share its cores);
- the same on the engine with five of our Python clients (bridge B's `easy` level, on the bridge's own loop);
- `--server-games` games through a server of ours (`--server`: gRPC, every move on its disk) with the C
  clients, for comparison;
- one match of `--expert-games` games: `builtin:expert` as player 0 against four easy clients, the expert's
  points a game with a 95% interval (normal approximation over games), and its places;
- bridge B against a server that sends the reference server's tables (UECDA 2.2: rank cells that repeat a
  rank during play, values in cells without meaning; the tests' `EngineServer(reference=True)`): for each level
  of `--contest-levels`, one match of `--contest-games` games of `president-bot builtin:LEVEL --uecda` as
  player 0 (a process of its own, as a user runs it) and four easy clients: its exit status, the games it
  reported, the time, and what the server sent that a strict reader would have stopped on.

A measurement, not a test: nothing is asserted.

    .venv/bin/python benchmarks/uecda_bench.py [--runs 3] [--games 200] [--server-games 20] [--expert-games 200]
        [--contest-games 1000] [--contest-levels hard,expert]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from president_engine import Match
from president_harness.child_server import ChildServer
from president_harness.uecda.uecda_bridge import BridgeResult, Listener, contest_rules, play_match
from president_harness.uecda.uecda_engine import play_on_engine
from president_sdk.bots import builtin_bot
from president_sdk.uecda.client import ContestResult, play_uecda_async

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from uecda_support import EngineServer, engine_contest

REFERENCE_S_PER_GAME = 0.007
"""The reference server with its C clients, on this machine class (shared/UECDA.md, via the issue)."""
GOAL_RATIO = 3
C_CLIENT = Path(__file__).with_name("uecda_lowest.c")


def _compile_client(folder: Path) -> Path | None:
    """The C contest client, compiled into `folder`; None (with a line) without a C compiler."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        print("  (no C compiler: the C clients' lines are skipped)")
        return None
    program = folder / "uecda_lowest"
    subprocess.run([compiler, "-O2", "-o", str(program), str(C_CLIENT)], check=True)
    return program


async def _bridged(server: ChildServer | None, clients: Sequence[str | Path], games: int, seed: int
                   ) -> tuple[float, float, BridgeResult, list[ContestResult]]:
    """One match of `games` games through bridge A (on the engine, or on `server`): the seconds from the seated
    clients to the last game's end, this process's CPU seconds in that time, the result, and the Python
    clients' results.  A client is a built-in level
    (a Python client on this loop) or the path of the C client (a process of its own)."""
    async with Listener("127.0.0.1", 0) as listener:
        python, processes = [], []
        for number, client in enumerate(clients):
            if isinstance(client, Path):
                processes.append(await asyncio.create_subprocess_exec(str(client), "127.0.0.1", str(listener.port),
                                                                      f"lowest{number}"))
            else:
                python.append(asyncio.create_task(play_uecda_async(builtin_bot(client, seed=number), "127.0.0.1",
                                                                   listener.port, name=client)))
            await asyncio.sleep(0.05)
        seated = await listener.seat_clients(len(clients))
        started, cpu = time.perf_counter(), time.process_time()
        if server is None:
            result = await play_on_engine(seated, Match(contest_rules(games), seed=seed))
        else:
            result = await play_match(seated, server.address, server.admin_token, contest_rules(games), seed=seed)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        results = list(await asyncio.gather(*python))
        for process in processes:
            await process.wait()
        return elapsed, cpu, result, results


def _actions(result: BridgeResult) -> int:
    return sum(len(deal.actions) for deal in result.record.deals)


def _load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.1f} (5 min {five:.1f}) on {os.cpu_count()} cores"


def _contest(level: str, games: int) -> None:
    """`president-bot builtin:LEVEL --uecda` through a match against the reference-like server."""
    judge = EngineServer(deals=games, seed=45, reference=True)
    command = [str(Path(sys.executable).parent / "president-bot"), f"builtin:{level}", "--uecda"]
    started = time.perf_counter()
    _, ran = asyncio.run(engine_contest(judge, [builtin_bot("easy", seed=n) for n in range(4)], timeout=600,
                                        command=command))
    elapsed = time.perf_counter() - started
    assert ran is not None
    status, out, err = ran
    lines = out.splitlines()
    reported = sum(line.startswith("game ") for line in lines)
    print(f"  builtin:{level}: exit {status}, {reported} of {games} games reported, {elapsed:.0f} s"
          f" ({1000 * elapsed / games:.0f} ms a game); the server sent {judge.sent} tables, player 0's"
          f" {judge.repeated_ranks} with a repeated rank and {judge.junk} tables with values in cells without"
          f" meaning; {err.count(chr(10))} warning lines")
    if status:
        print(f"    its error: {err.strip().splitlines()[-1] if err.strip() else '(none)'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--server-games", type=int, default=20)
    parser.add_argument("--expert-games", type=int, default=200)
    parser.add_argument("--contest-games", type=int, default=1000)
    parser.add_argument("--contest-levels", default="hard,expert")
    args = parser.parse_args()
    logging.getLogger("president").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as folder:
        program = _compile_client(Path(folder))
        for label, clients in (("five C contest clients", [program] * 5 if program else None),
                               ("five Python contest clients (bridge B's easy, on the bridge's loop)", ["easy"] * 5)):
            if clients is None:
                continue
            print(f"bridge A on the engine (uecda serve without --server), {label}, {args.games} games a run:")
            per_game, cpu_per_game = [], []
            for run in range(1, args.runs + 1):
                elapsed, cpu, result, _ = asyncio.run(_bridged(None, clients, args.games, seed=run))
                per_game.append(elapsed / args.games)
                cpu_per_game.append(cpu / args.games)
                print(f"  run {run}: {1000 * per_game[-1]:.1f} ms a game, {1e6 * elapsed / _actions(result):.0f} us"
                      f" an action ({_actions(result) / args.games:.0f} actions a game); the bridge's process used"
                      f" {1000 * cpu_per_game[-1]:.1f} ms of CPU a game; {_load()}")
            median = statistics.median(per_game)
            print(f"  median of {args.runs} runs: {1000 * median:.1f} ms a game, {median / REFERENCE_S_PER_GAME:.1f}x"
                  f" the reference server's {1000 * REFERENCE_S_PER_GAME:.0f} ms a game (goal: at most"
                  f" {GOAL_RATIO}x, {1000 * GOAL_RATIO * REFERENCE_S_PER_GAME:.0f} ms); the process's CPU"
                  f" {1000 * statistics.median(cpu_per_game):.1f} ms a game")
        if program is not None and args.server_games:
            with ChildServer(Path(folder) / "db.sqlite") as server:
                elapsed, _, result, _ = asyncio.run(_bridged(server, [program] * 5, args.server_games, seed=1))
            print(f"bridge A on a server of ours (--server), five C contest clients, {args.server_games} games:"
                  f" {1000 * elapsed / args.server_games:.0f} ms a game, {1000 * elapsed / _actions(result):.1f} ms an"
                  f" action (gRPC, a runner thread a seat, every move on the server's disk); {_load()}")
        levels = ["expert", "easy", "easy", "easy", "easy"]
        _, _, _, results = asyncio.run(_bridged(None, levels, args.expert_games, seed=99))
    expert = results[0]
    points = [game.points_of(expert.player) or 0 for game in expert.games]
    mean = statistics.fmean(points)
    half = 1.96 * statistics.stdev(points) / len(points) ** 0.5 if len(points) > 1 else float("nan")
    places = [expert.places.count(place) for place in range(1, 6)]
    print(f"the expert against four easy clients, {len(points)} games through bridge A: {mean:.2f} points a game"
          f" (95% interval {mean - half:.2f} to {mean + half:.2f}; 3.00 is an equal share); places 1-5:"
          f" {' '.join(map(str, places))}")
    print(f"bridge B against the reference server's tables, {args.contest_games} games a match:")
    for level in filter(None, args.contest_levels.split(",")):
        _contest(level.strip(), args.contest_games)


if __name__ == "__main__":
    main()
