"""Engine throughput: complete 4-player single-deal games with uniformly random legal play.

For each preset: games per second and actions per second through the public
API only (Match, legal_actions, apply), the median of 5 runs of about 2 s
each; then one more run under tracemalloc for the peak of traced memory, and
the process's ru_maxrss at the end.  Then search: determinized states per
second (`Match.from_view` of a mid-deal spectator's view with the true
hands) and random playouts per second (`copy` of such a state, then random
legal play to the end of its deal).  Then, where OpenSpiel is installed (the
workspace's `learn` extra), issue 28's yardstick: the same random games against
OpenSpiel's hearts driven from Python, and against the driver floor (the same
loop driving a stub that does nothing, as many steps as the preset's games
take: what no engine driven this way can beat), interleaved in one process.
A measurement, never a test.

It measures whichever build of the engine it imports, and says which:
`make bench-engine` runs it on the source (engine/src first on PYTHONPATH)
and on the compiled wheels `make venv` installs.

    .venv/bin/python benchmarks/engine_bench.py [--seconds 2] [--runs 5]
    .venv/bin/python benchmarks/engine_bench.py --instructions   # CPU instructions per game (callgrind)
    .venv/bin/python benchmarks/engine_bench.py --profile        # where the time goes (cProfile)

Wall-clock rates move with whatever else the machine runs; ``--instructions``
counts the instructions of 100 more games under valgrind's callgrind (the
difference between two runs, after the same warm-up), which load does not
change.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time
import tracemalloc

import president_engine.match
from president_engine import PRESETS, Match, Rules

try:
    import pyspiel  # OpenSpiel, the workspace's learn extra: the yardstick of issue 28's engine bar
except ImportError:
    pyspiel = None

WARM_GAMES = 300
"""Games played before counting instructions (the engine's caches fill on first use)."""


def build_name() -> str:
    compiled = president_engine.match.__file__.endswith((".so", ".pyd"))
    return "compiled (mypyc)" if compiled else "source (pure Python)"


def play_games(rules: Rules, seconds: float, first_seed: int) -> tuple[int, int, float]:
    """Play whole games until `seconds` have passed: (games, actions, elapsed)."""
    games = actions = 0
    seed = first_seed
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        match = Match(rules, seed=seed)
        rng = random.Random(seed)
        while not match.is_over:
            match.apply(rng.choice(match.legal_actions()))
            actions += 1
        games += 1
        seed += 1
        now = time.perf_counter()
        if now >= deadline:
            return games, actions, now - start


def play_count(rules: Rules, games: int, first_seed: int) -> None:
    """Exactly `games` games (the fixed workload counted by --instructions)."""
    for seed in range(first_seed, first_seed + games):
        match = Match(rules, seed=seed)
        rng = random.Random(seed)
        while not match.is_over:
            match.apply(rng.choice(match.legal_actions()))


def hearts_games(seconds: float, uniform: bool) -> float:
    """OpenSpiel's hearts with random play from Python, games/s: its deal's chance nodes sampled from
    `chance_outcomes()` (OpenSpiel's examples) or, as they are uniform, by `random.choice` of `legal_actions()`."""
    game = pyspiel.load_game("hearts")
    rng = random.Random(1)
    games = 0
    start = time.perf_counter()
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node() and not uniform:
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return games / elapsed


class _Stub:
    """A game that does nothing for `steps` actions: the driver loop's own cost."""

    __slots__ = ("actions", "left")

    def __init__(self, steps: int, actions: list[int]) -> None:
        self.left = steps
        self.actions = actions

    @property
    def is_over(self) -> bool:
        return self.left == 0

    def legal_actions(self) -> list[int]:
        return self.actions

    def apply(self, action: int) -> None:
        self.left -= 1


def floor_games(seconds: float, steps: int) -> float:
    """Games/s of `play_games`' loop over `_Stub`s of `steps` actions (a fresh `random.Random` per game, as there)."""
    actions = list(range(5))
    games = 0
    start = time.perf_counter()
    while True:
        game = _Stub(steps, actions)
        rng = random.Random(games)
        while not game.is_over:
            game.apply(rng.choice(game.legal_actions()))
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return games / elapsed


def versus_openspiel(presets: list[str], seconds: float, runs: int) -> None:
    """Issue 28's engine bar (5x hearts in cardverse and italian, 3x in norwegian), every rate measured in turn."""
    bars = {"cardverse": 5.0, "italian": 5.0, "norwegian": 3.0}
    rules = {name: Rules.preset(name, players=4, deals=1) for name in presets}
    steps = {}
    for name in presets:
        games, actions, _ = play_games(rules[name], 0.3, 10_000_000)
        steps[name] = round(actions / games)
    rates: dict[str, list[float]] = {key: [] for key in ["hearts", "hearts uniform", *presets,
                                                          *(f"floor {name}" for name in presets)]}
    for run in range(runs):
        rates["hearts"].append(hearts_games(seconds, uniform=False))
        rates["hearts uniform"].append(hearts_games(seconds, uniform=True))
        for name in presets:
            games, _, elapsed = play_games(rules[name], seconds, run * 1_000_000)
            rates[name].append(games / elapsed)
            rates[f"floor {name}"].append(floor_games(seconds, steps[name]))
    median = {key: statistics.median(values) for key, values in rates.items()}
    hearts, uniform = median["hearts"], median["hearts uniform"]
    print(f"\nversus OpenSpiel (interleaved, median of {runs} runs of ~{seconds:g} s): hearts {hearts:.0f} games/s "
          f"with chance_outcomes(), {uniform:.0f} with a uniform choice of legal_actions(); the floor is the same "
          f"loop driving a stub of the preset's actions per game")
    header = (f"{'preset':<10} {'games/s':>9} {'x hearts':>9} {'x uniform':>10} {'floor/s':>9} {'floor x hearts':>15} "
              f"{'floor x uniform':>16} {'bar':>5}")
    print(header)
    print("-" * len(header))
    for name in presets:
        floor = median[f"floor {name}"]
        bar = f"{bars[name]:g}x" if name in bars else "-"
        print(f"{name:<10} {median[name]:>9.0f} {median[name] / hearts:>8.2f}x {median[name] / uniform:>9.2f}x "
              f"{floor:>9.0f} {floor / hearts:>14.2f}x {floor / uniform:>15.2f}x {bar:>5}")


def search_rates(rules: Rules, seconds: float) -> tuple[float, float, float]:
    """(determinized states/s, random playouts/s, actions per playout)."""
    views = []
    for seed in range(50):
        match = Match(rules, seed=seed)
        rng = random.Random(seed)
        for _ in range(10):
            match.apply(rng.choice(match.legal_actions()))
        views.append((match.public_observation(), [match.hand(p) for p in range(rules.players)]))
    built = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds / 2:
        for view, hands in views:
            Match.from_view(view, hands)
        built += len(views)
    from_view_rate = built / (time.perf_counter() - start)
    states = [Match.from_view(view, hands) for view, hands in views]
    rng = random.Random(1)
    playouts = actions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds / 2:
        for state in states:
            world = state.copy()
            while not world.is_over:
                world.apply(rng.choice(world.legal_actions()))
                actions += 1
        playouts += len(states)
    return from_view_rate, playouts / (time.perf_counter() - start), actions / playouts


def instructions(preset: str, games: int) -> int | None:
    """CPU instructions of `games` more games of `preset` (callgrind), or None without valgrind."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        return None

    def count(n: int) -> int:
        done = subprocess.run([valgrind, "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                               __file__, "--count-games", str(n), "--preset", preset],
                              capture_output=True, text=True, env=os.environ, check=True)
        found = re.search(r"Collected : (\d+)", done.stderr)
        assert found, done.stderr[-500:]
        return int(found.group(1))

    return (count(games) - count(0)) // games


def profile(preset: str, games: int, top: int) -> None:
    """The `top` functions by own time over `games` games, with their share of the whole."""
    rules = Rules.preset(preset, players=4, deals=1)
    play_count(rules, WARM_GAMES, 10_000_000)
    profiler = cProfile.Profile()
    profiler.runcall(play_count, rules, games, 0)
    stats = pstats.Stats(profiler)
    rows = stats.stats  # type: ignore[attr-defined]  # pstats keeps its table here, untyped
    total = sum(row[2] for row in rows.values())
    print(f"\n{preset}: {games} games, {total:.2f} s profiled; own time by function")
    for (path, line, name), row in sorted(rows.items(), key=lambda item: -item[1][2])[:top]:
        where = f"{os.path.basename(path)}:{line}" if line else path
        print(f"  {100 * row[2] / total:5.1f}%  {row[1]:>9,} calls  {name} ({where})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one run")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--instructions", action="store_true", help="count CPU instructions per game instead")
    parser.add_argument("--profile", action="store_true", help="where the time goes (cProfile) instead")
    parser.add_argument("--preset", choices=sorted(PRESETS), action="append", help="only these presets")
    parser.add_argument("--count-games", type=int, help=argparse.SUPPRESS)  # the workload --instructions counts
    args = parser.parse_args()
    presets = args.preset or sorted(PRESETS)
    if args.count_games is not None:
        rules = Rules.preset(presets[0], players=4, deals=1)
        play_count(rules, WARM_GAMES, 10_000_000)
        play_count(rules, args.count_games, 0)
        return 0
    if args.profile:
        print(f"president_engine profile ({build_name()}): Python {platform.python_version()}, 4 players, 1 deal, "
              f"uniformly random legal play, {WARM_GAMES} games of warm-up first")
        for name in presets:
            profile(name, 300, 8)
        return 0
    if args.instructions:
        print(f"president_engine instructions per game ({build_name()}): Python {platform.python_version()}, "
              f"4 players, 1 deal, uniformly random legal play; callgrind, 100 games after {WARM_GAMES}")
        for name in presets:
            found = instructions(name, 100)
            print(f"{name:<10} {'valgrind not found' if found is None else f'{found:>12,} instructions/game'}")
        return 0
    print(f"president_engine benchmark ({build_name()}): Python {platform.python_version()} on {platform.machine()}, "
          f"4 players, 1 deal, uniformly random legal play, median of {args.runs} runs of ~{args.seconds:g} s")
    header = f"{'preset':<10} {'games/s':>9} {'actions/s':>10} {'actions/game':>12} {'runs games/s (min-max)':>23} " \
             f"{'traced peak':>11}"
    print(header)
    print("-" * len(header))
    for name in presets:
        rules = Rules.preset(name, players=4, deals=1)
        play_games(rules, 0.2, 10_000_000)  # warm the interned plays and tables
        games_rates, action_rates, per_game = [], [], []
        for run in range(args.runs):
            games, actions, elapsed = play_games(rules, args.seconds, run * 1_000_000)
            games_rates.append(games / elapsed)
            action_rates.append(actions / elapsed)
            per_game.append(actions / games)
        tracemalloc.start()
        play_games(rules, args.seconds / 4, 99_000_000)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"{name:<10} {statistics.median(games_rates):>9.1f} {statistics.median(action_rates):>10.0f} "
              f"{statistics.median(per_game):>12.1f} "
              f"{f'{min(games_rates):.1f}-{max(games_rates):.1f}':>23} {peak / 1024:>8.0f} KiB")
    print(f"\nsearch: Match.from_view of a view 10 actions into a deal; copy + random playout to the end of the deal"
          f" (median of {args.runs} runs)")
    header = f"{'preset':<10} {'states/s':>9} {'playouts/s':>11} {'actions/playout':>16}"
    print(header)
    print("-" * len(header))
    for name in presets:
        rules = Rules.preset(name, players=4, deals=1)
        runs = [search_rates(rules, args.seconds) for _ in range(args.runs)]
        print(f"{name:<10} {statistics.median(r[0] for r in runs):>9.0f} {statistics.median(r[1] for r in runs):>11.0f}"
              f" {statistics.median(r[2] for r in runs):>16.1f}")
    if pyspiel is None:
        print("\nversus OpenSpiel: not installed (the workspace's learn extra), skipped")
    else:
        versus_openspiel(presets, args.seconds / 2, args.runs)
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB elsewhere
    print(f"process ru_maxrss: {maxrss * scale / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
