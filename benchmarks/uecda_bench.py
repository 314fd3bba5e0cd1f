"""Bridge A's speed, and the expert's strength in the contest's match (issue 25, "Measured").

Each run starts a server of ours (`president_harness.child_server`), bridge A in this process, and five contest
clients of bridge B (`president_sdk.uecda_client`) on the same loop, over real TCP; the clients are the `easy`
level, the lowest legal play, as the contest kit's standard client plays.  Printed:

- per run, `--games` games of five easy clients through bridge A: games a second, and the same match of the same
  five bots played in-process (`play_local`, the floor measured in the same run) as a ratio; then the medians
  over `--runs` runs and the ratio to the reference server's published figure (7 ms a game with its C clients);
  then where the time goes: the milliseconds an action, and the same with one contest client and four
  built-in seats of ours (the server's own move path without the bridge's clients);
- one match of `--expert-games` games: `builtin:expert` as player 0 against four easy clients, the expert's
  points a game with a 95% interval (normal approximation over games), and its places;
- bridge B against a server that sends the reference server's tables (UECDA 2.2: rank cells that repeat a
  rank during play, values in cells without meaning; the tests' `EngineServer(reference=True)`): for each level
  of `--contest-levels`, one match of `--contest-games` games of `president-bot builtin:LEVEL --uecda` as
  player 0 (a process of its own, as a user runs it) and four easy clients: its exit status, the games it
  reported, the time, and what the server sent that a strict reader would have stopped on.

A measurement, not a test: nothing is asserted.

    .venv/bin/python benchmarks/uecda_bench.py [--runs 3] [--games 100] [--expert-games 200]
        [--contest-games 1000] [--contest-levels hard,expert]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

from president_harness.child_server import ChildServer
from president_harness.uecda_bridge import Listener, OtherSeat, contest_rules, play_match
from president_sdk.bots import builtin_bot
from president_sdk.local import play_local
from president_sdk.uecda_client import ContestResult, play_uecda_async

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from uecda_support import EngineServer, engine_contest

_last_actions = 0
"""The actions of the last bridged match (its record's)."""
REFERENCE_S_PER_GAME = 0.007
"""The reference server with its C clients, on this machine class (shared/UECDA.md, via the issue)."""


async def _bridged(address: str, admin: str, levels: tuple[str, ...], games: int, seed: int,
                   others: tuple[str, ...] = ()) -> tuple[float, list[ContestResult]]:
    async with Listener("127.0.0.1", 0) as listener:
        clients = []
        for number, level in enumerate(levels):
            clients.append(asyncio.create_task(play_uecda_async(builtin_bot(level, seed=number), "127.0.0.1",
                                                                listener.port, name=level)))
            await asyncio.sleep(0.05)
        seated = await listener.seat_clients(len(levels))
        started = time.perf_counter()
        global _last_actions
        result = await play_match(seated, address, admin, contest_rules(games), seed=seed,
                                  others=[OtherSeat(builtin=level) for level in others])
        _last_actions = sum(len(deal.actions) for deal in result.record.deals)
        results = list(await asyncio.gather(*clients))
        return time.perf_counter() - started, results


def _local_s(levels: tuple[str, ...], games: int, seed: int) -> float:
    started = time.perf_counter()
    play_local([builtin_bot(level, seed=number) for number, level in enumerate(levels)], contest_rules(games),
               seed=seed)
    return time.perf_counter() - started


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
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--expert-games", type=int, default=200)
    parser.add_argument("--contest-games", type=int, default=1000)
    parser.add_argument("--contest-levels", default="hard,expert")
    args = parser.parse_args()
    logging.getLogger("president").setLevel(logging.ERROR)
    easy = ("easy",) * 5
    with tempfile.TemporaryDirectory() as folder, ChildServer(Path(folder) / "db.sqlite") as server:
        print(f"bridge A: five easy contest clients, {args.games} games a run, over TCP and a server of ours")
        rates, ratios = [], []
        for run in range(1, args.runs + 1):
            bridged_s, _ = asyncio.run(_bridged(server.address, server.admin_token, easy, args.games, seed=run))
            local_s = _local_s(easy, args.games, seed=run)
            rates.append(args.games / bridged_s)
            ratios.append(bridged_s / local_s)
            print(f"  run {run}: {rates[-1]:.2f} games/s ({1000 * bridged_s / args.games:.0f} ms a game); in-process"
                  f" {args.games / local_s:.1f} games/s; bridged {ratios[-1]:.1f}x the in-process time")
        rate = statistics.median(rates)
        print(f"  median of {args.runs} runs: {rate:.2f} games/s, {statistics.median(ratios):.1f}x in-process;"
              f" {1 / rate / REFERENCE_S_PER_GAME:.0f}x the reference server's {1000 * REFERENCE_S_PER_GAME:.0f} ms"
              " a game")
        print(f"  where the time goes: {1000 * bridged_s / _last_actions:.1f} ms an action in the last run;"
              " the same games with one contest client and four built-in seats of ours (no bridge for them):",
              end=" ", flush=True)
        one_s, _ = asyncio.run(_bridged(server.address, server.admin_token, ("easy",), args.games, seed=args.runs,
                                        others=("easy",) * 4))
        print(f"{1000 * one_s / args.games:.0f} ms a game, {1000 * one_s / _last_actions:.1f} ms an action (the"
              " server's move path over gRPC, its database and the seats' runners)")
        levels = ("expert", "easy", "easy", "easy", "easy")
        _, results = asyncio.run(_bridged(server.address, server.admin_token, levels, args.expert_games, seed=99))
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
