"""Engine throughput: complete 4-player single-deal games with uniformly random legal play.

For each preset: games per second and actions per second through the public
API only (Match, legal_actions, apply), the median of 5 runs of about 2 s
each; then one more run under tracemalloc for the peak of traced memory, and
the process's ru_maxrss at the end.  A measurement, never a test.

    .venv/bin/python benchmarks/engine_bench.py [--seconds 2] [--runs 5]
"""

from __future__ import annotations

import argparse
import platform
import random
import resource
import statistics
import sys
import time
import tracemalloc

from president_engine import PRESETS, Match, Rules


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one run")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"president_engine benchmark: Python {platform.python_version()} on {platform.machine()}, "
          f"4 players, 1 deal, uniformly random legal play, median of {args.runs} runs of ~{args.seconds:g} s")
    header = f"{'preset':<10} {'games/s':>9} {'actions/s':>10} {'actions/game':>12} {'runs games/s (min-max)':>23} " \
             f"{'traced peak':>11}"
    print(header)
    print("-" * len(header))
    for name in sorted(PRESETS):
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
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB elsewhere
    print(f"process ru_maxrss: {maxrss * scale / 2**20:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
